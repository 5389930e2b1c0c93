// Cursor pages against OFFSET at depth (issue 31's goals), in process through the library, on a table
// bench/cursor_vs_offset.sh makes (BENCH_CURSOR_TABLE; its sort BENCH_CURSOR_SORT, default created_at DESC,
// id DESC over KEY (created_at); its columns BENCH_CURSOR_COLUMNS, default id,created_at,title; a sort of
// two columns in one direction, e.g. the salaries-shaped table's "emp_no, from_date"):
//   next_page/depth:0 and depth:D    the page after a token (Cursor::page), at the list's start and at D
//   offset/depth:D                   SELECT <columns> ... ORDER BY <sort> LIMIT D, 20
//   exact_jump/depth:D               Cursor::jump_exact to the page that starts at D (the same rows), its
//                                    bookmarks counted to D before timing: a walk from the one below D
//   exact_jump_cold/depth:D          a new Cursor's first exact jump: bookmarks placed and calibrated, their
//                                    gaps counted to D (one walk of D index entries), then the jump
//   approximate_jump/page:P          Cursor::jump_approximate, bookmarks made before timing
//   approximate_cold                 a new Cursor's first approximate jump: the bookmarks made, then the jump
//                                    (the process's shelf of bookmarks emptied first: none to take)
//   approximate_shared               a new Cursor's first approximate jump where another Cursor of the query
//                                    placed the bookmarks (src/cursor/bookmark_shelf.hpp): a copy taken
//   approximate_prepared             the first approximate jump of a new Cursor after its prepare_jumps()
//                                    (made and prepared untimed, the shelf emptied first)
//   new_cursor                       a new Cursor's making alone: its connection, the table's description
// The cold exact jump empties the shelf too; each case times the new Cursor's making with its first jump,
// except approximate_prepared, which times the jump alone.
// D is BENCH_CURSOR_DEPTH (default: half the table, rounded to pages). Before timing it prints each
// approximate landing's distance from the row asked (counted exactly once, by COUNT) from a new Cursor
// (calibrated by its first million rows only), then checks that the three ways to depth D give the same
// rows (by their sort values), and prints the length of a token. Each jump prints how it got there. Real
// time and CPU time are the client's.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cursor/bookmark_shelf.hpp"
#include "mysql/connection.hpp"
#include "rowpump/cursor.hpp"

namespace {

using namespace rowpump;

constexpr std::size_t page_size = 20;

struct Setup {
    MySqlOptions mysql;
    std::string table;
    std::uint64_t rows = 0;
    std::uint64_t depth = 0;  // a multiple of page_size
    std::unique_ptr<Cursor> cursor;
    std::unique_ptr<mysql::Connection> connection;
    std::string token_at_depth;  // the end cursor of the page before depth
    std::string token_at_start;  // the first page's end cursor
    std::string sort_text = "created_at DESC, id DESC";
    std::vector<std::string> columns{"id", "created_at", "title"};
    std::string select_list = "id, created_at, title";
    // The sort's two columns, where they sit among `columns`, and their one direction.
    std::string sort_columns[2];
    std::size_t sort_positions[2] = {0, 0};
    bool descending = true;
};

Setup& setup() {
    static Setup s;
    return s;
}

CursorKeys keys() { return CursorKeys{std::string(32, 'k'), ""}; }

// Each row's sort values (its place: the sort ends in a unique key), tab-separated.
std::vector<std::string> ids(const CursorPage& page) {
    const Setup& s = setup();
    std::vector<std::string> out;
    for (std::size_t r = 0; r < page.rows.row_count(); ++r)
        out.push_back(std::string(*page.rows.value(r, s.sort_positions[0])) + "\t" +
                      std::string(*page.rows.value(r, s.sort_positions[1])));
    return out;
}

CursorSpec spec_of(const Setup& s) { return CursorSpec{s.table, parse_sort(s.sort_text), s.columns, {}}; }

std::vector<std::string> offset_ids(std::uint64_t depth) {
    Setup& s = setup();
    std::vector<std::string> out;
    // The page's columns, as the cursor reads them: with `id` alone, by_created would cover the statement
    // and the optimizer would walk it instead of scanning and sorting the table.
    auto rows = s.connection->query("SELECT " + s.select_list + " FROM `" + s.table + "` ORDER BY " + s.sort_text +
                                    " LIMIT " + std::to_string(depth) + ", " + std::to_string(page_size));
    while (rows.next()) out.push_back(rows.text(s.sort_positions[0] + 1) + "\t" + rows.text(s.sort_positions[1] + 1));
    return out;
}

// The rows before the page's first row in the sort: where the page really starts.
std::uint64_t position_of(const CursorPage& page) {
    Setup& s = setup();
    const std::string first(*page.rows.value(0, s.sort_positions[0]));
    const std::string second(*page.rows.value(0, s.sort_positions[1]));
    const std::string before = s.descending ? " > " : " < ";
    auto rows = s.connection->query("SELECT COUNT(*) FROM `" + s.table + "` WHERE " + s.sort_columns[0] + before + "'" +
                                    first + "' OR (" + s.sort_columns[0] + " = '" + first + "' AND " +
                                    s.sort_columns[1] + before + "'" + second + "')");
    rows.next();
    return std::stoull(rows.text(1));
}

void next_page(benchmark::State& state) {
    Setup& s = setup();
    const std::string& token = state.range(0) == 0 ? s.token_at_start : s.token_at_depth;
    for (auto _ : state) benchmark::DoNotOptimize(s.cursor->page(PageRequest::after(token, page_size)));
}

void offset(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(offset_ids(setup().depth));
}

void exact_jump(benchmark::State& state) {
    Setup& s = setup();
    for (auto _ : state) benchmark::DoNotOptimize(s.cursor->jump_exact(s.depth / page_size + 1, page_size));
}

// Outside the timing: no bookmarks on the process's shelf, so that a new Cursor places its own.
void empty_shelf(benchmark::State& state) {
    state.PauseTiming();
    BookmarkShelf::process().clear();
    state.ResumeTiming();
}

// A new Cursor's first jump to the depth, exact or approximate: it places its own bookmarks.
template <CursorPage (Cursor::*jump)(std::uint64_t, std::size_t)>
void cold_jump(benchmark::State& state) {
    Setup& s = setup();
    for (auto _ : state) {
        empty_shelf(state);
        Cursor fresh(s.mysql, spec_of(s), keys());
        benchmark::DoNotOptimize((fresh.*jump)(s.depth / page_size + 1, page_size));
    }
}

void approximate_jump(benchmark::State& state) {
    Setup& s = setup();
    const auto page = static_cast<std::uint64_t>(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(s.cursor->jump_approximate(page, page_size));
}


void approximate_shared(benchmark::State& state) {
    Setup& s = setup();
    for (auto _ : state) {
        state.PauseTiming();
        // Another Cursor of the query places them, or takes those already shelved (a case before emptied it).
        Cursor(s.mysql, spec_of(s), keys()).prepare_jumps();
        state.ResumeTiming();
        Cursor fresh(s.mysql, spec_of(s), keys());
        const CursorPage landed = fresh.jump_approximate(s.depth / page_size + 1, page_size);
        if (landed.how.find("by another Cursor") == std::string::npos) {
            state.SkipWithError(("not shared: " + landed.how).c_str());
            break;
        }
    }
}

void new_cursor(benchmark::State& state) {
    Setup& s = setup();
    for (auto _ : state) benchmark::DoNotOptimize(Cursor(s.mysql, spec_of(s), keys()));
}

void approximate_prepared(benchmark::State& state) {
    Setup& s = setup();
    for (auto _ : state) {
        state.PauseTiming();
        BookmarkShelf::process().clear();
        Cursor fresh(s.mysql, spec_of(s), keys());
        fresh.prepare_jumps();
        state.ResumeTiming();
        benchmark::DoNotOptimize(fresh.jump_approximate(s.depth / page_size + 1, page_size));
    }
}

int prepare() {
    Setup& s = setup();
    const char* table = std::getenv("BENCH_CURSOR_TABLE");
    if (!std::getenv("ROWPUMP_MYSQL_URL") || !table) {
        std::fprintf(stderr, "cursor_jump_bench: set ROWPUMP_MYSQL_URL and BENCH_CURSOR_TABLE (bench/cursor_vs_offset.sh does)\n");
        return 2;
    }
    s.mysql = MySqlOptions::from_env();
    s.table = table;
    if (const char* sort = std::getenv("BENCH_CURSOR_SORT")) s.sort_text = sort;
    if (const char* columns = std::getenv("BENCH_CURSOR_COLUMNS")) {
        s.columns.clear();
        s.select_list.clear();
        for (std::string rest = columns; !rest.empty();) {
            const auto comma = rest.find(',');
            s.columns.push_back(rest.substr(0, comma));
            s.select_list += (s.select_list.empty() ? "" : ", ") + s.columns.back();
            rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        }
    }
    const std::vector<SortColumn> sort = parse_sort(s.sort_text);
    if (sort.size() != 2 || sort[0].direction != sort[1].direction) {
        std::fprintf(stderr, "cursor_jump_bench: BENCH_CURSOR_SORT must be two columns in one direction\n");
        return 2;
    }
    s.descending = sort[0].direction == SortDirection::descending;
    for (std::size_t i = 0; i < 2; ++i) {
        s.sort_columns[i] = sort[i].column;
        const auto at = std::find(s.columns.begin(), s.columns.end(), sort[i].column);
        if (at == s.columns.end()) {
            std::fprintf(stderr, "cursor_jump_bench: BENCH_CURSOR_COLUMNS must hold the sort's columns\n");
            return 2;
        }
        s.sort_positions[i] = static_cast<std::size_t>(at - s.columns.begin());
    }
    s.connection = std::make_unique<mysql::Connection>(s.mysql);
    auto count = s.connection->query("SELECT COUNT(*) FROM `" + s.table + "`");
    count.next();
    s.rows = std::stoull(count.text(1));
    const char* depth = std::getenv("BENCH_CURSOR_DEPTH");
    s.depth = (depth ? std::stoull(depth) : s.rows / 2) / page_size * page_size;
    s.cursor = std::make_unique<Cursor>(s.mysql, spec_of(s), keys());
    // Where the approximate jump lands from bookmarks calibrated by their first rows only (a new Cursor,
    // before any exact jump counts further).
    const std::uint64_t pages = s.rows / page_size;
    Cursor fresh(s.mysql, spec_of(s), keys());
    for (const std::uint64_t page : {pages / 10, pages / 4, s.depth / page_size + 1, pages * 9 / 10}) {
        const CursorPage landed = fresh.jump_approximate(page, page_size);
        const std::uint64_t asked = (page - 1) * page_size;
        const std::uint64_t at = position_of(landed);
        const double off = std::fabs(static_cast<double>(at) - static_cast<double>(asked));
        std::printf("approximate page %llu (row %llu of about %llu): landed on row %llu, %.3f%% of the position, %.3f%% of the table (%s: %s)\n",
                    static_cast<unsigned long long>(page), static_cast<unsigned long long>(asked),
                    static_cast<unsigned long long>(landed.total_rows_estimate), static_cast<unsigned long long>(at),
                    asked ? 100 * off / static_cast<double>(asked) : 0.0, 100 * off / static_cast<double>(s.rows),
                    to_string(landed.method).c_str(), landed.how.c_str());
    }
    s.token_at_start = s.cursor->page(PageRequest::first(page_size)).end_cursor;
    const CursorPage before = s.cursor->jump_exact(s.depth / page_size, page_size);
    s.token_at_depth = before.end_cursor;
    const auto expected = offset_ids(s.depth);
    const auto by_token = ids(s.cursor->page(PageRequest::after(s.token_at_depth, page_size)));
    const CursorPage jumped = s.cursor->jump_exact(s.depth / page_size + 1, page_size);
    const auto by_jump = ids(jumped);
    if (by_token != expected || by_jump != expected) {
        std::fprintf(stderr, "cursor_jump_bench: the keyset page, the exact jump and OFFSET differ at depth %llu\n",
                     static_cast<unsigned long long>(s.depth));
        return 1;
    }
    std::printf("table %s: %llu rows; depth %llu: keyset, exact jump and OFFSET give the same 20 rows; the exact jump %s\n",
                s.table.c_str(), static_cast<unsigned long long>(s.rows), static_cast<unsigned long long>(s.depth),
                jumped.how.c_str());
    std::printf("token for the sort %s: %zu characters (%s)\n", s.sort_text.c_str(), s.token_at_depth.size(),
                s.token_at_depth.c_str());
    std::fflush(stdout);
    benchmark::RegisterBenchmark("next_page/depth:0", next_page)->Arg(0)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("next_page/depth:" + std::to_string(s.depth)).c_str(), next_page)->Arg(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("offset/depth:" + std::to_string(s.depth)).c_str(), offset)->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("exact_jump/depth:" + std::to_string(s.depth)).c_str(), exact_jump)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("exact_jump_cold/depth:" + std::to_string(s.depth)).c_str(), cold_jump<&Cursor::jump_exact>)->Iterations(1)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("approximate_jump/page", approximate_jump)
        ->Arg(static_cast<std::int64_t>(pages / 4))->Arg(static_cast<std::int64_t>(s.depth / page_size + 1))
        ->Arg(static_cast<std::int64_t>(pages * 9 / 10))->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("approximate_cold", cold_jump<&Cursor::jump_approximate>)->Iterations(3)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("approximate_shared", approximate_shared)->Iterations(3)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("approximate_prepared", approximate_prepared)->Iterations(3)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark("new_cursor", new_cursor)->Iterations(3)->Unit(benchmark::kMillisecond);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    try {
        if (const int failed = prepare()) return failed;
    } catch (const rowpump::Error& error) {
        std::fprintf(stderr, "cursor_jump_bench: %s\n", error.what());
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
