#pragma once
// What the tests with real Sidekiq and Celery workers share: a connection per Redis database (the workers
// keep keys with fixed names, `schedule`, `queues`, `stat:*`, `_kombu.binding.*`, so each suite has
// databases of its own), the backfill into one of them, the workers started on the test's queue, and the
// wait for what they record. Everything a test's queue left in those databases is deleted after it.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "integration/cli_process.hpp"
#include "integration/mysql_redis_fixture.hpp"
#include "integration/worker_process.hpp"

namespace rowpump::test {

inline std::string text_of(const rapidjson::Value& value) {
    return std::string(value.GetString(), value.GetStringLength());
}

// `url` (redis://host:port/N) with database `db` instead.
inline std::string with_db(const std::string& url, int db) {
    return url.substr(0, url.rfind('/') + 1) + std::to_string(db);
}

class RealWorkerTest : public MySqlRedisTest {
protected:
    void SetUp() override {
        MySqlRedisTest::SetUp();
        if (HasFatalFailure()) return;
        record_key_ = queue_ + ":ran";
    }

    void TearDown() override {
        for (auto& [number, connection] : databases_) {
            connection.command({"DEL", queue_, "queue:" + queue_, record_key_, record_key_ + ":revoked",
                                "_kombu.binding." + queue_});
            // kombu's lists of priority steps 3, 6 and 9 (redis_queue_keys.hpp: celery_priority_list).
            for (const char* step : {"3", "6", "9"}) connection.command({"DEL", queue_ + "\x06\x16" + step});
            connection.command({"SREM", "queues", queue_});
            for (const char* set : {"schedule", "retry", "dead"})
                for (const auto& member : ours(connection, set)) connection.command({"ZREM", set, member});
            delete_keys(connection, "rowpump:job:" + job_id_ + "*");
            // Sidekiq's own counters; nothing in these databases but these tests reads them.
            if (sidekiq_databases_.contains(number)) delete_keys(connection, "stat:*");
        }
        MySqlRedisTest::TearDown();
    }

    redis::Connection& db(int number) {
        auto found = databases_.find(number);
        if (found == databases_.end())
            found = databases_.emplace(number, redis::Connection(RedisOptions::from_url(with_db(redis_url_, number)))).first;
        return found->second;
    }

    // This test's members of one of Sidekiq's sorted sets.
    std::vector<std::string> ours(redis::Connection& connection, const char* set) {
        std::vector<std::string> members;
        for (const auto& member : connection.command({"ZRANGE", set, "0", "-1"}).elements)
            if (member.text.find("\"queue\":\"" + queue_ + "\"") != std::string::npos) members.push_back(member.text);
        return members;
    }

    // `rowpump backfill` of table_ into queue_ of database `redis_db`, with `more` flags.
    CliRun backfill(int redis_db, const std::vector<std::string>& more) {
        std::vector<std::string> args{"-q", "backfill", "--mysql", mysql_url_, "--table", table_, "--sink",
                                      with_db(redis_url_, redis_db), "--queue", queue_};
        args.insert(args.end(), more.begin(), more.end());
        return run_rowpump(args);
    }

    // INSERTs one row into table_: `id`, `name`, then each of `values` bound (NULL where there is none).
    void insert_row(std::int64_t id, const std::string& name,
                    std::initializer_list<const std::optional<std::string>*> values) {
        std::vector<mysql::Param> params{id, name};
        std::string placeholders = "?, ?";
        for (const auto* value : values) {
            placeholders += *value ? ", ?" : ", NULL";
            if (*value) params.emplace_back(**value);
        }
        tables().connection().execute("INSERT INTO `" + table_ + "` VALUES (" + placeholders + ")", params);
    }

    // A real `sidekiq` on queue_ of database `redis_db`, loading `recorder` (a file of tests/workers/).
    // One thread runs jobs in the order they were written; a short poll moves scheduled jobs sooner.
    std::unique_ptr<WorkerProcess> start_sidekiq(int redis_db, const std::string& recorder, int threads,
                                                 bool short_poll) {
        const auto sidekiq = find_program("sidekiq");
        if (!sidekiq) return nullptr;
        sidekiq_databases_.insert(redis_db);
        EnvOverride env{{"REDIS_URL", with_db(redis_url_, redis_db)}, {"RP_RECORD_KEY", record_key_}};
        if (short_poll) env["RP_POLL_SECONDS"] = "0.5";
        return std::make_unique<WorkerProcess>(
            std::vector<std::string>{*sidekiq, "-r", ROWPUMP_SOURCE_DIR "/tests/workers/" + recorder, "-q", queue_,
                                     "-c", std::to_string(threads), "-t", "1"},
            env);
    }

    // A real `celery worker` (tests/workers/rowpump_test_tasks.py) on queue_ of database `redis_db`.
    std::unique_ptr<WorkerProcess> start_celery(int redis_db) {
        const auto celery = find_program("celery");
        if (!celery) return nullptr;
        return std::make_unique<WorkerProcess>(
            std::vector<std::string>{*celery, "-A", "rowpump_test_tasks", "worker", "--pool", "solo", "-Q", queue_,
                                     "--without-heartbeat", "--without-mingle", "--without-gossip", "--loglevel",
                                     "WARNING"},
            // Debian's celery script runs the first python3 on PATH; its packages are the system's.
            EnvOverride{{"PATH", "/usr/bin:" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "")},
                        {"PYTHONPATH", ROWPUMP_SOURCE_DIR "/tests/workers"},
                        {"RP_BROKER", with_db(redis_url_, redis_db)},
                        {"RP_RECORD_KEY", record_key_}});
    }

    // The JSON records in list `key` of database `redis_db`.
    std::vector<rapidjson::Document> records(int redis_db, const std::string& key) {
        std::vector<rapidjson::Document> out;
        for (const auto& item : list_items(db(redis_db), key)) {
            rapidjson::Document record;
            record.Parse(item.data(), item.size());
            EXPECT_FALSE(record.HasParseError()) << item;
            if (!record.HasParseError()) out.push_back(std::move(record));
        }
        return out;
    }

    std::size_t length(int redis_db, const std::string& key) {
        return static_cast<std::size_t>(db(redis_db).command({"LLEN", key}).integer);
    }

    // Waits until `done` holds (or `timeout`), failing if the worker stops first.
    void wait_until_done(const std::function<bool()>& done, WorkerProcess& worker,
                         std::chrono::seconds timeout = std::chrono::seconds(60)) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (!done() && std::chrono::steady_clock::now() < deadline) {
            ASSERT_TRUE(worker.running()) << "the worker stopped\n" << worker.describe();
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ASSERT_TRUE(done()) << worker.describe();
    }

    // Waits until the worker recorded `count` runs, then half a second longer, so that a job run twice
    // shows: there is no event for "no second run is coming".
    std::vector<rapidjson::Document> wait_for_runs(int redis_db, std::size_t count, WorkerProcess& worker,
                                                   std::chrono::seconds timeout = std::chrono::seconds(60)) {
        wait_until_done([&] { return length(redis_db, record_key_) >= count; }, worker, timeout);
        if (HasFatalFailure()) return {};
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        auto runs = records(redis_db, record_key_);
        EXPECT_EQ(runs.size(), count) << worker.describe();
        return runs;
    }

    std::string record_key_;
    std::map<int, redis::Connection> databases_;
    std::set<int> sidekiq_databases_;
};

}  // namespace rowpump::test
