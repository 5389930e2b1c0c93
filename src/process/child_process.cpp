#include "process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "process/command_argv.hpp"
#include "rowpump/error.hpp"

extern char** environ;

namespace rowpump::process {

namespace {

[[noreturn]] void throw_errno(const std::string& what, int error) {
    throw Error("cannot run the consumer command: " + what + ": " + std::strerror(error));
}

// Close-on-exec: a command started by another worker thread must not inherit this one's pipes.
void make_pipe(Fd& read_end, Fd& write_end) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe", errno);
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
}

void set_nonblocking(const Fd& fd) {
    if (fd.open()) ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_NONBLOCK);
}

struct SpawnAttributes {
    SpawnAttributes() {
        posix_spawnattr_init(&attr);
        sigset_t defaults;
        sigemptyset(&defaults);
        for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, signal);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setpgroup(&attr, 0);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    }
    ~SpawnAttributes() { posix_spawnattr_destroy(&attr); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
    posix_spawnattr_t attr;
};

struct FileActions {
    FileActions() { posix_spawn_file_actions_init(&actions); }
    ~FileActions() { posix_spawn_file_actions_destroy(&actions); }
    FileActions(const FileActions&) = delete;
    FileActions& operator=(const FileActions&) = delete;
    posix_spawn_file_actions_t actions;
};

}  // namespace

ChildProcess::ChildProcess(const std::string& command, const SpawnOptions& options) {
    Fd stdin_read, stdout_write, stderr_write;
    make_pipe(stdin_read, stdin_write);
    if (options.pipe_stdout) make_pipe(stdout_read, stdout_write);
    if (options.pipe_stderr) make_pipe(stderr_read, stderr_write);

    FileActions files;
    posix_spawn_file_actions_adddup2(&files.actions, stdin_read.get(), STDIN_FILENO);
    if (options.pipe_stdout) posix_spawn_file_actions_adddup2(&files.actions, stdout_write.get(), STDOUT_FILENO);
    if (options.pipe_stderr) posix_spawn_file_actions_adddup2(&files.actions, stderr_write.get(), STDERR_FILENO);
    posix_spawn_file_actions_addclosefrom_np(&files.actions, STDERR_FILENO + 1);
    const SpawnAttributes attributes;

    std::vector<char*> envp;
    for (char** entry = environ; *entry; ++entry) envp.push_back(*entry);
    std::vector<std::string> added = options.environment;
    for (std::string& entry : added) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::vector<std::string> words = command_argv(command);
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);

    // posix_spawnp searches PATH for a bare name, as the shell would.
    const int spawned = posix_spawnp(&pid_, argv[0], &files.actions, &attributes.attr, argv.data(), envp.data());
    if (spawned != 0) throw_errno(words[0], spawned);
    // The child stays a zombie until it is reaped, so neither its pid nor this pidfd can be reused.
    exited_.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0)));
    if (!exited_.open()) {
        const int error = errno;
        signal_group(SIGKILL);
        ::waitpid(pid_, &status_, 0);
        reaped_ = true;
        throw_errno("pidfd_open", error);
    }
    set_nonblocking(stdin_write);
    set_nonblocking(stdout_read);
    set_nonblocking(stderr_read);
}

ChildProcess::~ChildProcess() {
    if (reaped_ || pid_ <= 0) return;
    signal_group(SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
}

bool ChildProcess::has_exited() {
    if (reaped_) return true;
    if (!wait_for(exited_.get(), POLLIN, 0)) return false;
    wait();
    return true;
}

void ChildProcess::signal_group(int signal) noexcept {
    // The group was made at spawn, so its id is the child's pid; the group outlives a child that forked.
    if (pid_ > 0) ::kill(-pid_, signal);
}

int ChildProcess::wait(std::chrono::milliseconds limit) {
    if (reaped_) return status_;
    if (limit.count() > 0 && !wait_for(exited_.get(), POLLIN, static_cast<int>(limit.count()))) signal_group(SIGKILL);
    while (::waitpid(pid_, &status_, 0) < 0) {
        if (errno != EINTR) throw_errno("waitpid", errno);
    }
    reaped_ = true;
    return status_;
}

std::string describe_exit(int status, const std::string& stderr_tail) {
    std::string text = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                           : "exit status " + std::to_string(WEXITSTATUS(status));
    const std::size_t end = stderr_tail.find_last_not_of(" \t\r\n");
    if (end != std::string::npos) text += ": " + stderr_tail.substr(0, end + 1);
    return text;
}

bool wait_for(int fd, short events, int timeout_ms) {
    pollfd entry{fd, events, 0};
    for (;;) {
        const int ready = ::poll(&entry, 1, timeout_ms);
        if (ready >= 0) return ready > 0;
        if (errno != EINTR) return false;
    }
}

}  // namespace rowpump::process
