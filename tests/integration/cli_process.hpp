#pragma once
// Running the built CLI (ROWPUMP_CLI_PATH) to the end from a test: its exit code, stdout and stderr.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace rowpump::test {

struct CliRun {
    int exit_code = -1;  // -signal when killed by one
    std::string out;
    std::string err;

    std::string describe() const {
        return "exit " + std::to_string(exit_code) + "\n--- stdout ---\n" + out.substr(0, 3000) + "\n--- stderr ---\n" +
               err.substr(0, 3000);
    }
};

inline std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Runs `rowpump args...` with stdin from /dev/null and the test's environment, and waits for it.
inline CliRun run_rowpump(const std::vector<std::string>& args) {
    static int next = 0;
    const std::string base =
        ::testing::TempDir() + "rowpump_cli_" + std::to_string(::getpid()) + "_" + std::to_string(next++);
    const std::string out_path = base + ".out";
    const std::string err_path = base + ".err";
    std::vector<std::string> argv_text{ROWPUMP_CLI_PATH};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);

    CliRun run;
    if (spawned != 0) {
        ADD_FAILURE() << "cannot run " << ROWPUMP_CLI_PATH << ": error " << spawned;
        return run;
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    run.out = read_whole_file(out_path);
    run.err = read_whole_file(err_path);
    std::remove(out_path.c_str());
    std::remove(err_path.c_str());
    return run;
}

}  // namespace rowpump::test
