// `rowpump queue consume --pipe CMD`: persistent handler processes, as a user runs them. The examples'
// PHP and Python handlers drain a queue; a handler that crashes, babbles, hangs or never starts loses no
// task; SIGTERM drains and SIGHUP restarts the handlers with nothing lost; --exec-batch hands N tasks to
// one process. tests/consumers/recording_handler.py records every task it answers ok.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/python_handlers.hpp"
#include "integration/queue_contents.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

std::string source_file(const std::string& relative) { return std::string(ROWPUMP_SOURCE_DIR) + "/" + relative; }

const std::string recording_handler = recording_handler_command();

class PipeHandlerTest : public MySqlRedisTest {
protected:
    void TearDown() override {
        std::remove(record_.c_str());
        MySqlRedisTest::TearDown();
    }

    // Tasks {"n":1} ... {"n":count} in the test's Redis list, plus `extra` payloads.
    void push_tasks(int count, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> argv{"RPUSH", queue_};
        for (int n = 1; n <= count; ++n) argv.push_back("{\"n\":" + std::to_string(n) + "}");
        argv.insert(argv.end(), extra.begin(), extra.end());
        std::vector<std::string_view> views(argv.begin(), argv.end());
        redis_->command(views);
    }

    std::vector<std::string> consume_args(const std::string& handler, std::vector<std::string> more = {}) const {
        std::vector<std::string> args{"queue", "consume", "--source", redis_url_, "--queue", queue_, "--pipe", handler};
        args.insert(args.end(), more.begin(), more.end());
        return args;
    }

    EnvOverride recording(EnvOverride env = {}) const {
        env["RECORD"] = record_;
        return env;
    }

    // Payload -> how many times the handler answered ok for it; the pids that answered.
    std::map<std::string, int> recorded(std::set<std::string>* pids = nullptr) const {
        std::map<std::string, int> runs;
        for (const std::string& line : file_lines(record_)) {
            const std::size_t space = line.find(' ');
            ++runs[line.substr(space + 1)];
            if (pids) pids->insert(line.substr(0, space));
        }
        return runs;
    }

    // Every task {"n":1..count} answered ok at least once; returns how many were answered more than once.
    int expect_every_task_recorded(int count) const {
        const auto runs = recorded();
        int repeated = 0;
        for (int n = 1; n <= count; ++n) {
            const auto found = runs.find("{\"n\":" + std::to_string(n) + "}");
            if (found == runs.end()) {
                ADD_FAILURE() << "task " << n << " was never handled";
                return repeated;
            }
            repeated += found->second > 1;
        }
        return repeated;
    }

    long long list_length(const std::string& key) { return redis_->command({"LLEN", key}).integer; }

    std::string record_ = fresh_temp_path("pipe_record");
};

TEST_F(PipeHandlerTest, TheExamplesPhpAndPythonHandlersDrainTheQueue) {
    for (const std::string& handler : {"php " + source_file("examples/handlers/handler.php"),
                                      python_command("examples/handlers/handler.py")}) {
        SCOPED_TRACE(handler);
        // A null payload is what the examples give up on (dead): proof they read each task's JSON.
        push_tasks(3000, {"null"});
        const CliRun run = run_rowpump(consume_args(handler, {"--concurrency", "2", "--until-empty"}));
        EXPECT_EQ(run.exit_code, 4) << "exit 4: a task went dead\n" << run.describe();
        EXPECT_NE(run.err.find("3000 done, 0 failed and retried later, 1 dead"), std::string::npos) << run.describe();
        EXPECT_EQ(list_length(queue_), 0);
        EXPECT_EQ(list_items(*redis_, queue_ + ":dead").size(), 1u);
        clear_redis();
    }
}

TEST_F(PipeHandlerTest, AHandlerThatCrashesEvery100TasksLosesNone) {
    push_tasks(1000);
    const CliRun run = run_rowpump(consume_args(recording_handler, {"--concurrency", "2", "--inflight", "16",
                                                                     "--backoff", "0.01", "--until-empty"}),
                                   recording({{"CRASH_EVERY", "100"}}));
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    expect_every_task_recorded(1000);
    EXPECT_NE(run.err.find("ended (exit status 3)"), std::string::npos) << run.describe();
    EXPECT_NE(run.err.find("1000 done"), std::string::npos) << run.describe();
    EXPECT_EQ(run.err.find(" 0 failed and retried later"), std::string::npos)
        << "the tasks the crashed handlers held were failed and retried\n" << run.describe();
}

TEST_F(PipeHandlerTest, ABabblingOrHangingHandlerIsRestartedAndItsTasksComeBack) {
    push_tasks(50, {R"({"do":"babble"})", R"({"do":"hang"})", R"({"do":"crash"})"});
    // One task in flight: a fault fails only the task that caused it (with more, the tasks sent beside it
    // fail too, and "hang" could fail with "babble" before it ever hangs).
    const CliRun run = run_rowpump(consume_args(recording_handler, {"--task-timeout", "0.5", "--inflight", "1",
                                                                     "--backoff", "0.01", "--until-empty"}),
                                   recording());
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    expect_every_task_recorded(50);
    for (const char* payload : {R"({"do":"babble"})", R"({"do":"hang"})", R"({"do":"crash"})"})
        EXPECT_EQ(recorded()[payload], 1) << payload << " was not run again after its first attempt's fault";
    EXPECT_NE(run.err.find("wrote 'maybe later', which is not a result"), std::string::npos) << run.describe();
    EXPECT_NE(run.err.find("took longer than the task timeout (500 ms)"), std::string::npos) << run.describe();
    EXPECT_NE(run.err.find("53 done"), std::string::npos) << run.describe();
}

TEST_F(PipeHandlerTest, AHandlerThatNeverAnswersStopsTheRunWithOneLineAndLosesNothing) {
    push_tasks(100);
    const CliRun run = run_rowpump(consume_args("false", {"--backoff", "0.01", "--until-empty"}));
    EXPECT_EQ(run.exit_code, 1) << run.describe();
    EXPECT_NE(run.err.find("the --pipe handler false ended (exit status 1) before it answered a task, 3 times in a "
                           "row: check that it runs by hand"),
              std::string::npos)
        << run.describe();
    const CliRun missing = run_rowpump(consume_args("no-such-handler-program --x", {"--until-empty"}));
    EXPECT_EQ(missing.exit_code, 1) << missing.describe();
    EXPECT_NE(missing.err.find("cannot run the consumer command: no-such-handler-program: No such file or directory"),
              std::string::npos)
        << missing.describe();
    // Every task is still there for a handler that works (those the first run held come back after the
    // heartbeat timeout of the consumer that stopped: 1 s here).
    const CliRun drain = run_rowpump(consume_args(recording_handler, {"--heartbeat-timeout", "1", "--backoff", "0.01",
                                                                       "--until-empty"}),
                                     recording());
    EXPECT_EQ(drain.exit_code, 0) << drain.describe();
    expect_every_task_recorded(100);
}

TEST_F(PipeHandlerTest, SigtermLetsTheTasksInHandFinishAndLeavesTheRestInTheQueue) {
    push_tasks(2000);
    CliProcess consumer(consume_args(recording_handler, {"--concurrency", "2", "--inflight", "8"}),
                        recording({{"TASK_SECONDS", "0.002"}}));
    ASSERT_TRUE(wait_until([&] { return file_lines(record_).size() >= 100; }, 20s)) << consumer.describe();
    consumer.signal(SIGTERM);
    ASSERT_EQ(consumer.wait_for(20s), 0) << consumer.describe();
    const auto runs = recorded();
    for (const auto& [payload, times] : runs) EXPECT_EQ(times, 1) << payload;
    EXPECT_EQ(static_cast<long long>(runs.size()) + list_length(queue_), 2000) << consumer.describe();
    EXPECT_NE(consumer.err().find(std::to_string(runs.size()) + " done, 0 failed"), std::string::npos)
        << consumer.describe();
    EXPECT_EQ(redis_->command({"KEYS", queue_ + ":processing:*"}).elements.size(), 0u) << "a task was left claimed";
}

TEST_F(PipeHandlerTest, SighupRestartsEveryHandlerAndLosesNoTask) {
    push_tasks(1500);
    CliProcess consumer(consume_args(recording_handler, {"--concurrency", "2", "--inflight", "8", "--until-empty"}),
                        recording({{"TASK_SECONDS", "0.001"}}));
    ASSERT_TRUE(wait_until([&] { return file_lines(record_).size() >= 100; }, 20s)) << consumer.describe();
    std::set<std::string> before;
    recorded(&before);
    consumer.signal(SIGHUP);
    ASSERT_EQ(consumer.wait_for(60s), 0) << consumer.describe();
    std::set<std::string> pids;
    const auto runs = recorded(&pids);
    EXPECT_EQ(expect_every_task_recorded(1500), 0) << "a task ran twice";
    EXPECT_GT(pids.size(), before.size()) << "no handler was restarted\n" << consumer.describe();
    EXPECT_NE(consumer.err().find("is restarted (reload)"), std::string::npos) << consumer.describe();
    EXPECT_EQ(runs.size(), 1500u);
}

TEST_F(PipeHandlerTest, ExecBatchRunsOneProcessPerBatchAndItsStatusCountsForAll) {
    push_tasks(100);
    const std::string batches = fresh_temp_path("exec_batches");
    const CliRun run = run_rowpump({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec",
                                    "{ echo \"$ROWPUMP_BATCH_SIZE\" >> '" + batches + "'; cat >> '" + record_ + "'; }",
                                    "--exec-batch", "10", "--until-empty"});
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    const auto lines = file_lines(record_);
    ASSERT_EQ(lines.size(), 100u) << run.describe();
    EXPECT_EQ(lines.front().rfind(R"({"id":null,"attempt":1,"queue":")", 0), 0u) << lines.front();
    EXPECT_NE(lines.front().find(R"(,"payload":{"n":)"), std::string::npos) << lines.front();
    EXPECT_EQ(file_lines(batches), std::vector<std::string>(10, "10"));
    std::remove(batches.c_str());

    push_tasks(20);
    const CliRun failing = run_rowpump({"queue", "consume", "--source", redis_url_, "--queue", queue_, "--exec",
                                        "cat > /dev/null; exit 7", "--exec-batch", "20", "--max-attempts", "1",
                                        "--until-empty"});
    EXPECT_EQ(failing.exit_code, 4) << failing.describe();
    EXPECT_NE(failing.err.find("0 done, 0 failed and retried later, 20 dead"), std::string::npos) << failing.describe();
}

TEST_F(PipeHandlerTest, TheQueueTableIsConsumedThroughAPipeToo) {
    const std::string name = "rp_test_pipe_q_" + std::to_string(::getpid());
    const std::string ddl = mysql::queue_table_ddl(name);
    const std::string table = tables().create("pipe_q", ddl.substr(ddl.find('(')));
    std::string values;
    for (int n = 1; n <= 500; ++n) values += std::string(values.empty() ? "" : ",") + "('{\"n\":" + std::to_string(n) + "}', NOW(6))";
    tables().execute(table, "INSERT INTO {t} (payload, available_at) VALUES " + values);
    const CliRun run = run_rowpump({"queue", "consume", "--source", mysql_url_, "--queue", table, "--pipe",
                                    recording_handler, "--concurrency", "2", "--until-empty"},
                                   recording({{"CRASH_EVERY", "150"}}));
    EXPECT_EQ(run.exit_code, 0) << run.describe();
    expect_every_task_recorded(500);
    EXPECT_NE(run.err.find("500 done"), std::string::npos) << run.describe();
}

TEST_F(PipeHandlerTest, TheHandlerFlagsRefuseWhatDoesNotGoTogether) {
    const auto refused = [&](std::vector<std::string> args, const std::string& line) {
        const CliRun run = run_rowpump(args);
        EXPECT_NE(run.exit_code, 0) << run.describe();
        EXPECT_NE(run.err.find(line), std::string::npos) << run.describe();
    };
    const std::vector<std::string> base{"queue", "consume", "--source", redis_url_, "--queue", queue_};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> args = base;
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    refused(base, "queue consume needs a handler: --pipe CMD");
    refused(with({"--exec", "true", "--pipe", "cat"}), "--exec excludes --pipe");
    refused(with({"--exec", "true", "--inflight", "4"}), "--inflight requires --pipe");
    refused(with({"--pipe", "cat", "--exec-batch", "4"}), "--exec-batch requires --exec");
    refused(with({"--pipe", "cat", "--batch", "4"}), "--pipe excludes --batch");
    refused(with({"--exec", "true", "--exec-batch", "4", "--batch", "2"}), "--exec-batch N claims N tasks at a time");
}

}  // namespace
}  // namespace rowpump::test
