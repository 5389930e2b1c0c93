// The Sentinel setup of `scripts/services.sh start` (a master, its replica, three sentinels that fail over
// within seconds): --redis-wait makes each page wait for its replicas, and a page they cannot all have is a
// clear failure (a retry with --job-id, until the retry budget); then the master is SIGKILLed in the middle
// of a --job-id backfill through redis-sentinel://, the sentinels promote the replica, and the run goes on
// there (or resumes when run again) with every row in the queue exactly once, which a consumer given the
// same URL then finds on the new master. Afterwards the killed server is started again, and the sentinels
// make it the new master's replica, so the setup is whole for the next run.
// One test: the two parts must not run at once (ctest -j), as both use the one master.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>

#include <chrono>
#include <string>
#include <thread>

#include "integration/prepared_fixture.hpp"
#include "integration/redis_transport_fixture.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

// "field:value" of INFO's text.
std::string info_field(const std::string& info, const std::string& field) {
    const auto at = info.find(field + ":");
    if (at == std::string::npos) return "";
    const auto end = info.find_first_of("\r\n", at);
    return info.substr(at + field.size() + 1, end - at - field.size() - 1);
}

// Starts `redis-server CONFIG` (which daemonizes) with no descriptor above stderr: a server that kept the
// ones this test inherited (the build lock ctest runs under, a pipe read until EOF) would hold them for as
// long as it runs. True when it started.
bool start_redis_server(const std::string& config) {
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
        ::close_range(3, UINT_MAX, 0);
        const int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            ::dup2(null, STDIN_FILENO);
            ::dup2(null, STDOUT_FILENO);
        }
        ::execlp("redis-server", "redis-server", config.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class SentinelTest : public Prepared<RedisTransportTest> {
protected:
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"sentinel", "(id BIGINT PRIMARY KEY, v VARCHAR(20))",
                           "INSERT INTO {t} SELECT seq, CONCAT('v', seq) FROM seq_1_to_300"};
    }

    void prepare() override {
        url_ = env_or_fail("ROWPUMP_REDIS_SENTINEL_URL");
        ASSERT_FALSE(url_.empty());
        cleanup_url_ = url_;
    }

    // The master's replicas are in step (after a restart, one syncs first): WAIT 1 answers 1.
    void wait_for_a_synced_replica() {
        ASSERT_TRUE(wait_until(
            [&] {
                try {
                    redis::Connection master(RedisOptions::from_url(url_));
                    master.command({"SET", queue_ + ":probe", "1"});
                    return master.blocking_command({"WAIT", "1", "500"}, 500ms).integer >= 1;
                } catch (const Error&) {
                    return false;
                }
            },
            30s))
            << "the master of " << url_ << " has no replica in step: is the Sentinel setup whole? "
            << "bash scripts/services.sh start";
    }

    std::string url_;
};

TEST_F(SentinelTest, RedisWaitThenMasterKilledMidJobEveryRowOnce) {
    wait_for_a_synced_replica();
    // --redis-wait 1: each page is on the replica before the next; every row arrives.
    CliRun run = backfill(url_, {"--redis-wait", "1:2000"});
    ASSERT_EQ(run.exit_code, 0) << run.describe();
    expect_every_row_once(queued_ids(url_));
    redis::Connection(RedisOptions::from_url(url_)).command({"DEL", queue_});
    // Two replicas asked for, one there: without a job id the first page fails the run, with one line.
    run = backfill(url_, {"--redis-wait", "2:100"});
    EXPECT_EQ(run.exit_code, 1) << run.describe();
    EXPECT_NE(lines(run.err).back().find("reached 1 of the 2 replicas --redis-wait asks for within 100 ms"),
              std::string::npos)
        << run.describe();
    EXPECT_NE(run.err.find("give --job-id"), std::string::npos) << run.describe();
    // With a job id the page is waited for again until the retry budget is spent.
    run = backfill(url_, {"--redis-wait", "2:100", "--job-id", job_id_, "--retry-budget", "1"});
    EXPECT_EQ(run.exit_code, 1) << run.describe();
    EXPECT_NE(run.err.find("--retry-budget"), std::string::npos) << run.describe();
    EXPECT_NE(run.err.find("of the 2 replicas"), std::string::npos) << run.describe();
    redis::Connection cleanup(RedisOptions::from_url(url_));
    cleanup.command({"DEL", queue_});
    delete_keys(cleanup, "rowpump:job:" + job_id_ + ":*");

    // The failover: a slow job (100 rows/s), the master killed once a third of the rows are in.
    CliProcess job({"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", url_, "--queue", queue_,
                    "--page-size", "10", "--workers", "2", "--rate", "100", "--job-id", job_id_,
                    // Client ids on the new master are another count: a lease held under an old one may look
                    // alive there, and waits out its lease.
                    "--lease-timeout", "5"});
    ASSERT_TRUE(wait_until([&] { return queued_ids(url_).size() >= 100; }, 20s)) << job.describe();
    std::string info = redis::Connection(RedisOptions::from_url(url_)).command({"INFO", "server"}).text;
    const pid_t master_pid = static_cast<pid_t>(std::stol(info_field(info, "process_id")));
    const std::string master_config = info_field(info, "config_file");
    ASSERT_FALSE(master_config.empty()) << info;
    ASSERT_EQ(::kill(master_pid, SIGKILL), 0);
    const auto ended = job.wait_for(90s);
    ASSERT_TRUE(ended.has_value()) << "the job did not end within 90 s of the kill: " << job.describe();
    if (*ended != 0) {
        // The retry budget ran out before the sentinels had a master: resuming finishes the job.
        const CliRun resumed = backfill(url_, {"--job-id", job_id_, "--lease-timeout", "5"});
        ASSERT_EQ(resumed.exit_code, 0) << job.describe() << resumed.describe();
    }
    expect_every_row_once(queued_ids(url_));
    // A consumer given the same URL asks the sentinels too, and finds the queue on the new master.
    expect_every_row_once(consume(url_));

    // The killed server comes back as the new master's replica. The sentinels would tell it so once they see
    // it again, which takes up to their 10 s INFO period; the test tells it at once what they would.
    ASSERT_TRUE(start_redis_server(master_config)) << master_config;
    const std::string new_master_port =
        info_field(redis::Connection(RedisOptions::from_url(url_)).command({"INFO", "server"}).text, "tcp_port");
    const std::string old_master = "redis://127.0.0.1:" + info_field(info, "tcp_port") + "/0";
    ASSERT_TRUE(wait_until(
        [&] {
            try {
                redis::Connection(RedisOptions::from_url(old_master)).command({"REPLICAOF", "127.0.0.1", new_master_port});
                return true;
            } catch (const Error&) {
                return false;  // not listening yet
            }
        },
        10s))
        << old_master << " did not come back";
    wait_for_a_synced_replica();
}

}  // namespace
}  // namespace rowpump::test
