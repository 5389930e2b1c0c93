#pragma once
// One page: a bounded batch of rows in key order, plus the key of its last row. Values live in one
// buffer per page, so a page costs a few allocations however many rows it holds.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rowpump/key.hpp"

namespace ROWPUMP_EXPORT rowpump {

class Page {
public:
    explicit Page(std::size_t column_count = 0) : column_count_(column_count) {}

    // Empties the page for `column_count` columns, keeping its buffers: a page refilled this way costs no
    // allocation and no fresh memory for the kernel to fault in (PageReader::recycle).
    void reset(std::size_t column_count) {
        column_count_ = column_count;
        buffer_.clear();
        cells_.clear();
        last_key_.clear();
    }

    std::size_t column_count() const { return column_count_; }
    std::size_t row_count() const { return column_count_ ? cells_.size() / column_count_ : 0; }
    bool empty() const { return cells_.empty(); }

    // The value as the server sent it (see ColumnKind for the text of each type); nullopt for NULL.
    std::optional<std::string_view> value(std::size_t row, std::size_t column) const {
        const Cell& cell = cells_[row * column_count_ + column];
        if (cell.is_null) return std::nullopt;
        return std::string_view(buffer_).substr(cell.offset, cell.length);
    }

    // The key of the last row: reading resumes strictly after it.
    const KeyValue& last_key() const { return last_key_; }

    // Filled by the reader, one value at a time, row by row.
    void append(std::string_view value) {
        cells_.push_back({buffer_.size(), static_cast<std::uint32_t>(value.size()), false});
        buffer_.append(value);
    }
    void append_null() { cells_.push_back({buffer_.size(), 0, true}); }
    void set_last_key(KeyValue key) { last_key_ = std::move(key); }
    void reserve(std::size_t bytes, std::size_t cells) {
        buffer_.reserve(bytes);
        cells_.reserve(cells);
    }
    std::size_t byte_size() const { return buffer_.size(); }

private:
    struct Cell {
        std::size_t offset;
        std::uint32_t length;
        bool is_null;
    };
    std::size_t column_count_;
    std::string buffer_;
    std::vector<Cell> cells_;
    KeyValue last_key_;
};

}  // namespace rowpump
