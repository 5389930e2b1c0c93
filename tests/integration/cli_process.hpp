#pragma once
// The built rowpump CLI (ROWPUMP_CLI_PATH) as a child process: CliProcess for tests that signal, stop or
// kill it mid-run, run_rowpump() for those that run it to the end. Its stdout and stderr go to temp files
// that the test reads back. Both take an optional environment override for the child: a value sets the
// variable, nullopt removes it; everything else is inherited from the test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/c_string_list.hpp"
#include "rowpump/options.hpp"

extern char** environ;

namespace rowpump::test {

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline std::string temp_file(const char* name) {
    std::string path = ::testing::TempDir() + "rowpump_cli_" + name + "_XXXXXX";
    const int fd = ::mkstemp(path.data());
    if (fd >= 0) ::close(fd);
    return path;
}

// Polls `condition` every 20 ms until it holds (true) or `limit` has passed (false).
inline bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

using EnvOverride = std::map<std::string, std::optional<std::string>>;

// The test's own environment with `env` applied, as NAME=value strings.
inline std::vector<std::string> child_environment(const EnvOverride& env) {
    std::vector<std::string> environment;
    for (char** entry = environ; *entry; ++entry) {
        const std::string variable(*entry);
        if (!env.count(variable.substr(0, variable.find('=')))) environment.push_back(variable);
    }
    for (const auto& [name, value] : env)
        if (value) environment.push_back(name + "=" + *value);
    return environment;
}

inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// Starts argv[0] (a path) with `env` applied to this process's environment, stdin from /dev/null, stdout
// and stderr into the named files (one file for both when the names are equal). Returns posix_spawn's
// error, 0 when `pid` is the child's.
inline int spawn_child(std::vector<std::string> argv_text, const EnvOverride& env, const std::string& out_path,
                       const std::string& err_path, pid_t& pid) {
    std::vector<char*> argv = c_string_list(argv_text);
    std::vector<std::string> environment = child_environment(env);
    std::vector<char*> envp = c_string_list(environment);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_TRUNC, 0);
    if (err_path == out_path) posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    else posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_TRUNC, 0);
    const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    return spawned;
}

// The built CLI as a child process, stdout and stderr in temp files. The destructor SIGKILLs and reaps
// a child that still runs (a stopped one too), so a failed assertion never leaves a process behind.
class CliProcess {
public:
    explicit CliProcess(const std::vector<std::string>& args, const EnvOverride& env = {})
        : out_path_(temp_file("out")), err_path_(temp_file("err")) {
        std::vector<std::string> argv_text{ROWPUMP_CLI_PATH};
        argv_text.insert(argv_text.end(), args.begin(), args.end());
        for (const auto& arg : argv_text) command_ += (command_.empty() ? "" : " ") + arg;
        const int spawned = spawn_child(argv_text, env, out_path_, err_path_, pid_);
        if (spawned != 0) {
            ADD_FAILURE() << "cannot run " << ROWPUMP_CLI_PATH << ": error " << spawned;
            pid_ = 0;
            status_ = -1;
        }
    }
    ~CliProcess() {
        kill();
        std::remove(out_path_.c_str());
        std::remove(err_path_.c_str());
    }
    CliProcess(const CliProcess&) = delete;
    CliProcess& operator=(const CliProcess&) = delete;

    pid_t pid() const { return pid_; }

    // How it ended (its exit code, or minus the signal that ended it), or nullopt while it runs.
    std::optional<int> poll() {
        if (status_ || pid_ <= 0) return status_;
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_)
            status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
        return status_;
    }
    std::optional<int> wait_for(std::chrono::steady_clock::duration timeout) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (!poll() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return poll();
    }
    void signal(int number) {
        if (!poll()) ::kill(pid_, number);
    }
    // SIGKILL (a stopped child too) and reap. Returns how it ended.
    int kill() {
        if (poll()) return *status_;
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
        return *status_;
    }

    std::string out() const { return slurp(out_path_); }
    std::string err() const { return slurp(err_path_); }
    std::string describe() const {
        // The command line may hold a URL with a password (tests of argv scrubbing pass one on purpose).
        return "$ " + redact_url(command_) + "\nended: " + (status_ ? std::to_string(*status_) : "still running") +
               "\n--- stdout ---\n" + slurp(out_path_).substr(0, 2000) + "\n--- stderr ---\n" +
               err().substr(0, 4000);
    }

private:
    std::string out_path_;
    std::string err_path_;
    std::string command_;
    pid_t pid_ = 0;
    std::optional<int> status_;
};

struct CliRun {
    int exit_code = -1;  // -signal when killed by one
    std::string out;
    std::string err;

    std::string describe() const {
        return "exit " + std::to_string(exit_code) + "\n--- stdout ---\n" + out.substr(0, 3000) + "\n--- stderr ---\n" +
               err.substr(0, 3000);
    }
};

// Runs `rowpump args...` with stdin from /dev/null and the test's environment (changed by `env`), and
// waits for it.
inline CliRun run_rowpump(const std::vector<std::string>& args, const EnvOverride& env = {}) {
    CliProcess process(args, env);
    CliRun run;
    while (!process.poll()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    run.exit_code = *process.poll();
    run.out = process.out();
    run.err = process.err();
    return run;
}

// Bad input as the user sees it: exit 2 and one line on stderr that mentions `needle`.
inline void expect_one_line_refusal(const CliRun& run, const std::string& needle) {
    EXPECT_EQ(run.exit_code, 2) << run.describe();
    const auto err = lines(run.err);
    ASSERT_EQ(err.size(), 1u) << "one clear line\n" << run.describe();
    EXPECT_NE(err[0].find(needle), std::string::npos) << "should mention " << needle << "\n" << run.describe();
}

}  // namespace rowpump::test
