// Progress and the summary of a run with a job id speak of the job, not of this run's leases: its real
// ranges (however often each was leased), its estimated total, and the rows that earlier runs wrote.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "integration/mysql_redis_fixture.hpp"
#include "integration/queue_contents.hpp"
#include "rowpump/job.hpp"

namespace rowpump::test {
namespace {

using namespace std::chrono_literals;

class JobSummaryTest : public MySqlRedisTest {};

TEST_F(JobSummaryTest, AnInterruptedAndResumedJobReportsItsOwnRangesAndTotals) {
    const auto table = tables().create("job_summary", "(id BIGINT PRIMARY KEY, v INT NOT NULL)");
    tables().execute(table, "INSERT INTO {t} SELECT seq, seq FROM seq_1_to_6000");
    JobSpec spec = redis_job(table);
    spec.job_id = job_id_;
    spec.partitions = 6;
    spec.workers = 2;
    spec.rate = 3000;

    const JobSummary first = run_stopped_at(spec, 1500);
    const auto queued_first = static_cast<std::uint64_t>(redis_->command({"LLEN", queue_}).integer);
    ASSERT_TRUE(first.interrupted);
    EXPECT_EQ(first.ranges.size(), 6u) << "the job's ranges, not this run's leases";
    EXPECT_EQ(first.job_rows_written, queued_first);
    EXPECT_NEAR(static_cast<double>(first.estimated_rows), 6000.0, 600.0) << "the job's estimate, not its rows";

    spec.resume = true;
    std::mutex mutex;
    std::vector<JobProgress> updates;
    JobControl second_control;
    second_control.on_progress = [&](const JobProgress& progress) {
        std::lock_guard lock(mutex);
        updates.push_back(progress);
    };
    const JobSummary second = run_job(spec, second_control);
    EXPECT_FALSE(second.interrupted);
    EXPECT_EQ(second.rows_done_before, queued_first);
    EXPECT_EQ(second.rows_written, 6000u - queued_first) << "rows this run wrote";
    EXPECT_EQ(second.job_rows_written, 6000u);
    ASSERT_EQ(second.ranges.size(), 6u) << "the job's ranges, not this run's leases";
    std::uint64_t in_ranges = 0;
    for (const auto& range : second.ranges) {
        EXPECT_TRUE(range.finished);
        in_ranges += range.rows_written;
    }
    EXPECT_EQ(in_ranges, 6000u) << "each range counts every row of the job in it";

    ASSERT_FALSE(updates.empty());
    EXPECT_GE(updates.front().rows_written, queued_first) << "progress starts from what earlier runs wrote";
    EXPECT_EQ(updates.back().rows_written, 6000u);
    for (const auto& update : updates) {
        EXPECT_NEAR(static_cast<double>(update.estimated_rows), 6000.0, 600.0);
        EXPECT_EQ(update.rows_done_before, queued_first);
    }
    EXPECT_EQ(multiset_difference(payload_keys(list_items(*redis_, queue_), {"id"}),
                                  [] {
                                      std::vector<std::string> ids;
                                      for (int id = 1; id <= 6000; ++id) ids.push_back(std::to_string(id));
                                      return ids;
                                  }()),
              "");
}

}  // namespace
}  // namespace rowpump::test
