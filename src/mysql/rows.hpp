#pragma once
// A control-plane query's whole result, copied out of the driver, so that nothing outside src/mysql sees a
// driver type or getter. These statements (introspection, claims, the job store) return a handful of rows:
// each cell is kept in the server's text form, or as NULL. The page reader has its own, copy-free path
// (stream_connection.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump::mysql {

class Rows {
public:
    using Row = std::vector<std::optional<std::string>>;

    Rows() = default;
    Rows(std::vector<std::string> labels, std::vector<Row> rows);

    // Moves to the next row: false after the last. A new result stands before its first row, as a SQL
    // cursor does, so `while (rows.next())` visits every row.
    bool next();
    std::size_t size() const { return rows_.size(); }
    std::size_t column_count() const { return labels_.size(); }

    // Columns count from 1, as in SQL (`ORDER BY 1`) and in the statements that name them.
    const std::string& label(std::size_t column) const;
    // The number of the column called `label`; throws DbError when the result has none.
    std::size_t column(std::string_view label) const;

    // The current row's cells. NULL reads as "" and 0; a cell that is not a number throws DbError.
    bool is_null(std::size_t column) const;
    const std::string& text(std::size_t column) const;
    std::int64_t int64(std::size_t column) const;
    std::uint64_t uint64(std::size_t column) const;
    std::int32_t int32(std::size_t column) const;
    std::uint32_t uint32(std::size_t column) const;
    double real(std::size_t column) const;

private:
    const std::optional<std::string>& cell(std::size_t column) const;
    template <class Whole>
    Whole whole(std::size_t column) const;

    std::vector<std::string> labels_;
    std::vector<Row> rows_;
    std::size_t current_ = 0;  // 1 + the index of the current row; 0 before the first
};

}  // namespace rowpump::mysql
