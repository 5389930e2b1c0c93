#include "cli/stdout_lines.hpp"

#include <cerrno>
#include <climits>
#include <unistd.h>

#include "rowpump/error.hpp"

namespace rowpump::cli {

namespace {

const char line_end = '\n';
constexpr std::size_t max_pieces = IOV_MAX;

}  // namespace

void StdoutLines::add(std::string_view line) {
    if (pieces_.size() + 2 > max_pieces) flush();
    if (!line.empty()) pieces_.push_back({const_cast<char*>(line.data()), line.size()});
    pieces_.push_back({const_cast<char*>(&line_end), 1});
}

void StdoutLines::flush() {
    iovec* next = pieces_.data();
    std::size_t left = pieces_.size();
    while (left > 0) {
        const ssize_t written = ::writev(STDOUT_FILENO, next, static_cast<int>(left));
        if (written < 0) {
            if (errno == EINTR) continue;
            throw Error("cannot write to standard output");
        }
        // A short write (a pipe, a signal): skip what went out, and go on from inside the piece it ended in.
        auto done = static_cast<std::size_t>(written);
        while (left > 0 && done >= next->iov_len) {
            done -= next->iov_len;
            ++next;
            --left;
        }
        if (left > 0) {
            next->iov_base = static_cast<char*>(next->iov_base) + done;
            next->iov_len -= done;
        }
    }
    pieces_.clear();
}

}  // namespace rowpump::cli
