#pragma once
// Real worker frameworks (a `sidekiq` or `celery worker` process) run by a test: started with their own
// environment, their output in a temp log the test prints when it fails, stopped with SIGTERM (then
// SIGKILL) by stop() or the destructor, so no worker outlives its test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"

namespace rowpump::test {

// The program's path on PATH, or nullopt when it is not installed.
inline std::optional<std::string> find_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::istringstream directories(path ? path : "");
    for (std::string directory; std::getline(directories, directory, ':');) {
        const std::string candidate = directory + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return std::nullopt;
}

class WorkerProcess {
public:
    WorkerProcess(std::vector<std::string> argv, const EnvOverride& env) : log_path_(temp_file("worker")) {
        for (const auto& arg : argv) command_ += (command_.empty() ? "" : " ") + arg;
        const int spawned = spawn_child(std::move(argv), env, log_path_, log_path_, pid_);
        if (spawned != 0) {
            ADD_FAILURE() << "cannot start " << command_ << ": error " << spawned;
            pid_ = 0;
        }
    }
    ~WorkerProcess() {
        stop();
        std::remove(log_path_.c_str());
    }
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    bool running() {
        if (pid_ <= 0) return false;
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = 0;
            return false;
        }
        return true;
    }

    // SIGTERM, a few seconds for a clean shutdown, then SIGKILL; reaps the process.
    void stop() {
        if (!running()) return;
        ::kill(pid_, SIGTERM);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (running() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (!running()) return;
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = 0;
    }

    std::string describe() const { return "$ " + command_ + "\n--- its output ---\n" + slurp(log_path_).substr(0, 6000); }

private:
    std::string log_path_;
    std::string command_;
    pid_t pid_ = 0;
};

}  // namespace rowpump::test
