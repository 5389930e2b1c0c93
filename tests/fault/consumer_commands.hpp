#pragma once
// What the consumer tests give `rowpump queue consume --exec`: commands that record the tasks they ran
// (Outbox), commands that outlive their consumer (LingeringHandlers), and a drain that counts how often
// each attempt number ($ROWPUMP_TASK_ATTEMPT) ran.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/queue_contents.hpp"

namespace rowpump::test {

// A directory where each task run leaves one file holding its payload.
class Outbox {
public:
    Outbox() : dir_(std::filesystem::path(::testing::TempDir()) / ("rowpump_outbox_" + std::to_string(::getpid()) + "_" +
                                                                    std::to_string(next_++))) {
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    ~Outbox() { std::filesystem::remove_all(dir_); }
    // The consumer's --exec: store the payload in a fresh file, then take `seconds`.
    std::string command(const std::string& seconds) const {
        return "f=$(mktemp -p '" + dir_.string() + "' task.XXXXXX) && cat > \"$f.tmp\" && mv \"$f.tmp\" \"$f.done\" && rm -f \"$f\" && sleep " + seconds;
    }
    std::vector<std::string> payloads() const {
        std::vector<std::string> out;
        for (const auto& entry : std::filesystem::directory_iterator(dir_))
            if (entry.path().extension() == ".done") out.push_back(slurp(entry.path()));
        std::sort(out.begin(), out.end());
        return out;
    }
    std::size_t count() const { return payloads().size(); }

private:
    static inline int next_ = 0;
    std::filesystem::path dir_;
};

// A consumer's --exec that outlives it, as `sleep 3600` does when its consumer is SIGKILLed (each command
// runs in a process group of its own). Each records its pid; the destructor kills whatever is left.
class LingeringHandlers {
public:
    ~LingeringHandlers() {
        for (const std::string& pid : file_lines(pids_)) ::kill(std::stoi(pid), SIGKILL);
        std::remove(pids_.c_str());
    }
    std::string command() const { return "echo $$ >> '" + pids_ + "'; exec sleep 3600"; }
    std::size_t started() const { return file_lines(pids_).size(); }

private:
    std::string pids_ = fresh_temp_path("lingering_handlers");
};

// `rowpump queue consume ARGS --until-empty` that records each task's payload and $ROWPUMP_TASK_ATTEMPT;
// returns how many tasks ran with each attempt number.
inline std::map<std::string, int> drain_counting_attempts(std::vector<std::string> args) {
    const std::string record = fresh_temp_path("attempts");
    args.insert(args.end(), {"--exec", "{ cat > /dev/null; echo \"$ROWPUMP_TASK_ATTEMPT\"; } >> '" + record + "'",
                             "--batch", "50", "--until-empty"});
    const CliRun drain = run_rowpump(args);
    EXPECT_EQ(drain.exit_code, 0) << drain.describe();
    std::map<std::string, int> runs;
    for (const std::string& attempt : file_lines(record)) ++runs[attempt];
    std::remove(record.c_str());
    return runs;
}

}  // namespace rowpump::test
