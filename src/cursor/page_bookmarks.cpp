#include "cursor/page_bookmarks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <thread>

#include "log.hpp"
#include "partition/planners.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// Gaps counted by one statement: a row of scalar subqueries, as KeyIndex::count_leading sends them.
constexpr std::size_t gaps_per_statement = 32;

}  // namespace

std::optional<PageBookmarks> PageBookmarks::build(mysql::Connection& connection, const TableInfo& table,
                                                  const SortOrder& order, bool filtered,
                                                  std::uint64_t calibration_rows) {
    if (filtered) return std::nullopt;
    const auto started = std::chrono::steady_clock::now();
    // The planner reads a key in ascending order: the sort's columns, each ascending. Its boundaries are
    // values of the first column (snapped to the first real key at or above them), and a range holds
    // whole values of it, so a boundary is a place in any mix of directions of the later columns.
    ReadPlan plan;
    plan.table = table;
    for (const auto& column : order.columns) plan.key.columns.push_back(column.name);
    plan.key.reason = "the cursor's sort";
    plan.columns = order.columns;
    KeyIndex index(connection, plan);
    if (!can_plan_by_estimates(index, plan)) return std::nullopt;
    PageBookmarks out;
    out.placed_at_ = table_version(connection, table);
    const std::uint64_t statistics = index.table_rows_estimate();
    const auto count = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(statistics / span_rows + 1, 1, max_bookmarks));
    EstimateOptions options;
    options.cells_per_partition = 4;  // a bookmark's place need not be balanced, only known
    const auto planned = plan_by_estimates(index, plan, count, options);
    if (!planned) return std::nullopt;
    const auto estimated = std::chrono::steady_clock::now();

    out.table_ = table.quoted_name();
    out.lead_ = order.bare.columns[0];
    out.placeholder_ = order.bare.placeholders[0];
    out.descending_ = order.directions[0] == SortDirection::descending;
    out.estimated_total_ = planned->estimated_rows;
    std::uint64_t below = 0;  // rows whose first column is below the bookmark's value
    out.bookmarks_.push_back({});
    for (const auto& partition : planned->partitions) {
        if (partition.range.lo) {
            const KeyPart& value = (*partition.range.lo)[0];
            // Ascending, the rows from the value on start after `below` rows; descending, the rows
            // below it start after the others.
            out.bookmarks_.push_back({value, out.descending_ ? out.estimated_total_ - std::min(below, out.estimated_total_) : below});
        }
        below += partition.estimated_rows;
    }
    std::stable_sort(out.bookmarks_.begin(), out.bookmarks_.end(),
                     [](const Bookmark& a, const Bookmark& b) { return a.estimate < b.estimate; });

    // The calibration: the bookmarks within the first calibration_rows (by estimate), at least one.
    std::size_t last = 0;
    while (last + 1 < out.bookmarks_.size() && (last == 0 || out.bookmarks_[last + 1].estimate <= calibration_rows)) ++last;
    out.counted_at_ = out.placed_at_.changed;
    out.count_to(connection, last);
    const auto calibrated = std::chrono::steady_clock::now();
    const std::uint64_t counted_rows = out.counted_.back();
    // Kept as exact only if no commit came between the version read before the count and the one after.
    if (!out.placed_at_.vouches() || !table_version(connection, table).same_as(out.placed_at_)) {
        out.counted_ = {0};
        out.counted_at_.reset();
    }
    char scale[32];
    std::snprintf(scale, sizeof scale, "%.4f", out.scale_);
    out.method_ = planned->method + "; scale calibrated by an exact count of the first " + std::to_string(counted_rows) +
                  " rows (" + std::to_string(last) + " bookmark gaps): estimates x " + scale;
    const auto ms = [](auto from, auto to) { return std::chrono::duration<double, std::milli>(to - from).count(); };
    // Where a new Cursor's first jump spends its time, for -v.
    log().debug("{} bookmarks of {} placed in {:.1f} ms: estimates {:.1f} ms, calibration count {:.1f} ms ({})",
                out.bookmarks_.size(), out.table_, ms(started, calibrated), ms(started, estimated),
                ms(estimated, calibrated), out.method_);
    return out;
}

bool PageBookmarks::counts_hold(const TableVersion& version) const {
    return counted_at_ && version.changed == counted_at_ && !counted_.empty();
}

std::size_t PageBookmarks::counted(const TableVersion& version) const {
    return counts_hold(version) ? counted_.size() : 0;
}

bool PageBookmarks::counts_more_than(const PageBookmarks& other) const {
    if (!counted_at_) return false;
    if (!other.counted_at_ || *counted_at_ > *other.counted_at_) return true;
    return *counted_at_ == *other.counted_at_ && counted_.size() > other.counted_.size();
}

void PageBookmarks::forget_counts() {
    counted_ = {0};
    counted_at_.reset();
}

std::uint64_t PageBookmarks::estimated_position(std::size_t i) const {
    // Past the deepest counted bookmark: its position plus the estimated distance, scaled.
    const std::size_t k = counted_.empty() ? 0 : counted_.size() - 1;
    const std::uint64_t base = counted_.empty() ? 0 : counted_[k];
    const std::uint64_t from = bookmarks_[k].estimate;
    const double beyond = static_cast<double>(bookmarks_[i].estimate - std::min(bookmarks_[i].estimate, from)) * scale_;
    return base + static_cast<std::uint64_t>(std::llround(beyond));
}

std::uint64_t PageBookmarks::total_rows() const {
    const std::size_t k = counted_.empty() ? 0 : counted_.size() - 1;
    const std::uint64_t base = counted_.empty() ? 0 : counted_[k];
    const std::uint64_t from = bookmarks_[k].estimate;
    return base + static_cast<std::uint64_t>(std::llround(static_cast<double>(estimated_total_ - std::min(estimated_total_, from)) * scale_));
}

SqlFragment PageBookmarks::from(std::size_t i) const {
    if (i == 0) return {};
    return {lead_ + (descending_ ? " < " : " >= ") + placeholder_, {*bookmarks_[i].value}};
}

PageBookmarks::Landing PageBookmarks::at_or_before(std::uint64_t position, const TableVersion& version) const {
    // Positions rise with the bookmarks: counted ones are exact, later ones the last count plus a scaled
    // distance (without counts that hold, the scaled estimates from the list's start).
    const bool hold = counts_hold(version);
    const auto place = [&](std::size_t i) -> std::uint64_t {
        if (hold && i < counted_.size()) return counted_[i];
        if (hold) return estimated_position(i);
        return static_cast<std::uint64_t>(std::llround(static_cast<double>(bookmarks_[i].estimate) * scale_));
    };
    std::size_t lo = 0;  // place(0) == 0 <= position
    std::size_t hi = bookmarks_.size();
    while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        (place(mid) <= position ? lo : hi) = mid;
    }
    return {from(lo), place(lo), hold && lo < counted_.size()};
}

std::optional<PageBookmarks::Landing> PageBookmarks::exact_at_or_before(mysql::Connection& connection,
                                                                        std::uint64_t position,
                                                                        const TableVersion& version) {
    if (!version.vouches()) return std::nullopt;
    if (!counts_hold(version)) {
        counted_ = {0};
        counted_at_ = version.changed;
    }
    // Count on to the first bookmark past `position` (by its scaled estimate; again if that was short).
    while (counted_.back() <= position && counted_.size() < bookmarks_.size()) {
        std::size_t past = counted_.size();
        while (past + 1 < bookmarks_.size() && estimated_position(past) <= position) ++past;
        count_to(connection, past);
    }
    std::size_t k = counted_.size() - 1;
    while (counted_[k] > position) --k;  // counted_[0] == 0
    return Landing{from(k), counted_[k], true};
}

void PageBookmarks::count_to(mysql::Connection& connection, std::size_t last) {
    if (counted_.empty()) counted_ = {0};
    if (last < counted_.size()) return;
    const std::size_t first = counted_.size() - 1;
    for (const std::uint64_t gap : count_gaps(connection, first, last)) counted_.push_back(counted_.back() + gap);
    const std::size_t k = counted_.size() - 1;
    if (bookmarks_[k].estimate > 0 && counted_[k] > 0)
        scale_ = static_cast<double>(counted_[k]) / static_cast<double>(bookmarks_[k].estimate);
}

std::vector<std::uint64_t> PageBookmarks::count_statement(mysql::Connection& connection, std::size_t begin,
                                                          std::size_t end) const {
    // Gap i: the rows from bookmark i on and not from bookmark i + 1 on, a range of the first sort
    // column: [v(i), v(i + 1)) ascending, [v(i + 1), v(i)) descending. Counted through the index on it.
    std::string sql = "SELECT ";
    std::vector<mysql::Param> params;
    for (std::size_t i = begin; i < end; ++i) {
        SqlFragment where = from(i);
        where.and_also({lead_ + (descending_ ? " >= " : " < ") + placeholder_, {*bookmarks_[i + 1].value}});
        sql += (i > begin ? ", " : "") + std::string("(SELECT COUNT(*) FROM ") + table_ + " WHERE " + where.sql + ")";
        params.insert(params.end(), where.params.begin(), where.params.end());
    }
    auto rows = connection.query(sql, params);
    if (!rows.next()) throw Error("bug: a row of bookmark counts came back empty");
    std::vector<std::uint64_t> out;
    for (std::size_t i = begin; i < end; ++i) out.push_back(rows.uint64(i - begin + 1));
    return out;
}

std::vector<std::uint64_t> PageBookmarks::count_gaps(mysql::Connection& connection, std::size_t first,
                                                     std::size_t last) {
    const std::size_t gaps = last - first;
    std::vector<std::uint64_t> out(gaps);
    // At most gaps_per_statement a statement, and two statements as soon as there are two gaps: both
    // sessions then have one to count.
    const std::size_t statements =
        std::max((gaps + gaps_per_statement - 1) / gaps_per_statement, std::min<std::size_t>(2, gaps));
    if (statements == 0) return out;
    const std::size_t per_statement = (gaps + statements - 1) / statements;
    std::atomic<std::size_t> next{0};
    // Each session takes the next statement until none is left, and writes its gaps in their places.
    const auto take = [&](mysql::Connection& session) {
        for (std::size_t s = next++; s < statements; s = next++) {
            const std::size_t begin = first + s * per_statement;
            const std::size_t end = std::min(last, begin + per_statement);
            if (begin >= end) continue;
            const auto counted = count_statement(session, begin, end);
            std::copy(counted.begin(), counted.end(), out.begin() + static_cast<std::ptrdiff_t>(begin - first));
        }
    };
    if (statements < 2) {
        take(connection);
        return out;
    }
    auto& helper_session = helper_.connection;
    if (!helper_session) helper_session = std::make_unique<mysql::Connection>(connection.options());
    std::exception_ptr helper_failure;
    std::thread helper([&] {
        try {
            take(*helper_session);
        } catch (...) {
            helper_failure = std::current_exception();
            next = statements;  // the other session stops after its statement
        }
    });
    try {
        take(connection);
    } catch (...) {
        next = statements;
        helper.join();
        throw;
    }
    helper.join();
    if (helper_failure) {
        helper_session.reset();  // opened again for the next count
        std::rethrow_exception(helper_failure);
    }
    return out;
}

}  // namespace rowpump
