// A Redis Cluster over TLS (rediss-cluster://, ROWPUMP_REDIS_TLS_CLUSTER_URL: the three TLS-only masters of
// scripts/services/redis_tls_cluster.sh): a backfill and a consumer through it, verified node by node; a
// CA that did not sign the nodes' certificates ends the run with exit 2 and one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <regex>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "redis/cluster_client.hpp"
#include "redis/cluster_slot.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 600;

const char* const start_hint =
    "ROWPUMP_REDIS_TLS_CLUSTER_URL is not set: these tests need the local TLS Redis Cluster. Start it and export "
    "its address with:  bash scripts/services.sh start-redis-tls-cluster && eval \"$(bash scripts/services.sh env)\"";

class ClusterTlsTest : public MySqlTest {
protected:
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"tls_cluster", "(id INT PRIMARY KEY, note VARCHAR(20) NOT NULL)",
                           "INSERT INTO {t} SELECT seq, CONCAT('row ', seq) FROM seq_1_to_" + std::to_string(rows)};
    }

    void SetUp() override {
        MySqlTest::SetUp();
        if (HasFatalFailure()) return;
        const char* url = std::getenv("ROWPUMP_REDIS_TLS_CLUSTER_URL");
        const char* certs = std::getenv("ROWPUMP_REDIS_TLS_CLUSTER_CERTS");
        if (url == nullptr || *url == '\0' || certs == nullptr || *certs == '\0') FAIL() << start_hint;
        certs_ = certs;
        url_ = std::string(url) + "?ssl-ca=" + certs_ + "/ca.pem";
        try {
            client_.emplace(redis::ClusterOptions::from_url(url_));
        } catch (const Error& error) {
            FAIL() << "cannot reach the local TLS Redis Cluster (" << error.what() << "): " << start_hint;
        }
        tag_ = "rp_test_tls_" + std::to_string(::getpid());
        queue_ = "{" + tag_ + "}";
        slot_ = redis::key_slot(tag_);
        clear();
    }
    void TearDown() override {
        if (client_) clear();
        MySqlTest::TearDown();
    }

    redis::Reply command(std::initializer_list<std::string_view> argv) {
        return client_->retrying([&] { return client_->command(slot_, argv); });
    }
    static void count_ids(const std::vector<std::string>& payloads, std::map<int, int>& seen) {
        static const std::regex id(R"("id":(\d+))");
        for (const std::string& payload : payloads) {
            std::smatch match;
            if (std::regex_search(payload, match, id)) ++seen[std::stoi(match[1])];
            else ADD_FAILURE() << "a payload without an id: " << payload;
        }
    }
    static void expect_each_once(const std::map<int, int>& seen) {
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows));
        for (const auto& [id, times] : seen) EXPECT_EQ(times, 1) << "row " << id;
        EXPECT_EQ(seen.begin()->first, 1);
        EXPECT_EQ(seen.rbegin()->first, rows);
    }

    std::string certs_, url_, tag_, queue_;
    std::uint16_t slot_ = 0;
    std::optional<redis::ClusterClient> client_;

private:
    void clear() {
        for (const char* suffix : {"", ":delayed", ":dead", ":consumers", ":attempts", ":processing:tls:0"})
            command({"DEL", queue_ + suffix});
    }
};

TEST_F(ClusterTlsTest, BackfillAndConsumerGoThroughTls) {
    const CliRun backfill = run_rowpump({"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", url_,
                                         "--queue", queue_, "--workers", "2", "--page-size", "100"});
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    std::vector<std::string> payloads;
    for (const auto& task : command({"LRANGE", queue_, "0", "-1"}).elements) payloads.push_back(task.text);
    std::map<int, int> written;
    count_ids(payloads, written);
    expect_each_once(written);
    // The map the client read over TLS names the nodes' TLS ports: the owner is one of the three masters.
    const RedisOptions owner = client_->owner_options(slot_);
    EXPECT_TRUE(owner.tls);
    EXPECT_GE(owner.port, 6511u);
    EXPECT_LE(owner.port, 6513u);

    const std::string handled = temp_file("handled");
    const CliRun consume = run_rowpump({"queue", "consume", "--source", url_, "--queue", queue_, "--until-empty",
                                        "--consumer", "tls", "--exec", "payload=$(cat); echo \"$payload\" >> " + handled});
    ASSERT_EQ(consume.exit_code, 0) << consume.describe();
    std::map<int, int> seen;
    count_ids(lines(slurp(handled)), seen);
    std::remove(handled.c_str());
    expect_each_once(seen);
    EXPECT_EQ(command({"LLEN", queue_}).integer, 0);
}

TEST_F(ClusterTlsTest, AWrongCaIsRefusedInOneLine) {
    // The client certificate is no CA: the nodes' certificates do not chain to it.
    const std::string wrong = std::string(std::getenv("ROWPUMP_REDIS_TLS_CLUSTER_URL")) + "?ssl-ca=" + certs_ +
                              "/client-cert.pem";
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", wrong, "--queue",
                                   queue_},
          std::vector<std::string>{"queue", "stats", "--source", wrong, "--queue", queue_}}) {
        const CliRun run = run_rowpump(args);
        EXPECT_EQ(run.exit_code, 2) << run.describe();
        const auto said = lines(run.err);
        ASSERT_EQ(said.size(), 1u) << run.describe();
        EXPECT_NE(said.front().find("untrusted CA"), std::string::npos) << run.describe();
    }
    EXPECT_EQ(command({"EXISTS", queue_}).integer, 0) << "a refused run wrote";
}

}  // namespace
}  // namespace rowpump::test
