#pragma once
// A consumer's command as a child process: started with pipes to its stdin (and, when asked, from its
// stdout and stderr), in a process group of its own, with the default handling of SIGPIPE, SIGINT,
// SIGTERM and SIGHUP and nothing else of ours open. A Ctrl-C meant for rowpump (a clean stop) therefore
// does not kill a task half-way, and a command that kept a server connection of ours open could not keep
// our session, and the claims it owns, alive after we died.
//
// This process must ignore SIGPIPE (a command that does not read its input must not kill us).
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "process/fd.hpp"

namespace rowpump::process {

struct SpawnOptions {
    bool pipe_stdout = false;  // otherwise the child's stdout is ours
    bool pipe_stderr = false;  // otherwise the child's stderr is ours
    std::vector<std::string> environment;  // "NAME=value" added to ours
};

class ChildProcess {
public:
    // Starts `command` (see command_argv.hpp). Throws Error "cannot run the consumer command: ..." when it
    // cannot be started (no such program, not executable, no resources).
    ChildProcess(const std::string& command, const SpawnOptions& options);
    // A child still running is killed (its whole group) and reaped.
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const noexcept { return pid_; }
    // Our ends, non-blocking; the ones not piped are closed. Closing stdin_write tells the child "no more".
    Fd stdin_write, stdout_read, stderr_read;
    // Readable (POLLIN) once the child has exited.
    int exit_fd() const noexcept { return exited_.get(); }

    bool has_exited();                   // without waiting
    void signal_group(int signal) noexcept;
    // Waits for the exit and returns the wait status; `limit` 0: as long as it takes. After `limit` the
    // group gets SIGKILL and the status is that of the kill.
    int wait(std::chrono::milliseconds limit = std::chrono::milliseconds(0));

private:
    pid_t pid_ = -1;
    Fd exited_;
    bool reaped_ = false;
    int status_ = 0;
};

// "exit status 3" or "killed by signal 9", then ": <the end of stderr_tail>" when it has any text.
std::string describe_exit(int status, const std::string& stderr_tail = {});

// Polls one descriptor for `events` up to `timeout` (-1: forever), retrying on EINTR. True when ready.
bool wait_for(int fd, short events, int timeout_ms);

}  // namespace rowpump::process
