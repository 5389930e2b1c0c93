// The cursor's "after this row" condition for every mix of directions, checked two ways: its text for
// the cases a reader can follow, and its meaning, by evaluating the SQL it writes over every row of a
// small grid and comparing with the sort's own order.
#include "cursor/cursor_predicate.hpp"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "test_columns.hpp"

namespace rowpump {
namespace {

using test::column;
constexpr auto asc = SortDirection::ascending;
constexpr auto desc = SortDirection::descending;

KeyExpression key_of(std::size_t n) {
    std::vector<Column> columns;
    for (std::size_t i = 0; i < n; ++i) columns.push_back(column(std::string(1, static_cast<char>('a' + i)), ColumnKind::signed_integer));
    return KeyExpression::of(columns);
}

// Evaluates the grammar sort_after writes: comparisons `c` OP ?, AND, OR and parentheses, with the
// placeholders taken in order and the row's values by column name.
class Evaluator {
public:
    Evaluator(const SqlFragment& fragment, std::map<std::string, std::int64_t> row) : row_(std::move(row)) {
        std::istringstream in(fragment.sql);
        std::string word;
        while (in >> word) {
            // Split parentheses off the words.
            std::size_t start = 0;
            while (start < word.size() && word[start] == '(') tokens_.push_back("("), ++start;
            std::size_t end = word.size();
            std::size_t closing = 0;
            while (end > start && word[end - 1] == ')') --end, ++closing;
            if (end > start) tokens_.push_back(word.substr(start, end - start));
            for (std::size_t i = 0; i < closing; ++i) tokens_.push_back(")");
        }
        for (const auto& p : fragment.params) params_.push_back(std::get<std::int64_t>(p));
    }
    bool value() {
        const bool v = disjunction();
        EXPECT_EQ(at_, tokens_.size()) << "unparsed SQL";
        EXPECT_EQ(param_, params_.size()) << "unused parameters";
        return v;
    }

private:
    bool disjunction() {
        bool v = conjunction();
        while (at_ < tokens_.size() && tokens_[at_] == "OR") ++at_, v = conjunction() || v;
        return v;
    }
    bool conjunction() {
        bool v = primary();
        while (at_ < tokens_.size() && tokens_[at_] == "AND") ++at_, v = primary() && v;
        return v;
    }
    bool primary() {
        if (tokens_[at_] == "(") {
            ++at_;
            const bool v = disjunction();
            EXPECT_EQ(tokens_[at_], ")");
            ++at_;
            return v;
        }
        const std::int64_t left = row_.at(tokens_[at_]);
        const std::string op = tokens_[at_ + 1];
        EXPECT_EQ(tokens_[at_ + 2], "?");
        at_ += 3;
        const std::int64_t right = params_.at(param_++);
        if (op == ">") return left > right;
        if (op == "<") return left < right;
        if (op == ">=") return left >= right;
        if (op == "<=") return left <= right;
        EXPECT_EQ(op, "=");
        return left == right;
    }
    std::map<std::string, std::int64_t> row_;
    std::vector<std::string> tokens_;
    std::vector<std::int64_t> params_;
    std::size_t at_ = 0;
    std::size_t param_ = 0;
};

// Whether `row` comes strictly after `from` in the sort `directions`.
bool sorts_after(const std::vector<std::int64_t>& row, const std::vector<std::int64_t>& from,
                 const std::vector<SortDirection>& directions) {
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (row[i] == from[i]) continue;
        return directions[i] == asc ? row[i] > from[i] : row[i] < from[i];
    }
    return false;
}

std::vector<std::vector<std::int64_t>> grid(std::size_t n) {
    std::vector<std::vector<std::int64_t>> rows{{}};
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<std::vector<std::int64_t>> longer;
        for (const auto& row : rows)
            for (std::int64_t v = 0; v < 3; ++v) {
                auto r = row;
                r.push_back(v);
                longer.push_back(r);
            }
        rows = longer;
    }
    return rows;
}

TEST(CursorPredicate, MixedDirectionsReadAsExpandedOr) {
    const auto sql = sort_after(key_of(2), {asc, desc}, {std::int64_t{1}, std::int64_t{2}}).sql;
    EXPECT_EQ(sql, "`a` >= ? AND (`a` > ? OR (`a` = ? AND (`b` < ?)))");
    EXPECT_EQ(sort_after(key_of(2), {desc, desc}, {std::int64_t{1}, std::int64_t{2}}).sql,
              "`a` <= ? AND (`a` < ? OR (`a` = ? AND (`b` < ?)))");
    EXPECT_EQ(sort_after(key_of(1), {desc}, {std::int64_t{1}}).sql, "`a` < ?");
}

TEST(CursorPredicate, AllAscendingIsThePagingKeysOwnCondition) {
    const KeyValue value{std::int64_t{4}, std::int64_t{5}, std::int64_t{6}};
    EXPECT_EQ(sort_after(key_of(3), {asc, asc, asc}, value).sql, key_after(key_of(3), value, false).sql);
}

TEST(CursorPredicate, EveryDirectionMixSelectsExactlyTheRowsAfter) {
    for (std::size_t n = 1; n <= 3; ++n) {
        const auto rows = grid(n);
        for (unsigned mix = 0; mix < (1u << n); ++mix) {
            std::vector<SortDirection> directions;
            for (std::size_t i = 0; i < n; ++i) directions.push_back(mix >> i & 1 ? desc : asc);
            for (const auto& from : rows) {
                KeyValue value(from.begin(), from.end());
                const SqlFragment condition = sort_after(key_of(n), directions, value);
                for (const auto& row : rows) {
                    std::map<std::string, std::int64_t> named;
                    for (std::size_t i = 0; i < n; ++i) named[std::string("`") + static_cast<char>('a' + i) + "`"] = row[i];
                    ASSERT_EQ(Evaluator(condition, named).value(), sorts_after(row, from, directions))
                        << condition.sql << " n=" << n << " mix=" << mix;
                }
            }
        }
    }
}

TEST(CursorPredicate, AValueOfAnotherArityIsRefused) {
    EXPECT_THROW(sort_after(key_of(2), {asc, asc}, {std::int64_t{1}}), UsageError);
}

}  // namespace
}  // namespace rowpump
