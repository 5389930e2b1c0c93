#include "handler/handler_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "handler/task_lines.hpp"
#include "log.hpp"

namespace rowpump::handler {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A result line is a word and a reason: longer than this without a newline, it is not one.
constexpr std::size_t longest_result_line = 64 * 1024;
// How often a long batch renews its tasks' claims (TaskContext::heartbeat).
constexpr milliseconds heartbeat_interval{1000};
// What a new handler's first answer may take beyond the task timeout: its own start-up (an interpreter,
// its imports, a connection to its database).
constexpr milliseconds start_up_allowance{5000};
// How long a handler that was killed, or whose output ended, gets to be reaped.
constexpr milliseconds reap_wait{2000};

process::SpawnOptions spawn_options(const PipeOptions& options) {
    process::SpawnOptions spawn;
    spawn.pipe_stdout = true;
    spawn.environment = options.environment;
    return spawn;
}

// The start of a line for an error message: never the whole of what may be a payload echoed back.
std::string quoted_start(std::string_view line) {
    constexpr std::size_t shown = 60;
    std::string text(line.substr(0, shown));
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return "'" + text + (line.size() > shown ? "...'" : "'");
}

}  // namespace

HandlerProcess::HandlerProcess(const PipeOptions& options, unsigned generation)
    : options_(options), generation_(generation), child_(options.command, spawn_options(options)) {}

bool HandlerProcess::read_available() {
    char buffer[16384];
    for (;;) {
        const ssize_t got = ::read(child_.stdout_read.get(), buffer, sizeof buffer);
        if (got > 0) {
            output_.append(buffer, static_cast<std::size_t>(got));
            // Less than asked: the pipe is empty now. A handler answers a line at a time, so another read
            // would mostly find nothing (EAGAIN): one syscall per answer saved; the next poll sees the rest.
            if (static_cast<std::size_t>(got) < sizeof buffer) return true;
            continue;
        }
        if (got == 0) return false;
        return errno == EAGAIN || errno == EINTR;
    }
}

std::string HandlerProcess::exit_text() { return process::describe_exit(child_.wait(reap_wait)); }

void HandlerProcess::fail_from(std::size_t first, const std::vector<TaskContext>& tasks, std::vector<TaskResult>& results,
                               std::string fault) {
    child_.signal_group(SIGKILL);
    child_.wait(reap_wait);
    fault_ = std::move(fault);
    for (std::size_t i = first; i < tasks.size(); ++i)
        results[i] = TaskResult::fail("its handler " + fault_ + " before it answered");
    log().warn("handler {} (pid {}) {}: {} task(s) it held failed and go back to the queue; it is restarted",
               options_.command, child_.pid(), fault_, tasks.size() - first);
}

bool HandlerProcess::run(const std::vector<TaskContext>& tasks, std::vector<TaskResult>& results,
                         std::vector<Clock::time_point>* answered_at) {
    results.assign(tasks.size(), TaskResult::ok());
    if (answered_at) answered_at->assign(tasks.size(), Clock::time_point{});
    input_.clear();
    for (const TaskContext& task : tasks) append_task_line(task, input_);
    std::size_t written = 0, next = 0;
    auto deadline = Clock::now() + options_.task_timeout + (answered_ == 0 ? start_up_allowance : milliseconds(0));
    auto next_beat = Clock::now() + heartbeat_interval;
    bool exited = false;
    while (next < tasks.size()) {
        // Parse every whole line that came in.
        std::size_t start = 0;
        for (std::size_t end; next < tasks.size() && (end = output_.find('\n', start)) != std::string::npos;
             start = end + 1) {
            const std::string_view line(output_.data() + start, end - start);
            const std::optional<TaskResult> result = parse_result_line(line);
            if (!result) {
                std::string fault = "wrote " + quoted_start(line) + ", which is not a result (ok, retry, fail or dead)";
                output_.clear();
                fail_from(next, tasks, results, std::move(fault));
                return false;
            }
            const auto read_at = Clock::now();
            if (answered_at) (*answered_at)[next] = read_at;
            results[next++] = *result;
            ++answered_;
            deadline = read_at + options_.task_timeout;
        }
        output_.erase(0, start);
        if (next == tasks.size()) break;
        if (output_.size() > longest_result_line) {
            fail_from(next, tasks, results, "wrote more than 64 KiB without a newline, which is not a result");
            return false;
        }
        if (exited) {
            fail_from(next, tasks, results, "ended (" + exit_text() + ")");
            return false;
        }
        const auto now = Clock::now();
        if (options_.task_timeout.count() > 0 && now >= deadline) {
            fail_from(next, tasks, results,
                      "took longer than the task timeout (" + std::to_string(options_.task_timeout.count()) + " ms)");
            return false;
        }
        if (now >= next_beat) {
            if (tasks.front().heartbeat) tasks.front().heartbeat();
            next_beat = now + heartbeat_interval;
        }
        auto until = next_beat;
        if (options_.task_timeout.count() > 0) until = std::min(until, deadline);
        const bool writing = written < input_.size() && child_.stdin_write.open();
        pollfd fds[3] = {{child_.stdout_read.get(), POLLIN, 0},
                         {child_.exit_fd(), POLLIN, 0},
                         {writing ? child_.stdin_write.get() : -1, POLLOUT, 0}};
        const auto wait = std::chrono::duration_cast<milliseconds>(until - now).count();
        ::poll(fds, 3, static_cast<int>(std::max<long long>(wait, 0) + 1));
        if (fds[2].revents != 0) {
            const ssize_t sent = ::write(child_.stdin_write.get(), input_.data() + written, input_.size() - written);
            if (sent > 0) written += static_cast<std::size_t>(sent);
            // EPIPE: it closed its stdin or exited; what it answered so far is still read below.
            else if (errno != EAGAIN && errno != EINTR) child_.stdin_write.reset();
        }
        // Output is read before the exit is looked at, so results it wrote just before it ended count.
        if (fds[0].revents != 0 && !read_available()) exited = true;
        if (fds[1].revents != 0) {
            read_available();
            exited = true;
        }
    }
    return true;
}

bool HandlerProcess::alive() { return !child_.has_exited(); }

void HandlerProcess::finish(milliseconds grace) {
    child_.stdin_write.reset();
    const int status = child_.wait(grace);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        log().warn("handler {} (pid {}) did not exit within {} ms of the end of its input and was killed",
                   options_.command, child_.pid(), grace.count());
}

}  // namespace rowpump::handler
