#pragma once
// Index-only queries on a plan's paging key, used to place partition boundaries and midpoints. They see
// exactly the rows the plan's main pass reads: the user's filter applies and NULL keys are left out (the
// reader's separate NULL pass reads those). Each query selects only key columns, so an index on the key
// covers it, and rows are located by position in key order; the server does every comparison.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "paging/key_predicate.hpp"
#include "paging/page_sql.hpp"
#include "rowpump/reader.hpp"

namespace rowpump {

class KeyIndex {
public:
    // Keeps references: the connection and the plan must outlive the KeyIndex.
    KeyIndex(mysql::Connection& connection, const ReadPlan& plan);

    // The key `offset` rows after the first key within `bounds`, in key order (offset 0: the first key);
    // nullopt when there are not that many. Scans `offset` index entries: callers keep it bounded.
    std::optional<KeyValue> nth(const PageBounds& bounds, std::uint64_t offset);
    // The last key within `bounds`: one descent from the index's high end.
    std::optional<KeyValue> last(const PageBounds& bounds);
    // The rows within `bounds`, counting no further than `limit` (a bounded scan when one is given).
    std::uint64_t count(const PageBounds& bounds, std::optional<std::uint64_t> limit = std::nullopt);
    // The optimizer's estimate of the rows within `bounds` (EXPLAIN: index dives, no scan), scaled by its
    // `filtered` percentage where the server reports one.
    std::uint64_t estimate(const PageBounds& bounds);
    // The table's row count from its statistics (information_schema.TABLES.TABLE_ROWS), filter ignored.
    std::uint64_t table_rows_estimate();

    // The same, for the rows whose key's first column is in [from, before) (nullopt: open), for planners
    // that cut the key's span on its first column alone.
    std::uint64_t estimate_leading(const std::optional<KeyPart>& from, const std::optional<KeyPart>& before);
    // The estimates of many such spans at once, in their order: one EXPLAIN for up to
    // `estimates_per_explain` of them.
    static constexpr std::size_t estimates_per_explain = 64;
    struct LeadingSpan {
        std::optional<KeyPart> from;
        std::optional<KeyPart> before;
    };
    std::vector<std::uint64_t> estimate_leading(const std::vector<LeadingSpan>& spans);
    std::uint64_t count_leading(const std::optional<KeyPart>& from, const std::optional<KeyPart>& before,
                                std::uint64_t limit);
    // The counts of many spans, each no further than `limit`, in their order: one query for up to 32.
    std::vector<std::uint64_t> count_leading(const std::vector<LeadingSpan>& spans, std::uint64_t limit);
    // For each of `from`, the first key whose first column is at least it (nullopt when there is none), in
    // their order: one statement for up to `estimates_per_explain` of them (a round trip each was most
    // of a plan's cost when it placed a thousand boundaries).
    std::vector<std::optional<KeyValue>> first_from_leading(const std::vector<KeyPart>& from);
    // For a text first column: each of `characters` ranked as the column's collation orders them (0 the
    // lowest; characters it deems equal, such as 'a' and 'A' case-insensitively, share a rank). The server
    // sorts them: rowpump never compares text itself. Empty for a column with no collation.
    std::vector<std::size_t> rank_leading_characters(const std::vector<std::string>& characters);

    const std::vector<Column>& columns() const { return columns_; }
    // How many EXPLAIN statements the estimates have sent so far, batched or one span each.
    std::size_t explains_sent() const { return explains_sent_; }

private:
    SqlFragment rows_read() const;  // the filter and the key's NOT NULLs: the rows the main pass reads
    SqlFragment conditions(const PageBounds& bounds) const;
    SqlFragment leading_conditions(const std::optional<KeyPart>& from, const std::optional<KeyPart>& before) const;
    std::optional<KeyValue> single_key(const std::string& order, SqlFragment where, std::uint64_t offset);
    std::uint64_t count_where(SqlFragment where, std::optional<std::uint64_t> limit);
    std::uint64_t estimate_where(const SqlFragment& where);
    // EXPLAIN's rows for its row, scaled by `filtered` where the server reports it; 0 for a NULL
    // ("Impossible WHERE": nothing there).
    static std::uint64_t estimated_rows(const mysql::Rows& explained);

    mysql::Connection& connection_;
    const ReadPlan& plan_;
    std::vector<Column> columns_;
    KeyExpression key_;
    std::string select_list_;  // the key columns as select_expression() reads them exactly
    std::size_t explains_sent_ = 0;
};

}  // namespace rowpump
