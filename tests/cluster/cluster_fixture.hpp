#pragma once
// Tests against the local Redis Cluster that scripts/services.sh starts (ROWPUMP_REDIS_CLUSTER_URL: three
// masters, three replicas) and the local MariaDB. Each test's queue is {rp_test_<test>_<pid>}: its own hash
// tag, so its own slot; the fixture deletes the keys of that slot it made. The tests that move slots or
// fail masters over share one ctest resource lock (tests/CMakeLists.txt), so no two change the cluster at
// once; they find masters and replicas in the cluster's own answers, as it is now.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_fixture.hpp"
#include "redis/cluster_client.hpp"
#include "redis/cluster_slot.hpp"

namespace rowpump::test {

inline const char* const start_cluster_hint =
    "ROWPUMP_REDIS_CLUSTER_URL is not set: the cluster tests need the local Redis Cluster. Start it and export "
    "its address with:  bash scripts/services.sh start && eval \"$(bash scripts/services.sh env)\"";

// A table of `rows` rows: id, prio (id % 3: 2 is high, 1 mid, 0 low), due (every 4th row an hour from now,
// or an hour ago with `past_due`, else NULL).
inline SourceTable cluster_source_table(int rows, bool past_due = false) {
    return {"cluster", "(id INT PRIMARY KEY, prio INT NOT NULL, due DATETIME NULL)",
            "INSERT INTO {t} SELECT seq, seq % 3, IF(seq % 4 = 0, NOW() " + std::string(past_due ? "-" : "+") +
                " INTERVAL 1 HOUR, NULL) FROM seq_1_to_" + std::to_string(rows)};
}

class ClusterTest : public MySqlTest {
protected:
    // The cluster the test runs on: the plain one, or (overridden) the TLS one; empty when not started.
    virtual std::string cluster_url() const {
        const char* url = std::getenv("ROWPUMP_REDIS_CLUSTER_URL");
        return url == nullptr ? "" : url;
    }
    virtual const char* start_hint() const { return start_cluster_hint; }

    void SetUp() override {
        MySqlTest::SetUp();
        if (HasFatalFailure()) return;
        url_ = cluster_url();
        if (url_.empty()) FAIL() << start_hint();
        try {
            client_.emplace(redis::ClusterOptions::from_url(url_));
        } catch (const Error& error) {
            FAIL() << "cannot reach the local cluster at " << url_ << " (" << error.what() << "): " << start_hint();
        }
        tag_ = "rp_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
               std::to_string(::getpid());
        queue_ = "{" + tag_ + "}";
        slot_ = redis::key_slot(tag_);
        delete_keys();
    }
    void TearDown() override {
        if (client_) delete_keys();
        MySqlTest::TearDown();
    }

    redis::Reply command(std::initializer_list<std::string_view> argv) {
        return client_->retrying([&] { return client_->command(slot_, argv); });
    }
    std::vector<std::string> members(const std::string& key, bool sorted_set = false) {
        std::vector<std::string> out;
        const auto reply = sorted_set ? command({"ZRANGE", key, "0", "-1"}) : command({"LRANGE", key, "0", "-1"});
        for (const auto& element : reply.elements) out.push_back(element.text);
        return out;
    }
    long long length(const std::string& key) { return command({"LLEN", key}).integer; }

    // `queue SUBCOMMAND` on the test's queue, named by queue_options() (--queue, and its priority lists or
    // shards), with `extra`.
    virtual std::vector<std::string> queue_options() const { return {"--queue", queue_}; }
    std::vector<std::string> queue_args(const std::string& subcommand, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> args{"queue", subcommand, "--source", url_};
        const auto options = queue_options();
        args.insert(args.end(), options.begin(), options.end());
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }
    // The count `state` of `queue stats`: "  ready      225".
    long long stat(const std::string& state) {
        const CliRun run = run_rowpump(queue_args("stats"));
        EXPECT_EQ(run.exit_code, 0) << run.describe();
        std::smatch match;
        if (!std::regex_search(run.out, match, std::regex("\\n  " + state + " +(\\d+)"))) {
            ADD_FAILURE() << "no " << state << " in " << run.describe();
            return -1;
        }
        return std::stoll(match[1]);
    }
    // After a backfill of cluster_source_table(rows, true): every 4th row waits delayed, and `queue promote`
    // makes it ready.
    void expect_promote_readies_the_due_rows(int rows) {
        EXPECT_EQ(stat("ready"), rows - rows / 4);
        EXPECT_EQ(stat("delayed"), rows / 4);
        const CliRun promote = run_rowpump(queue_args("promote"));
        ASSERT_EQ(promote.exit_code, 0) << promote.describe();
        EXPECT_EQ(stat("ready"), rows);
        EXPECT_EQ(stat("delayed"), 0);
    }

    // A `--pipe` handler (docs/consumers.md) that appends each task line it is given to `file` and answers
    // `ok`, or `fail` for the row `failing_id` (0: none). One shell a worker, with only builtins in its loop: a shell
    // and a `cat` a task (`--exec`) made these drains cost several seconds of CPU for what they test, which is
    // the claims on the cluster, not the handler.
    static std::string recording_handler(const std::string& file, int failing_id = 0) {
        return "while IFS= read -r task; do case \"$task\" in *'\"id\":" + std::to_string(failing_id) +
               ",'*) echo fail;; *) printf '%s\\n' \"$task\" >> '" + file + "'; echo ok;; esac; done";
    }
    // How often each row id appears in `payloads` (tagged delayed members included).
    static void count_ids(const std::vector<std::string>& payloads, std::map<int, int>& seen) {
        static const std::regex id(R"("id":(\d+))");
        for (const std::string& payload : payloads) {
            std::smatch match;
            if (std::regex_search(payload, match, id)) ++seen[std::stoi(match[1])];
            else ADD_FAILURE() << "a payload without an id: " << payload;
        }
    }
    // Fails unless every id 1..rows appears exactly once (or, with at_least_once, at least once).
    static void expect_every_row(const std::map<int, int>& seen, int rows, bool at_least_once = false) {
        int missing = 0, repeated = 0;
        for (int id = 1; id <= rows; ++id) {
            const auto found = seen.find(id);
            if (found == seen.end()) ++missing;
            else if (found->second > 1) ++repeated;
        }
        EXPECT_EQ(missing, 0) << "rows missing of " << rows;
        if (!at_least_once) {
            EXPECT_EQ(repeated, 0) << "rows written more than once";
        }
        EXPECT_EQ(static_cast<int>(seen.size()), rows) << "ids outside 1.." << rows;
    }

    // The node's address ("127.0.0.1:6502") that owns the test's slot now, from the slot map.
    // The master that owns the test's slot, from a fresh slot map. A map read while the nodes still settle a
    // failover (an earlier test's, or this one's) may name no master for the slot: that is transient, and
    // read again within the retry budget, as the product's own commands do.
    std::string owner_address() {
        const RedisOptions owner = client_->retrying([&] {
            client_->refresh();
            return client_->owner_options(slot_);
        });
        return owner.host + ":" + std::to_string(owner.port);
    }

    // A node of CLUSTER NODES: its id, address, whether it is a master, and its master's id (replicas).
    struct NodeInfo {
        std::string id, host, master_id;
        unsigned port = 0;
        bool master = false;
        std::string address() const { return host + ":" + std::to_string(port); }
    };
    std::vector<NodeInfo> cluster_nodes() {
        std::vector<NodeInfo> nodes;
        std::istringstream text(command({"CLUSTER", "NODES"}).text);
        for (std::string line; std::getline(text, line);) {
            std::istringstream fields(line);
            NodeInfo node;
            std::string address, flags;
            fields >> node.id >> address >> flags >> node.master_id;
            if (flags.find("fail") != std::string::npos || flags.find("noaddr") != std::string::npos) continue;
            address = address.substr(0, address.find('@'));
            node.host = address.substr(0, address.rfind(':'));
            node.port = static_cast<unsigned>(std::stoul(address.substr(address.rfind(':') + 1)));
            node.master = flags.find("master") != std::string::npos;
            nodes.push_back(node);
        }
        return nodes;
    }
    NodeInfo node_at(const std::string& address) {
        for (const NodeInfo& node : cluster_nodes())
            if (node.address() == address) return node;
        ADD_FAILURE() << "no node at " << address << " in CLUSTER NODES";
        return {};
    }
    // A connection of the test's own to one node.
    redis::Connection connect(const NodeInfo& node) { return redis::Connection(client_->options().node(node.host, node.port)); }
    // A master other than `node`.
    NodeInfo other_master(const NodeInfo& node) {
        for (const NodeInfo& other : cluster_nodes())
            if (other.master && other.id != node.id) return other;
        ADD_FAILURE() << "no master besides " << node.address();
        return {};
    }

    // The first half of a slot migration by hand, as redis-cli --cluster reshard makes it: the test's slot
    // is IMPORTING on `target` and MIGRATING on `source`, and every key of it is MIGRATEd over. From now on
    // the source answers ASK for the slot's keys, until finish_migration().
    void migrate_keys(const NodeInfo& source, const NodeInfo& target) {
        redis::Connection from = connect(source);
        redis::Connection to = connect(target);
        const std::string slot = std::to_string(slot_);
        to.command({"CLUSTER", "SETSLOT", slot, "IMPORTING", source.id});
        from.command({"CLUSTER", "SETSLOT", slot, "MIGRATING", target.id});
        // While the slot migrates, a key missing on the source is answered ASK: no key is created there again.
        while (from.command({"CLUSTER", "COUNTKEYSINSLOT", slot}).integer > 0) {
            const auto keys = from.command({"CLUSTER", "GETKEYSINSLOT", slot, "100"});
            std::vector<std::string_view> migrate{"MIGRATE", target.host, std::to_string(target.port), "", "0", "5000", "KEYS"};
            for (const auto& key : keys.elements) migrate.push_back(key.text);
            from.command(migrate);
        }
    }
    // The second half: every master hands the slot to `target`, whose clients are answered MOVED there.
    void finish_migration(const NodeInfo& target) {
        for (const NodeInfo& node : cluster_nodes())
            if (node.master) connect(node).command({"CLUSTER", "SETSLOT", std::to_string(slot_), "NODE", target.id});
        EXPECT_TRUE(wait_until([&] { return owner_address() == target.address(); }, std::chrono::seconds(10)));
    }

    std::vector<std::string> backfill_args(const std::vector<std::string>& extra) {
        std::vector<std::string> args{"backfill", "--mysql", mysql_url_, "--table", table_, "--sink", url_,
                                      "--queue", queue_};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    std::string url_;
    std::optional<redis::ClusterClient> client_;
    std::string tag_;
    std::string queue_;
    std::uint16_t slot_ = 0;

private:
    // Every key of the slot that carries the test's tag (the job's state keys too).
    void delete_keys() {
        try {
            const auto keys = command({"CLUSTER", "GETKEYSINSLOT", std::to_string(slot_), "100000"});
            for (const auto& key : keys.elements)
                if (key.text.find("{" + tag_ + "}") != std::string::npos) command({"DEL", key.text});
        } catch (const Error& error) {
            ADD_FAILURE() << "cannot delete the test's keys: " << error.what();
        }
    }
};

// A cluster test that reads cluster_source_table(Rows): the backfill, failover and migration tests.
template <int Rows>
class ClusterTableTest : public ClusterTest {
protected:
    std::optional<SourceTable> source_table() const override { return cluster_source_table(Rows); }
};

}  // namespace rowpump::test
