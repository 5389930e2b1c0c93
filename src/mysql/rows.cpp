#include "mysql/rows.hpp"

#include <charconv>
#include <cstdlib>

#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

[[noreturn]] void bad_result(const std::string& message) { throw DbError(message, 0, "HY000", ""); }

const std::string& empty() {
    static const std::string none;
    return none;
}

template <class Number>
Number parse_whole(const std::string& text, std::size_t column) {
    Number value{};
    const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (status != std::errc() || end != text.data() + text.size())
        bad_result("column " + std::to_string(column) + " of a result holds '" + text +
                      "', not a whole number in range");
    return value;
}

}  // namespace

Rows::Rows(std::vector<std::string> labels, std::vector<Row> rows)
    : labels_(std::move(labels)), rows_(std::move(rows)) {}

bool Rows::next() {
    if (current_ > rows_.size()) return false;
    ++current_;
    return current_ <= rows_.size();
}

const std::string& Rows::label(std::size_t column) const {
    if (column == 0 || column > labels_.size())
        bad_result("a result of " + std::to_string(labels_.size()) + " columns has no column " +
                      std::to_string(column));
    return labels_[column - 1];
}

std::size_t Rows::column(std::string_view label) const {
    for (std::size_t i = 0; i < labels_.size(); ++i)
        if (labels_[i] == label) return i + 1;
    bad_result("a result has no column called '" + std::string(label) + "'");
}

const std::optional<std::string>& Rows::cell(std::size_t column) const {
    if (current_ == 0 || current_ > rows_.size()) bad_result("a result was read with no current row");
    label(column);  // checks the number
    return rows_[current_ - 1][column - 1];
}

bool Rows::is_null(std::size_t column) const { return !cell(column).has_value(); }

const std::string& Rows::text(std::size_t column) const {
    const auto& value = cell(column);
    return value ? *value : empty();
}

template <class Whole>
Whole Rows::whole(std::size_t column) const {
    const auto& value = cell(column);
    return value ? parse_whole<Whole>(*value, column) : Whole{0};
}

std::int64_t Rows::int64(std::size_t column) const { return whole<std::int64_t>(column); }
std::uint64_t Rows::uint64(std::size_t column) const { return whole<std::uint64_t>(column); }
std::int32_t Rows::int32(std::size_t column) const { return whole<std::int32_t>(column); }
std::uint32_t Rows::uint32(std::size_t column) const { return whole<std::uint32_t>(column); }

double Rows::real(std::size_t column) const {
    const auto& value = cell(column);
    if (!value) return 0;
    char* end = nullptr;
    const double parsed = std::strtod(value->c_str(), &end);
    if (value->empty() || end != value->c_str() + value->size())
        bad_result("column " + std::to_string(column) + " of a result holds '" + *value + "', not a number");
    return parsed;
}

}  // namespace rowpump::mysql
