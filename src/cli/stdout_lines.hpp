#pragma once
// Lines written to standard output from where they already are, one '\n' after each, by writev: `rowpump
// read` hands over each page's payloads as the encoder left them. Copying them into one buffer first cost
// a 1M-row JSON read to /dev/null about a tenth more CPU (0.24 to 0.27 s, medians of 11); by writev it
// took what the read before the shared pipeline took (0.26 s). Into a pipe, the kernel's copy of many
// small pieces costs some system time instead (0.29 to 0.33 s of CPU, medians of 5, the same wall time).
#include <string_view>
#include <vector>

#include <sys/uio.h>

namespace rowpump::cli {

class StdoutLines {
public:
    // Queues `line` and a line end; `line` must stay valid until the next flush(). Writes when the queue
    // holds as many pieces as one writev takes.
    void add(std::string_view line);
    // Writes every queued line. Throws Error when standard output refuses them.
    void flush();

private:
    std::vector<iovec> pieces_;
};

}  // namespace rowpump::cli
