#include "cursor/sort_order.hpp"

#include <algorithm>
#include <cctype>

#include "crypto/hmac.hpp"

namespace rowpump {

namespace {

std::string trimmed(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return std::string(text);
}

std::string upper(std::string text) {
    for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

bool contains(const std::vector<Column>& columns, const std::string& name) {
    return std::any_of(columns.begin(), columns.end(), [&](const Column& c) { return c.name == name; });
}

// Length-prefixed, so that no two different queries describe alike ("a,b" + "c" against "a" + "b,c").
void add_field(std::string& out, const std::string& field) { out += std::to_string(field.size()) + ":" + field; }

}  // namespace

std::vector<SortColumn> parse_sort(const std::string& text) {
    std::vector<SortColumn> sort;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = trimmed(std::string_view(text).substr(at, comma - at));
        at = comma + 1;
        const std::size_t space = item.find_first_of(" \t");
        SortColumn column{item.substr(0, space), SortDirection::ascending};
        const std::string direction = space == std::string::npos ? "" : upper(trimmed(item.substr(space)));
        if (column.column.empty())
            throw UsageError("--sort '" + text + "': an empty column; write columns with ASC or DESC, e.g. 'created_at DESC, id DESC'");
        if (direction == "DESC")
            column.direction = SortDirection::descending;
        else if (!direction.empty() && direction != "ASC")
            throw UsageError("--sort '" + text + "': '" + item + "' is not COLUMN [ASC|DESC]");
        sort.push_back(column);
    }
    return sort;
}

std::vector<SortDirection> SortOrder::reversed() const {
    std::vector<SortDirection> out;
    for (const auto d : directions)
        out.push_back(d == SortDirection::ascending ? SortDirection::descending : SortDirection::ascending);
    return out;
}

SortOrder check_sort(const TableInfo& table, const std::vector<SortColumn>& sort) {
    if (sort.empty()) throw UsageError("a cursor needs sort columns that end in a unique key, e.g. 'created_at DESC, id DESC'");
    SortOrder order;
    for (const auto& item : sort) {
        const Column& column = table.column(item.column);
        if (contains(order.columns, column.name)) throw UsageError("the sort names `" + column.name + "` twice");
        if (column.nullable)
            throw UsageError("the sort column `" + column.name +
                             "` admits NULL; a cursor sorts only by NOT NULL columns (a NULL has no place between values)");
        order.columns.push_back(column);
        order.directions.push_back(item.direction);
    }
    const bool unique = std::any_of(table.indexes.begin(), table.indexes.end(), [&](const Index& index) {
        return index.unique && std::all_of(index.columns.begin(), index.columns.end(),
                                           [&](const std::string& name) { return contains(order.columns, name); });
    });
    if (!unique)
        throw UsageError("the sort of " + table.quoted_name() +
                         " is not unique: add the columns of its primary key (or of another unique index) at its end, "
                         "e.g. 'created_at DESC, id DESC'");
    order.bare = KeyExpression::of(order.columns);
    order.qualified = KeyExpression::of(order.columns, "rp_t");
    return order;
}

std::string order_by(const KeyExpression& key, const std::vector<SortDirection>& directions) {
    std::string out;
    for (std::size_t i = 0; i < key.columns.size(); ++i)
        out += (i ? ", " : "") + key.columns[i] + (directions[i] == SortDirection::ascending ? " ASC" : " DESC");
    return out;
}

std::string query_fingerprint(const TableInfo& table, const CursorSpec& spec) {
    std::string description;
    add_field(description, table.schema);
    add_field(description, table.name);
    for (const auto& s : spec.sort) add_field(description, s.column + (s.direction == SortDirection::ascending ? " A" : " D"));
    description += "|";
    for (const auto& c : spec.columns) add_field(description, c);
    description += "|";
    for (const auto& [column, value] : spec.equals) {
        add_field(description, column);
        add_field(description, value);
    }
    const crypto::Digest digest = crypto::sha256(description);
    return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

}  // namespace rowpump
