#pragma once
// Bookmarks for the approximate jump: places in a cursor's sort, each a value of its first column with
// the list's position where that value's rows begin, from the balanced planner's index estimates
// (partition/estimated.cpp: EXPLAIN's dives, corrected by a few exact counts and scaled to the table's
// statistics). No row is counted from the list's start: a jump lands on the bookmark at or before the
// position it wants and walks the rest exactly in the sort's index, at most a bookmark's span.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cursor/sort_order.hpp"
#include "mysql/connection.hpp"

namespace rowpump {

class PageBookmarks {
public:
    // Rows between two bookmarks, at most (by estimate): the walk a jump may take past its bookmark.
    static constexpr std::uint64_t span_rows = 16'384;
    static constexpr std::size_t max_bookmarks = 1024;

    // nullopt when the estimates cannot place them: a filter (estimates do not see it), a first sort
    // column the planner has no axis for (not an integer, date, time or collated text), or one value of
    // it holding too many rows to place a bookmark within.
    static std::optional<PageBookmarks> build(mysql::Connection& connection, const TableInfo& table,
                                              const SortOrder& order, bool filtered);

    struct Landing {
        SqlFragment from;       // the rows from the bookmark on, in the sort's order; empty: the list's start
        std::uint64_t position = 0;  // where they begin in the list (0: its first row), by estimate
    };
    // The last bookmark at or before `position`.
    Landing at_or_before(std::uint64_t position) const;
    // The list's rows, by estimate.
    std::uint64_t total_rows() const { return total_rows_; }
    std::size_t size() const { return landings_.size(); }
    // How the planner found them, for logs ("index estimates (641 in 11 EXPLAINs), corrected by ...").
    const std::string& method() const { return method_; }

private:
    std::vector<Landing> landings_;  // by position; the first is the list's start
    std::uint64_t total_rows_ = 0;
    std::string method_;
};

}  // namespace rowpump
