#pragma once
// The SQL of one page for each paging strategy. Pure string building: no connection here, so every
// statement can be checked by unit tests and shown by `explain`.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "paging/key_predicate.hpp"
#include "rowpump/reader.hpp"

namespace rowpump {

// Rows whose key has a NULL are read in their own pass, paged by the primary key.
enum class Pass { null_keys, main };

struct PageBounds {
    std::optional<KeyValue> after;  // lower bound
    bool after_inclusive = false;   // true for a range's own start, false after a page's last key
    std::optional<KeyValue> before; // exclusive upper bound
};

// Whether a reader of `range` starts with the NULL-key pass: the range that starts at the table's start
// reads those rows.
bool has_null_key_pass(const ReadPlan& plan, const KeyRange& range);
// The bounds of a pass's first page in `range`: the NULL-key pass reads every NULL-key row, the main pass
// starts at the range's own start.
PageBounds first_page_bounds(Pass pass, const KeyRange& range);

class PageSql {
public:
    explicit PageSql(const ReadPlan& plan);

    // What each page row carries: the plan's columns, the computed values, then any key column they lack.
    const std::vector<Column>& select_columns() const { return select_columns_; }
    // Where each column of the pass's key sits in select_columns().
    const std::vector<std::size_t>& key_positions(Pass pass) const;
    const std::vector<Column>& key_columns(Pass pass) const;

    // The query of a page of `pass` under the plan's strategy (for id-in its phase 1, the keys); the NULL-key
    // pass is always keyset: it is usually small, and no other strategy adds anything there.
    SqlFragment page(Pass pass, const PageBounds& bounds, std::size_t limit, std::uint64_t skip) const;

    // SELECT cols FROM t WHERE filter AND bounds ORDER BY key LIMIT ?
    SqlFragment keyset(Pass pass, const PageBounds& bounds, std::size_t limit) const;
    // SELECT cols FROM t JOIN (SELECT key FROM t WHERE ... ORDER BY key LIMIT ?) page ON key ORDER BY key
    SqlFragment deferred_join(Pass pass, const PageBounds& bounds, std::size_t limit) const;
    // id-in, phase 1: SELECT key FROM t WHERE ... ORDER BY key LIMIT ?
    SqlFragment keys_only(Pass pass, const PageBounds& bounds, std::size_t limit) const;
    // id-in, phase 2: SELECT cols FROM t WHERE key IN (...) AND (filter) ORDER BY key, or, when phase 1
    // had no filter, SELECT cols FROM t WHERE key >= first AND key <= last ORDER BY key (no list).
    // `keys` are phase 1's, in key order.
    SqlFragment rows_with_keys(Pass pass, const std::vector<KeyValue>& keys) const;
    // Phase 2 as the reader sends it: where the keys go in a list, as many statements as keep each list
    // within `max_list_bytes` of key values, in key order; otherwise the one statement.
    std::vector<SqlFragment> rows_with_keys_in_statements(Pass pass, const std::vector<KeyValue>& keys,
                                                          std::size_t max_list_bytes = max_key_list_bytes) const;
    // A page of long keys in one list could pass the server's max_allowed_packet (16 MB on MariaDB, 4 MB
    // on MySQL 5.7), and the server then closes the session. A megabyte of values, escaped and framed,
    // stays under any default.
    static constexpr std::size_t max_key_list_bytes = std::size_t{1} << 20;
    // SELECT cols FROM t WHERE filter AND bounds ORDER BY key LIMIT ? OFFSET ?
    SqlFragment offset(Pass pass, const PageBounds& bounds, std::size_t limit, std::uint64_t skip) const;

private:
    // Phase 2 reads the span between phase 1's first and last keys (no filter: they are every key there)
    // rather than a list of them.
    bool reads_span_of_keys(Pass pass) const { return pass == Pass::main && where_.empty(); }
    struct PassKey {
        std::vector<Column> columns;
        KeyExpression bare;
        KeyExpression qualified;  // as rp_t.`col`, for the deferred join
        std::vector<std::size_t> positions;
    };
    const PassKey& key(Pass pass) const { return pass == Pass::main ? main_key_ : null_pass_key_; }
    SqlFragment conditions(Pass pass, const PageBounds& bounds) const;
    const std::string& table_for(Pass pass) const;
    std::string select_list(const std::string& qualifier) const;

    PagingStrategy strategy_;
    std::string table_;
    std::string paged_table_;  // table_ FORCE INDEX (the key's index), for every query that pages by the key
    std::string where_;
    std::string null_key_condition_;      // (a IS NULL OR b IS NULL); empty when the key is NOT NULL
    std::vector<Column> select_columns_;
    std::vector<std::string> computed_expressions_;  // per select column: "" or its ComputedColumn::expression
    PassKey main_key_;
    PassKey null_pass_key_;
};

}  // namespace rowpump
