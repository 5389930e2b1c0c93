#include "partition/key_index.hpp"


#include <algorithm>
#include <cctype>
#include <cmath>

#include "paging/select_expression.hpp"

namespace rowpump {

KeyIndex::KeyIndex(mysql::Connection& connection, const ReadPlan& plan)
    : connection_(connection), plan_(plan), columns_(plan.key_columns()), key_(KeyExpression::of(columns_)) {
    for (const auto& column : columns_) select_list_ += (select_list_.empty() ? "" : ", ") + select_expression(column);
}

SqlFragment KeyIndex::rows_read() const {
    SqlFragment out;
    if (!plan_.spec.where.empty()) out.and_also({"(" + plan_.spec.where + ")", {}});
    out.and_also(key_has_no_null(columns_));
    return out;
}

namespace {
SqlFragment or_true(SqlFragment where) {
    if (where.empty()) where.sql = "TRUE";
    return where;
}
// Calls `batch(first, count)` for consecutive batches of at most `per_batch` of `total` items.
template <typename Batch>
void in_batches(std::size_t total, std::size_t per_batch, Batch batch) {
    for (std::size_t first = 0; first < total; first += per_batch) batch(first, std::min(per_batch, total - first));
}
}  // namespace

SqlFragment KeyIndex::conditions(const PageBounds& bounds) const {
    SqlFragment out = rows_read();
    if (bounds.after) out.and_also(key_after(key_, *bounds.after, bounds.after_inclusive));
    if (bounds.before) out.and_also(key_before(key_, *bounds.before));
    return or_true(std::move(out));
}

SqlFragment KeyIndex::leading_conditions(const std::optional<KeyPart>& from,
                                         const std::optional<KeyPart>& before) const {
    SqlFragment out = rows_read();
    if (from) out.and_also({key_.columns[0] + " >= " + key_.placeholders[0], {*from}});
    if (before) out.and_also({key_.columns[0] + " < " + key_.placeholders[0], {*before}});
    return or_true(std::move(out));
}

std::optional<KeyValue> KeyIndex::single_key(const std::string& order, SqlFragment where, std::uint64_t offset) {
    std::string sql = "SELECT " + select_list_ + " FROM " + plan_.table.quoted_name() + " WHERE " + where.sql +
                      " ORDER BY " + order + " LIMIT 1 OFFSET ?";
    where.params.push_back(offset);
    return connection_.retrying([&]() -> std::optional<KeyValue> {
        auto result = connection_.query(sql, where.params);
        if (!result.next()) return std::nullopt;
        KeyValue key;
        for (std::size_t i = 0; i < columns_.size(); ++i)
            key.push_back(key_part_from_text(columns_[i], result.text(static_cast<std::uint32_t>(i + 1))));
        return key;
    });
}

std::optional<KeyValue> KeyIndex::nth(const PageBounds& bounds, std::uint64_t offset) {
    return single_key(column_list(key_), conditions(bounds), offset);
}

std::vector<std::optional<KeyValue>> KeyIndex::first_from_leading(const std::vector<KeyPart>& from) {
    std::vector<std::optional<KeyValue>> keys(from.size());
    in_batches(from.size(), estimates_per_explain, [&](std::size_t first, std::size_t count) {
        // A UNION ALL of the single-row lookups, each tagged with its place: each is planned alone, as a
        // descent of the index.
        std::string sql;
        std::vector<mysql::Param> params;
        for (std::size_t i = 0; i < count; ++i) {
            SqlFragment where = leading_conditions(from[first + i], std::nullopt);
            sql += (i ? " UNION ALL " : "") + std::string("(SELECT ? AS rp_i, ") + select_list_ + " FROM " +
                   plan_.table.quoted_name() + " WHERE " + where.sql + " ORDER BY " + column_list(key_) + " LIMIT 1)";
            params.emplace_back(static_cast<std::uint64_t>(first + i));
            params.insert(params.end(), where.params.begin(), where.params.end());
        }
        connection_.retrying([&] {
            auto result = connection_.query(sql, params);
            while (result.next()) {
                KeyValue key;
                for (std::size_t c = 0; c < columns_.size(); ++c)
                    key.push_back(key_part_from_text(columns_[c], result.text(static_cast<std::uint32_t>(c + 2))));
                keys.at(result.uint64(1)) = std::move(key);
            }
        });
    });
    return keys;
}

std::optional<KeyValue> KeyIndex::last(const PageBounds& bounds) {
    std::string descending;
    for (const auto& column : key_.columns) descending += (descending.empty() ? "" : ", ") + column + " DESC";
    return single_key(descending, conditions(bounds), 0);
}

std::uint64_t KeyIndex::count(const PageBounds& bounds, std::optional<std::uint64_t> limit) {
    return count_where(conditions(bounds), limit);
}

std::uint64_t KeyIndex::count_leading(const std::optional<KeyPart>& from, const std::optional<KeyPart>& before,
                                      std::uint64_t limit) {
    return count_where(leading_conditions(from, before), limit);
}

std::vector<std::uint64_t> KeyIndex::count_leading(const std::vector<LeadingSpan>& spans, std::uint64_t limit) {
    // One row of scalar subqueries, a count each, in the spans' order: a round trip per count was most of
    // a count's cost.
    std::vector<std::uint64_t> counts(spans.size(), 0);
    in_batches(spans.size(), 32, [&](std::size_t first, std::size_t count) {
        std::string sql = "SELECT ";
        std::vector<mysql::Param> params;
        for (std::size_t i = 0; i < count; ++i) {
            SqlFragment where = leading_conditions(spans[first + i].from, spans[first + i].before);
            sql += (i ? ", " : "") + std::string("(SELECT COUNT(*) FROM (SELECT 1 FROM ") + plan_.table.quoted_name() +
                   " WHERE " + where.sql + " LIMIT ?) AS rp_counted)";
            params.insert(params.end(), where.params.begin(), where.params.end());
            params.emplace_back(limit);
        }
        connection_.retrying([&] {
            auto result = connection_.query(sql, params);
            if (!result.next()) throw Error("bug: a row of counts came back empty");
            for (std::size_t i = 0; i < count; ++i) counts[first + i] = result.uint64(static_cast<std::uint32_t>(i + 1));
        });
    });
    return counts;
}

std::uint64_t KeyIndex::estimate_leading(const std::optional<KeyPart>& from, const std::optional<KeyPart>& before) {
    return estimate_where(leading_conditions(from, before));
}

std::uint64_t KeyIndex::count_where(SqlFragment where, std::optional<std::uint64_t> limit) {
    std::string sql;
    if (limit) {
        sql = "SELECT COUNT(*) FROM (SELECT 1 FROM " + plan_.table.quoted_name() + " WHERE " + where.sql +
              " LIMIT ?) AS rp_counted";
        where.params.push_back(*limit);
    } else {
        sql = "SELECT COUNT(*) FROM " + plan_.table.quoted_name() + " WHERE " + where.sql;
    }
    return connection_.retrying([&] {
        auto result = connection_.query(sql, where.params);
        result.next();
        return result.uint64(1);
    });
}

std::uint64_t KeyIndex::estimate(const PageBounds& bounds) { return estimate_where(conditions(bounds)); }

std::uint64_t KeyIndex::estimate_where(const SqlFragment& where) {
    const std::string sql = "EXPLAIN SELECT " + column_list(key_) + " FROM " + plan_.table.quoted_name() +
                            " WHERE " + where.sql;
    return connection_.retrying([&]() -> std::uint64_t {
        auto result = connection_.query(sql, where.params);
        ++explains_sent_;
        return result.next() ? estimated_rows(result) : 0;
    });
}

std::uint64_t KeyIndex::estimated_rows(const mysql::Rows& explained) {
    // MariaDB reports "Impossible WHERE" with NULL rows: nothing there.
    const auto rows_column = explained.column("rows");
    if (explained.is_null(rows_column)) return 0;
    const auto rows = explained.uint64(rows_column);
    // MySQL 8 has `filtered` (the percentage of examined rows the conditions keep); MariaDB's plain
    // EXPLAIN does not, and then the examined rows are the estimate.
    for (std::size_t i = 1; i <= explained.column_count(); ++i)
        if (explained.label(i) == "filtered" && !explained.is_null(i))
            return static_cast<std::uint64_t>(std::llround(static_cast<double>(rows) * explained.real(i) / 100.0));
    return rows;
}

std::vector<std::uint64_t> KeyIndex::estimate_leading(const std::vector<LeadingSpan>& spans) {
    // The optimizer plans each SELECT of a UNION on its own, so EXPLAIN gives each the estimate it would
    // get alone, one row per SELECT numbered by its place (`id`). A round trip costs more than the two
    // index dives of an estimate: a plan's hundred-odd estimates took a hundred-odd of them.
    std::vector<std::uint64_t> estimates(spans.size(), 0);
    const auto each_alone = [&](std::size_t first, std::size_t count) {
        for (std::size_t i = first; i < first + count; ++i)
            estimates[i] = estimate_leading(spans[i].from, spans[i].before);
    };
    // A --where may hold subqueries, which take ids of their own (and a semi-join shares its member's),
    // so the rows of a UNION would not map onto its SELECTs: each span is asked alone.
    if (!plan_.spec.where.empty()) {
        each_alone(0, spans.size());
        return estimates;
    }
    in_batches(spans.size(), estimates_per_explain, [&](std::size_t first, std::size_t count) {
        std::string sql = "EXPLAIN ";
        std::vector<mysql::Param> params;
        for (std::size_t i = 0; i < count; ++i) {
            SqlFragment where = leading_conditions(spans[first + i].from, spans[first + i].before);
            sql += (i ? " UNION ALL SELECT " : "SELECT ") + column_list(key_) + " FROM " + plan_.table.quoted_name() +
                   " WHERE " + where.sql;
            params.insert(params.end(), where.params.begin(), where.params.end());
        }
        const bool one_row_per_select = connection_.retrying([&] {
            auto result = connection_.query(sql, params);
            ++explains_sent_;
            const auto id_column = result.column("id");
            std::vector<bool> seen(count, false);
            while (result.next()) {
                if (result.is_null(id_column)) continue;  // a UNION RESULT row, where a server shows one
                const std::uint64_t select = result.uint64(id_column);
                // Not one row per SELECT numbered 1..count (a view that joins tables shows a row for each):
                // these rows cannot be told apart.
                if (select < 1 || select > count || seen[select - 1]) return false;
                seen[select - 1] = true;
                estimates[first + select - 1] = estimated_rows(result);
            }
            return true;
        });
        if (!one_row_per_select) each_alone(first, count);
    });
    return estimates;
}

std::vector<std::size_t> KeyIndex::rank_leading_characters(const std::vector<std::string>& characters) {
    if (characters.empty()) return {};
    return connection_.retrying([&]() -> std::vector<std::size_t> {
        auto collation = connection_.query(
            "SELECT CHARACTER_SET_NAME, COLLATION_NAME FROM information_schema.COLUMNS "
            "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?",
            {plan_.table.schema, plan_.table.name, columns_[0].name});
        if (!collation.next() || collation.is_null(1) || collation.is_null(2)) return {};
        // Names from the server's own catalogue, checked anyway before they become SQL.
        const auto is_name = [](const std::string& name) {
            return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
                return std::isalnum(c) || c == '_';
            });
        };
        const std::string charset = collation.text(1);
        const std::string collate = collation.text(2);
        if (!is_name(charset) || !is_name(collate)) return {};
        std::string sql = "SELECT rp_i, DENSE_RANK() OVER (ORDER BY rp_c) FROM (";
        std::vector<mysql::Param> params;
        for (std::size_t i = 0; i < characters.size(); ++i) {
            sql += (i ? " UNION ALL " : "") + std::string("SELECT ? AS rp_i, CONVERT(? USING ") + charset +
                   ") COLLATE " + collate + " AS rp_c";
            params.emplace_back(static_cast<std::uint64_t>(i));
            params.emplace_back(characters[i]);
        }
        sql += ") AS rp_characters";
        auto result = connection_.query(sql, params);
        std::vector<std::size_t> ranks(characters.size(), 0);
        while (result.next()) ranks.at(result.uint64(1)) = result.uint64(2) - 1;
        return ranks;
    });
}

std::uint64_t KeyIndex::table_rows_estimate() {
    return connection_.retrying([&]() -> std::uint64_t {
        auto result = connection_.query(
            "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            {plan_.table.schema, plan_.table.name});
        if (!result.next() || result.is_null(1)) return 0;
        return result.uint64(1);
    });
}

}  // namespace rowpump
