#pragma once
// A CLI test of a job with a job id, run once per sink: a Redis list (its job state in Redis) or a MySQL
// queue table (its job state in rowpump_jobs and rowpump_job_ranges). It names the job and its queue
// after the suite and the process (rp_test_<suite>_<sink>_<pid>; rp_test:<suite>.q:<pid> or
// rp_test_<suite>_q_<pid>), reads back what the job's store holds, and deletes queues and job state.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "integration/redis_fixture.hpp"

namespace rowpump::test {

enum class Sink { redis, mysql };

inline void PrintTo(Sink sink, std::ostream* out) { *out << (sink == Sink::redis ? "redis list" : "mysql queue table"); }

inline std::string sink_name(const ::testing::TestParamInfo<Sink>& info) {
    return info.param == Sink::redis ? "RedisList" : "MySqlQueueTable";
}

// What a job's store holds: both stores keep one counter, status and owner per range.
struct StoredJob {
    bool exists = false;
    std::size_t ranges = 0;  // as the job's record counts them (each split adds one)
    std::size_t ranges_done = 0;
    std::uint64_t rows_written = 0;
    std::size_t leased = 0;  // pending ranges that an owner holds right now
};

class JobSinkTest : public MySqlTest {
protected:
    JobSinkTest(Sink sink, std::string suite) : sink_(sink), suite_(std::move(suite)) {}

    // Connects the local Redis, names the job and the queue, and cleans up what an earlier run may have left.
    void SetUp() override {
        MySqlTest::SetUp();
        if (HasFatalFailure()) return;
        connect_local_redis(redis_url_, redis_);
        if (HasFatalFailure()) return;
        const std::string pid = std::to_string(::getpid());
        job_id_ = "rp_test_" + suite_ + (sink_ == Sink::redis ? "_redis_" : "_mysql_") + pid;
        queue_ = queue_name("q");
        clean_up();
    }
    void TearDown() override {
        if (redis_) clean_up();
        MySqlTest::TearDown();
    }

    // Deletes the queue and the job's state.
    virtual void clean_up() {
        delete_queue(queue_);
        delete_job(job_id_);
    }

    // A queue of this test's sink, named after `base`.
    std::string queue_name(const std::string& base) const {
        const std::string pid = std::to_string(::getpid());
        return sink_ == Sink::redis ? "rp_test:" + suite_ + "." + base + ":" + pid
                                    : "rp_test_" + suite_ + "_" + base + "_" + pid;
    }

    std::string sink_uri() const { return sink_ == Sink::redis ? redis_url_ : mysql_url_; }

    bool mysql_table_exists(const std::string& name) {
        return !tables()
                    .rows("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
                          {name})
                    .empty();
    }

    // The ids of a source table, in id order, as text.
    std::vector<std::string> source_ids(const std::string& table) {
        std::vector<std::string> ids;
        for (auto& row : tables().rows("SELECT CAST(id AS CHAR) FROM " + mysql::quote_identifier(table) + " ORDER BY id"))
            ids.push_back(*row.at(0));
        return ids;
    }

    std::vector<std::string> queue_payloads_of(const std::string& queue) {
        if (sink_ == Sink::redis) return list_items(*redis_, queue);
        return queue_payloads(tables().connection(), queue);
    }
    std::vector<std::string> queued_ids(const std::string& queue) { return payload_keys(queue_payloads_of(queue), {"id"}); }

    StoredJob stored_job() { return stored_job(job_id_); }
    StoredJob stored_job(const std::string& job_id) {
        StoredJob job;
        if (sink_ == Sink::redis) {
            const auto ranges = redis_->command({"HGET", "rowpump:job:" + job_id + ":meta", "ranges"});
            if (ranges.is_nil()) return job;
            job.exists = true;
            job.ranges = std::stoul(ranges.text);
            for (std::size_t i = 0; i < job.ranges; ++i) {
                const auto fields = redis_->command({"HMGET", "rowpump:job:" + job_id + ":range:" + std::to_string(i),
                                                     "status", "rows_written", "owner"});
                if (fields.elements.at(0).text == "done") ++job.ranges_done;
                if (fields.elements.at(0).text == "pending" && fields.elements.at(2).text != "0") ++job.leased;
                if (!fields.elements.at(1).is_nil()) job.rows_written += std::stoull(fields.elements.at(1).text);
            }
            return job;
        }
        if (!mysql_table_exists("rowpump_jobs") || !mysql_table_exists("rowpump_job_ranges")) return job;
        const auto counted = tables().rows("SELECT CAST(ranges AS CHAR) FROM rowpump_jobs WHERE job_id = ?", {job_id});
        if (counted.empty()) return job;
        job.exists = true;
        job.ranges = std::stoul(*counted.at(0).at(0));
        const auto totals = tables().rows(
            "SELECT CAST(COALESCE(SUM(status = 'done'), 0) AS CHAR), CAST(COALESCE(SUM(rows_written), 0) AS CHAR), "
            "CAST(COALESCE(SUM(status = 'pending' AND owner <> 0), 0) AS CHAR) FROM rowpump_job_ranges WHERE job_id = ?",
            {job_id});
        job.ranges_done = std::stoul(*totals.at(0).at(0));
        job.rows_written = std::stoull(*totals.at(0).at(1));
        job.leased = std::stoul(*totals.at(0).at(2));
        return job;
    }

    // Every id of `table` is in `queue` exactly once, and the job's checkpoints say so too. Returns what the
    // store holds, for the caller's own checks.
    StoredJob expect_exactly_once(const std::string& table, const std::string& queue, const std::string& job_id) {
        auto expected = source_ids(table);
        auto actual = queued_ids(queue);
        EXPECT_EQ(multiset_difference(actual, expected), "");
        std::sort(expected.begin(), expected.end());
        std::sort(actual.begin(), actual.end());
        EXPECT_TRUE(actual == expected) << actual.size() << " ids in the queue, " << expected.size() << " in the table";
        const auto job = stored_job(job_id);
        EXPECT_TRUE(job.exists);
        EXPECT_EQ(job.ranges_done, job.ranges) << "every range of the job should be done";
        EXPECT_EQ(job.rows_written, expected.size()) << "the ranges' rows_written counters should add up to the table";
        return job;
    }

    // The queue (a Redis list and its sub-keys, or a queue table) and the job's state in both stores.
    void delete_queue(const std::string& queue) {
        if (sink_ == Sink::redis) {
            redis_->command({"DEL", queue});
            delete_keys(*redis_, queue + ":*");
        } else {
            tables().connection().execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(queue));
        }
    }
    void delete_job(const std::string& job_id) {
        delete_keys(*redis_, "rowpump:job:" + job_id + ":*");
        if (mysql_table_exists("rowpump_job_ranges"))
            tables().connection().execute("DELETE FROM rowpump_job_ranges WHERE job_id = ?", {job_id});
        if (mysql_table_exists("rowpump_jobs"))
            tables().connection().execute("DELETE FROM rowpump_jobs WHERE job_id = ?", {job_id});
    }

    Sink sink_;
    std::string suite_;
    std::string redis_url_;
    std::optional<redis::Connection> redis_;
    std::string job_id_;
    std::string queue_;
};

}  // namespace rowpump::test
