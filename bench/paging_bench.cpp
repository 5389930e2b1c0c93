// Deep pagination: the time of one 1000-row page at depth 0 and near the end of a 1M-row table, keyset
// against OFFSET. Keyset should cost the same at any depth; OFFSET reads and discards every skipped row.
//
// Needs a running server and the sysbench table: eval "$(scripts/services.sh env)"; bench/sysbench_table.sh
// Runs 5 repetitions by default (pass --benchmark_repetitions to change it) and ends with the
// depth ratios, computed from the medians.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "mysql/connection.hpp"
#include "rowpump/reader.hpp"

namespace {

constexpr std::size_t rows_per_page = 1000;
constexpr std::int64_t deep = 999000;  // the last full page of a 1M-row table
const char* const table_name = "sbtest1";

struct Setup {
    rowpump::MySqlOptions mysql;
    std::shared_ptr<const rowpump::ReadPlan> keyset_plan;
    std::shared_ptr<const rowpump::ReadPlan> offset_plan;
};

Setup* setup = nullptr;

std::shared_ptr<const rowpump::ReadPlan> plan_for(rowpump::PagingStrategy strategy) {
    rowpump::ReadSpec spec;
    spec.table = table_name;
    spec.page_size = rows_per_page;
    spec.strategy = strategy;
    return std::make_shared<const rowpump::ReadPlan>(rowpump::plan_read(setup->mysql, spec));
}

std::optional<rowpump::KeyValue> key_at(std::int64_t depth) {
    // sysbench numbers its rows 1..n, so the key of the depth-th row is the depth itself.
    if (depth == 0) return std::nullopt;
    return rowpump::KeyValue{depth};
}

// A page must be full and start right after the depth: anything else means the table is not the 1M-row
// sysbench table and the figures would be meaningless.
bool check_page(benchmark::State& state, std::size_t rows, std::string_view first_id, std::int64_t depth) {
    if (rows == rows_per_page && first_id == std::to_string(depth + 1)) return true;
    state.SkipWithError(("page at depth " + std::to_string(depth) + " has " + std::to_string(rows) +
                         " rows starting at id " + std::string(first_id) +
                         "; expected 1000 from id " + std::to_string(depth + 1) +
                         ": run bench/sysbench_table.sh")
                            .c_str());
    return false;
}

// The library end to end: a reader resuming after the key at the depth reads one page. Opening the
// reader's connection is not timed; the page includes preparing its statement on that new connection.
void BM_Keyset(benchmark::State& state) {
    const std::int64_t depth = state.range(0);
    std::optional<rowpump::PageReader> reader;
    for (auto _ : state) {
        state.PauseTiming();
        reader.reset();
        reader.emplace(setup->mysql, setup->keyset_plan, rowpump::KeyRange{}, key_at(depth));
        state.ResumeTiming();
        auto page = reader->next_page();
        state.PauseTiming();
        const bool ok = page && check_page(state, page->row_count(), page->value(0, 0).value_or(""), depth);
        state.ResumeTiming();
        if (!ok) break;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows_per_page));
}

// The SQL a fresh reader of `plan` would run for its first page.
std::string first_page_sql(const std::shared_ptr<const rowpump::ReadPlan>& plan, std::int64_t depth) {
    return rowpump::PageReader(setup->mysql, plan, rowpump::KeyRange{}, key_at(depth)).next_page_sql();
}

// Runs a page's SQL on one long-lived connection (statement prepared once) and copies the values into a
// Page as the reader does: the same path for keyset and OFFSET, so their times compare. The counters
// split a page's time: query_ms until the driver holds the whole result (server work, transfer and the
// driver's buffering), convert_ms to turn it into a Page (getString per value, copies).
void run_page_sql(benchmark::State& state, const std::string& sql, const std::vector<rowpump::mysql::Param>& params,
                  std::int64_t depth) {
    using clock = std::chrono::steady_clock;
    rowpump::mysql::Connection connection(setup->mysql);
    const auto width = static_cast<std::uint32_t>(setup->keyset_plan->columns.size());
    clock::duration querying{};
    clock::duration converting{};
    for (auto _ : state) {
        rowpump::Page page(width);
        const auto started = clock::now();
        auto result = connection.query(sql, params);
        const auto queried = clock::now();
        while (result.next()) {
            for (std::uint32_t column = 1; column <= width; ++column) {
                if (result.is_null(column)) page.append_null();
                else page.append(result.text(column));
            }
        }
        benchmark::DoNotOptimize(page);
        querying += queried - started;
        converting += clock::now() - queried;
        state.PauseTiming();
        const bool ok = check_page(state, page.row_count(), page.value(0, 0).value_or(""), depth);
        state.ResumeTiming();
        if (!ok) break;
    }
    const auto per_page_ms = [](clock::duration total) {
        return benchmark::Counter(std::chrono::duration<double, std::milli>(total).count(),
                                  benchmark::Counter::kAvgIterations);
    };
    state.counters["query_ms"] = per_page_ms(querying);
    state.counters["convert_ms"] = per_page_ms(converting);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows_per_page));
}

// The keyset reader's SQL:  ... WHERE `id` > ? ORDER BY `id` LIMIT ?  (WHERE TRUE at depth 0).
void BM_KeysetSql(benchmark::State& state) {
    const std::int64_t depth = state.range(0);
    std::vector<rowpump::mysql::Param> params;
    if (depth > 0) params.emplace_back(depth);
    params.emplace_back(static_cast<std::int64_t>(rows_per_page));
    run_page_sql(state, first_page_sql(setup->keyset_plan, depth), params, depth);
}

// An offset reader cannot jump to a depth (it counts the rows it has read itself), so the SQL it
// produces,  ... WHERE TRUE ORDER BY `id` LIMIT ? OFFSET ?,  runs here with OFFSET = depth.
void BM_Offset(benchmark::State& state) {
    const std::int64_t depth = state.range(0);
    run_page_sql(state, first_page_sql(setup->offset_plan, 0),
                 {static_cast<std::int64_t>(rows_per_page), depth}, depth);
}

void register_benchmarks() {
    for (auto* bench : {benchmark::RegisterBenchmark("keyset/reader", BM_Keyset),
                        benchmark::RegisterBenchmark("keyset/sql", BM_KeysetSql),
                        benchmark::RegisterBenchmark("offset/sql", BM_Offset)}) {
        bench->ArgName("depth")->Arg(0)->Arg(deep)->Unit(benchmark::kMillisecond)->UseRealTime();
    }
}

// Prints the usual table, then depth 999000 / depth 0 for each benchmark, from the medians of the
// repetitions (or the single run's time when there is one repetition).
class RatioReporter : public benchmark::ConsoleReporter {
public:
    explicit RatioReporter(bool color) : ConsoleReporter(color ? OO_ColorTabular : OO_Tabular) {}

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const auto& run : runs) {
            if (run.error_occurred) continue;
            const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
            if (run.run_type == Run::RT_Aggregate && !median) continue;
            auto& times = times_[run.run_name.function_name][run.run_name.args];
            if (median) times.median = run.GetAdjustedRealTime();
            else times.runs.push_back(run.GetAdjustedRealTime());
        }
        ConsoleReporter::ReportRuns(runs);
    }

    void Finalize() override {
        ConsoleReporter::Finalize();
        auto& out = GetOutputStream();
        out << "\nratio depth " << deep << " / depth 0 (median real time per 1000-row page, ms)\n";
        for (auto& [name, by_depth] : times_) {
            const double shallow = by_depth["depth:0"].value();
            const double deeper = by_depth["depth:" + std::to_string(deep)].value();
            char line[160];
            if (shallow > 0 && deeper > 0)
                std::snprintf(line, sizeof line, "%-14s %10.3f %10.3f   x%.2f\n", name.c_str(), shallow, deeper,
                              deeper / shallow);
            else
                std::snprintf(line, sizeof line, "%-14s (missing a depth)\n", name.c_str());
            out << line;
        }
    }

private:
    struct Times {
        std::vector<double> runs;
        double median = 0;
        double value() {
            if (median > 0 || runs.empty()) return median;
            std::sort(runs.begin(), runs.end());
            const std::size_t n = runs.size();
            return n % 2 ? runs[n / 2] : (runs[n / 2 - 1] + runs[n / 2]) / 2;
        }
    };
    std::map<std::string, std::map<std::string, Times>> times_;
};

bool has_flag(int argc, char** argv, const char* flag) {
    for (int i = 1; i < argc; ++i)
        if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) return true;
    return false;
}

// Colours only on a terminal, unless --benchmark_color says otherwise (as the library's own reporter).
bool use_color(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--benchmark_color=", 0) == 0) {
            const std::string value = arg.substr(std::strlen("--benchmark_color="));
            if (value != "auto") return value == "true" || value == "yes" || value == "1";
        }
    }
    return isatty(STDOUT_FILENO) != 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> args(argv, argv + argc);
    std::string repetitions = "--benchmark_repetitions=5";
    if (!has_flag(argc, argv, "--benchmark_repetitions")) args.push_back(repetitions.data());
    int arg_count = static_cast<int>(args.size());
    benchmark::Initialize(&arg_count, args.data());
    if (benchmark::ReportUnrecognizedArguments(arg_count, args.data())) return 2;

    const char* url = std::getenv("ROWPUMP_MYSQL_URL");
    if (url == nullptr || *url == '\0') {
        std::fprintf(stderr,
                     "paging_bench: ROWPUMP_MYSQL_URL is not set. Start the servers and create the table first:\n"
                     "  eval \"$(scripts/services.sh env)\" && bench/sysbench_table.sh\n");
        return 2;
    }
    Setup state;
    try {
        state.mysql = rowpump::MySqlOptions::from_env();
        setup = &state;
        state.keyset_plan = plan_for(rowpump::PagingStrategy::keyset);
        state.offset_plan = plan_for(rowpump::PagingStrategy::offset);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "paging_bench: cannot plan a read of %s: %s\n  (run bench/sysbench_table.sh)\n",
                     table_name, error.what());
        return 1;
    }

    register_benchmarks();
    RatioReporter reporter(use_color(argc, argv));
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
