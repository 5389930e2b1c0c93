// The run's workers, page pipeline, range board, job ledger leases and work stealing (src/run/) over
// fakes (run_fakes/), with no server: for every mix of workers, partitions, page sizes and injected faults,
// every row of an in-memory table arrives. With a job id exactly once, across a failure and the resume;
// without, at least once, and exactly once when nothing failed. A second set splits each job range exactly
// at the last key of the page being written, the one page a bound off by one would let through.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "route/router.hpp"
#include "rowpump/encode.hpp"
#include "run/board_source.hpp"
#include "run/job_source.hpp"
#include "run/range_board.hpp"
#include "run/range_worker.hpp"
#include "run/run_workers.hpp"
#include "run_fakes/fake_job_store.hpp"
#include "run_fakes/fake_queue.hpp"
#include "run_fakes/fake_table.hpp"
#include "test_columns.hpp"
#include "throttle/throttle_gate.hpp"

namespace rowpump {
namespace {

using test::Fault;

// Rows in the table: 2000, or 500 when a page is one row. Pages of one row cost the sweep three quarters
// of its time at 2000 rows; at 500, each of 64 ranges still takes several pages, and every fault still
// lands a third of the way in.
std::int64_t table_rows(std::size_t page_size) { return page_size == 1 ? 500 : 2000; }
// The plan's estimates are this many times the real rows, as stale statistics make them: idle workers
// then find remainders worth splitting, again and again.
constexpr std::uint64_t estimate_factor = 4;

// Gaps of one and two between keys: a split key is sometimes a row's key, sometimes a value between two.
std::vector<std::int64_t> sweep_keys(std::int64_t rows) {
    std::vector<std::int64_t> keys;
    for (std::int64_t i = 0; i < rows; ++i) keys.push_back(2 * i + (i % 5 == 0 ? 1 : 0) + 1);
    return keys;
}

// `count` ranges of about as many rows, cut at keys of the table as the balanced planner cuts them, the
// first open below and the last open above.
PartitionPlan plan_partitions(const test::FakeTable& table, std::size_t count) {
    const auto& keys = table.keys();
    PartitionPlan plan;
    for (std::size_t i = 0; i < count; ++i) {
        Partition partition;
        if (i > 0) partition.range.lo = test::key_of(keys[i * keys.size() / count]);
        if (i + 1 < count) partition.range.hi = test::key_of(keys[(i + 1) * keys.size() / count]);
        partition.estimated_rows = table.count(partition.range) * estimate_factor;
        plan.estimated_rows += partition.estimated_rows;
        plan.partitions.push_back(partition);
    }
    return plan;
}

// Each key of `table` exactly `at_least` to `at_most` times in `delivered`, else which are not.
testing::AssertionResult each_key(const std::vector<std::int64_t>& table, const std::vector<std::int64_t>& delivered,
                                  std::size_t at_least, std::size_t at_most) {
    std::map<std::int64_t, std::size_t> seen;
    for (const std::int64_t key : delivered) ++seen[key];
    std::ostringstream wrong;
    std::size_t missing = 0, repeated = 0, foreign = 0;
    for (const std::int64_t key : table) {
        const auto found = seen.find(key);
        const std::size_t times = found == seen.end() ? 0 : found->second;
        if (found != seen.end()) seen.erase(found);
        if (times < at_least && ++missing <= 5) wrong << " missing " << key << ";";
        if (times > at_most && ++repeated <= 5) wrong << " " << key << " " << times << " times;";
    }
    foreign = seen.size();
    if (missing + repeated + foreign == 0) return testing::AssertionSuccess();
    return testing::AssertionFailure() << delivered.size() << " rows delivered for " << table.size() << ": " << missing
                                       << " missing, " << repeated << " repeated, " << foreign
                                       << " not in the table;" << wrong.str();
}

struct SweepCase {
    bool with_job_id;
    std::size_t workers;
    std::size_t partitions;
    std::size_t page_size;
    Fault fault;
    bool split_at_page_end = false;  // job: the thief splits at the in-flight page's last key
};

std::string describe(const SweepCase& c) {
    return std::string(c.with_job_id ? "job" : "board") + "_w" + std::to_string(c.workers) + "_p" +
           std::to_string(c.partitions) + "_page" + std::to_string(c.page_size) + "_" + test::to_string(c.fault) +
           (c.split_at_page_end ? "_at_page_end" : "");
}

std::string case_name(const testing::TestParamInfo<SweepCase>& info) { return describe(info.param); }

// gtest names a failing case by its parameter: the case's name, not its bytes.
void PrintTo(const SweepCase& c, std::ostream* out) { *out << describe(c); }

std::vector<SweepCase> sweep_cases() {
    std::vector<SweepCase> cases;
    for (const bool with_job_id : {false, true})
        for (const std::size_t workers : {1, 2, 3, 8})
            for (const std::size_t partitions : {1, 2, 7, 64})
                for (const std::size_t page_size : {1, 7, 1000})
                    for (const Fault fault : {Fault::none, Fault::write_fails, Fault::lease_lost, Fault::split, Fault::stop})
                        // Only a job has leases to lose.
                        if (with_job_id || fault != Fault::lease_lost)
                            cases.push_back({with_job_id, workers, partitions, page_size, fault});
    return cases;
}

// A split exactly at the last key of the page in flight: the one page a bound off by one would let
// through (the midpoint of the sweep above lands half the remainder away, past every page in flight).
std::vector<SweepCase> page_end_split_cases() {
    std::vector<SweepCase> cases;
    for (const std::size_t workers : {1, 2, 3, 8})
        for (const std::size_t partitions : {1, 2, 7, 64})
            for (const std::size_t page_size : {1, 7, 1000})
                cases.push_back({true, workers, partitions, page_size, Fault::split, true});
    return cases;
}

class RunSweep : public testing::TestWithParam<SweepCase> {
protected:
    RunSweep()
        : table(sweep_keys(table_rows(GetParam().page_size))),
          partitions(plan_partitions(table, GetParam().partitions)),
          faults(GetParam().fault, static_cast<std::size_t>(table_rows(GetParam().page_size) / 3)),
          plan(make_plan(GetParam().page_size)),
          row_encoder(make_encoder(Format::json, plan->columns)),
          router(RouteSpec{}, "", *plan),
          encoder(*row_encoder, router),
          rate(0),
          gate(ThrottleSpec{}, MySqlOptions{}, 0) {
        spec.job_id = GetParam().with_job_id ? "sweep" : "";
        connections.readers = [this] { return std::make_unique<test::FakeWorkerReaders>(table, GetParam().page_size); };
        connections.keys = [this] { return std::make_unique<test::FakeKeyOrder>(table, violations); };
        connections.sink = [this] { return std::make_unique<test::FakeSink>(queue, faults); };
    }

    static std::shared_ptr<const ReadPlan> make_plan(std::size_t page_size) {
        auto plan = std::make_shared<ReadPlan>();
        plan->spec.page_size = page_size;
        plan->columns = {test::column("id", ColumnKind::signed_integer)};
        return plan;
    }

    // One pass of the board's workers; the failure it ended with, else "".
    std::string run_board(std::atomic<bool>& halt, RangeBoard& board) {
        faults.on_stop = [&] {
            halt = true;
            board.wake_all();
        };
        // Every range is asked to split, as idle workers ask: those being read split at their next page.
        faults.on_split = [&] {
            const std::size_t ranges = board.summary().ranges.size();
            for (std::size_t i = 0; i < ranges; ++i) board.at(i).split_requested = true;
        };
        const WorkerContext context{spec, plan, encoder, rate, halt, connections, gate};
        return failure_of([&] {
            run_workers(GetParam().workers, halt, [&] { board.wake_all(); }, [&] {
                BoardSource source(context, board);
                run_worker(context, source);
            });
        });
    }

    // One run of the job's workers over `store`; the failure it ended with, else "".
    std::string run_job(test::FakeJobStore& store) {
        std::atomic<bool> halt{false};
        std::mutex store_mutex;
        LedgerReport report;
        faults.on_stop = [&] {
            halt = true;
            report.stop_waits();
        };
        const WorkerContext context{spec, plan, encoder, rate, halt, connections, gate};
        return failure_of([&] {
            run_workers(GetParam().workers, halt, [&] { report.stop_waits(); }, [&] {
                JobSource source(context, store, store_mutex, report);
                run_worker(context, source);
            });
        });
    }

    template <class Run>
    std::string failure_of(Run&& run) {
        std::string failure;
        try {
            run();
        } catch (const Error& error) {
            failure = error.what();
        }
        faults.on_stop = nullptr;
        faults.on_split = nullptr;
        return failure;
    }

    // The fault was injected (a case that never reaches it tests nothing), and no fake saw a contract broken.
    void expect_fault_injected_and_no_violation() {
        EXPECT_TRUE(GetParam().fault == Fault::none || faults.fired()) << "the fault was never injected";
        for (const std::string& violation : violations.seen()) ADD_FAILURE() << violation;
    }

    test::FakeTable table;
    PartitionPlan partitions;
    test::FakeQueue queue;
    test::Violations violations;
    test::FaultPlan faults;
    JobSpec spec;
    std::shared_ptr<const ReadPlan> plan;
    std::unique_ptr<RowEncoder> row_encoder;
    Router router;
    PageEncoder encoder;
    RateLimiter rate;
    ThrottleGate gate;
    WorkerConnections connections;
};

const char* const injected_failure = "injected: a write failed";

TEST_P(RunSweep, EveryRowArrives) {
    const Fault fault = GetParam().fault;
    const bool fails = fault == Fault::write_fails;
    if (GetParam().with_job_id) {
        test::FakeJobStore store(table, queue, faults, violations);
        store.split_at_page_end = GetParam().split_at_page_end;
        store.create(partitions.partitions);
        EXPECT_EQ(run_job(store), fails ? injected_failure : "");
        // A failed or stopped job is resumed, by a run that meets no fault.
        if (fails || fault == Fault::stop) {
            EXPECT_EQ(run_job(store), "");
        }
        EXPECT_TRUE(store.state().finished());
        EXPECT_TRUE(each_key(table.keys(), queue.keys(), 1, 1));
    } else {
        std::atomic<bool> halt{false};
        RangeBoard board(partitions, true, halt);
        EXPECT_EQ(run_board(halt, board), fails ? injected_failure : "");
        const JobSummary summary = board.summary();
        const std::vector<std::int64_t> first = queue.keys();
        EXPECT_EQ(summary.rows_written, first.size());
        // Within one pass no row is written twice, whatever happened.
        EXPECT_TRUE(each_key(table.keys(), first, 0, 1)) << "in the first pass";
        if (fails || fault == Fault::stop) {
            // Nothing to resume from: the rerun reads everything again.
            std::atomic<bool> rerun_halt{false};
            RangeBoard rerun(partitions, true, rerun_halt);
            EXPECT_EQ(run_board(rerun_halt, rerun), "");
            const std::vector<std::int64_t> all = queue.keys();
            EXPECT_TRUE(each_key(table.keys(), std::vector<std::int64_t>(all.begin() + static_cast<std::ptrdiff_t>(first.size()), all.end()), 1, 1)) << "in the rerun";
            EXPECT_TRUE(each_key(table.keys(), all, 1, 2));
        } else {
            EXPECT_TRUE(each_key(table.keys(), first, 1, 1));
            EXPECT_TRUE(std::all_of(summary.ranges.begin(), summary.ranges.end(),
                                    [](const RangeSummary& range) { return range.finished; }));
        }
    }
    expect_fault_injected_and_no_violation();
}

INSTANTIATE_TEST_SUITE_P(Sweep, RunSweep, testing::ValuesIn(sweep_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(PageEndSplit, RunSweep, testing::ValuesIn(page_end_split_cases()), case_name);

}  // namespace
}  // namespace rowpump
