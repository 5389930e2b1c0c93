#pragma once
// Bookmarks for the jumps: places in a cursor's sort, each a value of its first column with the list's
// position where that value's rows begin.
//
// They are placed by the balanced planner's index estimates (partition/estimated.cpp: EXPLAIN's dives,
// corrected by a few exact counts and scaled to the table's statistics). Those get the bookmarks'
// relative places right but not their scale (statistics some percent short put every position that much
// short), so the scale is calibrated by counting exactly the rows between the bookmarks of the list's
// first calibration_rows (a bounded count through the sort's index): each counted bookmark then has an
// exact position, and the ones past it are placed at the counted position plus their estimated distance
// from it, times the counted/estimated ratio.
//
// Exact positions are kept while the table is unchanged (table_version.hpp) and extended on demand by
// the exact jump, which counts only the bookmark gaps it has not counted yet: after one count to a depth,
// a jump anywhere up to it walks at most one bookmark gap, exactly.
//
// A count of two gaps or more runs on two sessions at once, in statements of at most 32 gaps, each session
// taking the next statement until none is left (disjoint key ranges; the sums are the same): the server
// counts on two cores.
// The second session is opened with the first one's options when first needed and kept. A copy (the
// process's shelf of bookmarks hands each Cursor one: bookmark_shelf.hpp) has none until it needs one: a
// session is used by one thread at a time.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cursor/sort_order.hpp"
#include "cursor/table_version.hpp"
#include "mysql/connection.hpp"

namespace rowpump {

class PageBookmarks {
public:
    // Rows between two bookmarks, at most (by estimate): the walk a jump may take past its bookmark.
    static constexpr std::uint64_t span_rows = 16'384;
    static constexpr std::size_t max_bookmarks = 1024;
    // The rows counted exactly when the bookmarks are made, to calibrate the estimates' scale: a bound
    // on that count's cost (about 0.1 s of the server's time per million index entries).
    static constexpr std::uint64_t default_calibration_rows = 1'000'000;

    // nullopt when the estimates cannot place them: a filter (estimates do not see it), a first sort
    // column the planner has no axis for (not an integer, date, time or collated text), or one value of
    // it holding too many rows to place a bookmark within.
    static std::optional<PageBookmarks> build(mysql::Connection& connection, const TableInfo& table,
                                              const SortOrder& order, bool filtered,
                                              std::uint64_t calibration_rows = default_calibration_rows);

    struct Landing {
        SqlFragment from;            // the rows from the bookmark on, in the sort's order; empty: the list's start
        std::uint64_t position = 0;  // where they begin in the list (0: its first row)
        bool exact = false;          // position counted, and the table unchanged since; else calibrated estimate
    };
    // The last bookmark at or before `position`: by exact position where the counts still hold at
    // `version`, else by calibrated estimate. No statement.
    Landing at_or_before(std::uint64_t position, const TableVersion& version) const;
    // The last bookmark at or before `position` by exact position, counting the gaps not yet counted up
    // to it (one statement per 32 gaps, each gap about span_rows index entries). nullopt when `version`
    // cannot vouch for counts (table_version.hpp). The caller checks the version again after its own
    // statement: the counts and it are exact only if nothing was committed in between.
    std::optional<Landing> exact_at_or_before(mysql::Connection& connection, std::uint64_t position,
                                              const TableVersion& version);
    // Drops the exact positions (the table changed under a jump that used them).
    void forget_counts();

    // The list's rows, by calibrated estimate.
    std::uint64_t total_rows() const;
    std::size_t size() const { return bookmarks_.size(); }
    // Bookmarks whose exact position is known and still holds at `version`.
    std::size_t counted(const TableVersion& version) const;
    // How the planner found them and how they were calibrated, for logs and the pages' `how`.
    const std::string& method() const { return method_; }
    // The table's version when they were placed: a later one means rows were added or removed since.
    const TableVersion& placed_at() const { return placed_at_; }
    // Whether these hold exact positions that `other`, a copy of the same placement, lacks: of more
    // bookmarks at the same table version, or of a later version.
    bool counts_more_than(const PageBookmarks& other) const;

private:
    struct Bookmark {
        std::optional<KeyPart> value;  // the first sort column's value; none for the list's start
        std::uint64_t estimate = 0;    // its position by the planner's estimates
    };
    // Counts the rows between bookmark i and i + 1 for each i in [first, last), in the list's order.
    std::vector<std::uint64_t> count_gaps(mysql::Connection& connection, std::size_t first, std::size_t last);
    // One statement counting gaps [begin, end).
    std::vector<std::uint64_t> count_statement(mysql::Connection& connection, std::size_t begin, std::size_t end) const;
    // Appends the exact positions of bookmarks up to `last` (inclusive).
    void count_to(mysql::Connection& connection, std::size_t last);
    bool counts_hold(const TableVersion& version) const;
    std::uint64_t estimated_position(std::size_t i) const;
    SqlFragment from(std::size_t i) const;

    std::string table_;        // quoted
    std::string lead_;         // the first sort column, quoted
    std::string placeholder_;  // its placeholder
    bool descending_ = false;  // the first sort column's direction
    std::vector<Bookmark> bookmarks_;  // in the list's order; the first is its start
    std::uint64_t estimated_total_ = 0;
    std::vector<std::uint64_t> counted_;     // exact positions of bookmarks_[0, counted_.size())
    std::optional<std::int64_t> counted_at_;  // the table's UPDATE_TIME they hold for; nullopt: none kept
    double scale_ = 1;  // exact / estimated position at the deepest bookmark counted
    std::string method_;
    TableVersion placed_at_;
    // The second session of counts; null until one is needed, and in a copy.
    struct OwnSession {
        std::unique_ptr<mysql::Connection> connection;
        OwnSession() = default;
        OwnSession(const OwnSession&) {}
        OwnSession& operator=(const OwnSession&) {
            connection.reset();
            return *this;
        }
        OwnSession(OwnSession&&) noexcept = default;
        OwnSession& operator=(OwnSession&&) noexcept = default;
    };
    OwnSession helper_;
};

}  // namespace rowpump
