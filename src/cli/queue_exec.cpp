#include "cli/queue_exec.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "rowpump/error.hpp"

extern char** environ;

namespace rowpump::cli {

namespace {

// Bytes of the command's stderr kept for the failure text (the end is where the reason usually is).
constexpr std::size_t stderr_tail_bytes = 2000;

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_;
};

[[noreturn]] void throw_errno(const std::string& what) {
    throw Error("cannot run the consumer command: " + what + ": " + std::strerror(errno));
}

void make_pipe(Fd& read_end, Fd& write_end) {
    int fds[2];
    // Close-on-exec: a command started by another worker thread must not inherit this task's pipes.
    if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("pipe");
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

// The spawn attributes: default SIGPIPE/SIGINT/SIGTERM handling and no blocked signals (whatever this
// process set up for itself), and a process group of its own.
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

std::string describe_status(int status, const std::string& stderr_tail) {
    std::string text = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                           : "exit status " + std::to_string(WEXITSTATUS(status));
    std::size_t end = stderr_tail.find_last_not_of(" \t\r\n");
    if (end != std::string::npos) text += ": " + stderr_tail.substr(0, end + 1);
    return text;
}

}  // namespace

CommandResult run_task_command(const std::string& command, std::string_view input, const std::vector<std::string>& environment,
                          std::chrono::milliseconds tick_interval, const std::function<void()>& tick) {
    Fd stdin_read, stdin_write, stderr_read, stderr_write;
    make_pipe(stdin_read, stdin_write);
    make_pipe(stderr_read, stderr_write);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, stdin_read.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, stderr_write.get(), STDERR_FILENO);
    // Nothing else of ours: a command that kept a server connection of this process open (a driver's
    // socket without close-on-exec) would keep its session, and the claims it owns, alive after we died.
    posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
    const SpawnAttributes attributes;

    std::vector<char*> envp;
    for (char** entry = environ; *entry; ++entry) envp.push_back(*entry);
    std::vector<std::string> added = environment;
    for (std::string& entry : added) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::string shell = "/bin/sh", dash_c = "-c", script = command;
    char* argv[] = {shell.data(), dash_c.data(), script.data(), nullptr};

    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes.attr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        errno = spawned;
        throw_errno("/bin/sh");
    }
    stdin_read.reset();
    stderr_write.reset();
    // The child stays a zombie until waitpid below, so its pid (and this pidfd) cannot be reused.
    Fd exited(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    if (exited.get() < 0) throw_errno("pidfd_open");
    set_nonblocking(stdin_write.get());
    set_nonblocking(stderr_read.get());

    std::string tail;
    const auto copy_stderr = [&] {
        char buffer[4096];
        for (;;) {
            const ssize_t got = ::read(stderr_read.get(), buffer, sizeof buffer);
            if (got == 0) return false;  // end of file
            if (got < 0) return errno == EAGAIN || errno == EINTR;
            if (::write(STDERR_FILENO, buffer, static_cast<std::size_t>(got)) < 0) {
                // Our own stderr is gone: keep the tail for the failure text anyway.
            }
            tail.append(buffer, static_cast<std::size_t>(got));
            if (tail.size() > 2 * stderr_tail_bytes) tail.erase(0, tail.size() - stderr_tail_bytes);
        }
    };

    std::size_t written = 0;
    if (input.empty()) stdin_write.reset();
    tick_interval = std::max(tick_interval, std::chrono::milliseconds(10));
    auto next_tick = std::chrono::steady_clock::now() + tick_interval;
    for (bool running = true; running;) {
        pollfd fds[3] = {{exited.get(), POLLIN, 0}, {stderr_read.get(), POLLIN, 0}, {stdin_write.get(), POLLOUT, 0}};
        const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - std::chrono::steady_clock::now());
        const int ready = ::poll(fds, 3, static_cast<int>(std::max<long>(wait.count(), 0)));
        if (ready < 0 && errno != EINTR) throw_errno("poll");
        if (fds[1].revents != 0 && !copy_stderr()) stderr_read.reset();
        if (fds[2].revents != 0) {
            const ssize_t sent = ::write(stdin_write.get(), input.data() + written, input.size() - written);
            // EPIPE: the command exited or closed its stdin without reading it all; its exit status says
            // whether that was fine.
            if (sent > 0) written += static_cast<std::size_t>(sent);
            if ((sent < 0 && errno != EAGAIN) || written == input.size()) stdin_write.reset();
        }
        if (fds[0].revents != 0) running = false;
        if (std::chrono::steady_clock::now() >= next_tick) {
            if (tick) tick();
            next_tick = std::chrono::steady_clock::now() + tick_interval;
        }
    }
    // What the command wrote before it exited (a background child of it may keep the pipe open: do not
    // wait for end of file).
    if (stderr_read.get() >= 0) copy_stderr();

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) throw_errno("waitpid");
    }
    CommandResult result;
    result.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!result.succeeded) {
        if (tail.size() > stderr_tail_bytes) tail.erase(0, tail.size() - stderr_tail_bytes);
        result.failure = describe_status(status, tail);
    }
    return result;
}

}  // namespace rowpump::cli
