// A Redis Cluster over TLS (rediss-cluster://, ROWPUMP_REDIS_TLS_CLUSTER_URL: the three TLS-only masters of
// scripts/services/redis_tls_cluster.sh): a backfill and a consumer through it, verified node by node; a
// CA that did not sign the nodes' certificates ends the run with exit 2 and one line.
#include <cstdlib>
#include <map>

#include "cluster/cluster_fixture.hpp"

namespace rowpump::test {
namespace {

constexpr int rows = 600;

const char* const start_tls_hint =
    "ROWPUMP_REDIS_TLS_CLUSTER_URL is not set: these tests need the local TLS Redis Cluster. Start it and export "
    "its address with:  bash scripts/services.sh start-redis-tls-cluster && eval \"$(bash scripts/services.sh env)\"";

class ClusterTlsTest : public ClusterTest {
protected:
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"tls_cluster", "(id INT PRIMARY KEY, note VARCHAR(20) NOT NULL)",
                           "INSERT INTO {t} SELECT seq, CONCAT('row ', seq) FROM seq_1_to_" + std::to_string(rows)};
    }
    std::string cluster_url() const override {
        const char* url = std::getenv("ROWPUMP_REDIS_TLS_CLUSTER_URL");
        const char* certs = std::getenv("ROWPUMP_REDIS_TLS_CLUSTER_CERTS");
        if (url == nullptr || *url == '\0' || certs == nullptr || *certs == '\0') return "";
        return std::string(url) + "?ssl-ca=" + certs + "/ca.pem";
    }
    const char* start_hint() const override { return start_tls_hint; }

    static std::string certs() { return std::getenv("ROWPUMP_REDIS_TLS_CLUSTER_CERTS"); }
};

TEST_F(ClusterTlsTest, BackfillAndConsumerGoThroughTls) {
    const CliRun backfill = run_rowpump({"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", url_,
                                         "--queue", queue_, "--workers", "2", "--page-size", "100"});
    ASSERT_EQ(backfill.exit_code, 0) << backfill.describe();
    std::vector<std::string> payloads;
    for (const auto& task : command({"LRANGE", queue_, "0", "-1"}).elements) payloads.push_back(task.text);
    std::map<int, int> written;
    count_ids(payloads, written);
    expect_every_row(written, rows);
    // The map the client read over TLS names the nodes' TLS ports: the owner is one of the three masters.
    const RedisOptions owner = client_->owner_options(slot_);
    EXPECT_TRUE(owner.tls);
    EXPECT_GE(owner.port, 6511u);
    EXPECT_LE(owner.port, 6513u);

    const std::string handled = temp_file("handled");
    const CliRun consume = run_rowpump({"queue", "consume", "--source", url_, "--queue", queue_, "--until-empty",
                                        "--consumer", "tls", "--pipe", recording_handler(handled)});
    ASSERT_EQ(consume.exit_code, 0) << consume.describe();
    std::map<int, int> seen;
    count_ids(lines(slurp(handled)), seen);
    std::remove(handled.c_str());
    expect_every_row(seen, rows);
    EXPECT_EQ(command({"LLEN", queue_}).integer, 0);
}

TEST_F(ClusterTlsTest, AWrongCaIsRefusedInOneLine) {
    // The client certificate is no CA: the nodes' certificates do not chain to it.
    const std::string wrong = std::string(std::getenv("ROWPUMP_REDIS_TLS_CLUSTER_URL")) + "?ssl-ca=" + certs() +
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
