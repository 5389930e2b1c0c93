#include "rowpump/cursor.hpp"

#include <algorithm>

#include "cursor/bookmark_shelf.hpp"
#include "cursor/cursor_sql.hpp"
#include "cursor/cursor_token.hpp"
#include "cursor/page_bookmarks.hpp"
#include "cursor/table_version.hpp"
#include "mysql/connection.hpp"

namespace rowpump {

namespace {

using Edge = TokenContent::Edge;

// Large enough for any screen, small enough that a page is one quick statement.
constexpr std::size_t max_page_size = 10'000;

void check_size(std::size_t size) {
    if (size < 1 || size > max_page_size)
        throw UsageError("a page size is 1 to " + std::to_string(max_page_size) + ", not " + std::to_string(size));
}

}  // namespace

std::string to_string(PageMethod method) {
    switch (method) {
        case PageMethod::exact_jump: return "exact";
        case PageMethod::approximate_jump: return "approximate";
        case PageMethod::keyset: break;
    }
    return "keyset";
}

struct Cursor::Impl {
    Impl(const MySqlOptions& mysql, CursorSpec spec, CursorKeys keys)
        : table(describe_table(mysql, spec.table)),
          sql(table, spec, check_sort(table, spec.sort)),
          signer(std::move(keys), query_fingerprint(table, spec), sql.order().columns),
          connection(mysql),
          shelf_key(bookmark_shelf_key(mysql, table, spec)) {}

    TableInfo table;
    CursorSql sql;
    TokenSigner signer;
    mysql::Connection connection;
    std::string shelf_key;
    std::optional<HeldBookmarks> held;  // nullopt: not taken yet
    bool placed_for_this_jump = false;

    // This Cursor's bookmarks while they are fresh (bookmark_shelf.hpp), else the shelf's for this query,
    // else placed now and shelved. nullopt: the estimates cannot place them.
    std::optional<PageBookmarks>& current_bookmarks(const TableVersion& version) {
        auto& shelf = BookmarkShelf::process();
        placed_for_this_jump = false;
        if (!held || !shelf.fresh(*held, version)) {
            held = shelf.take(shelf_key, version,
                              [&] { return PageBookmarks::build(connection, table, sql.order(), sql.filtered()); });
            placed_for_this_jump = held->placed_here;
        }
        return held->bookmarks;
    }

    // Whose bookmarks a jump used, for its `how`: whether this request paid for placing them.
    std::string bookmarks_origin() const {
        if (placed_for_this_jump) return "bookmarks placed for this jump";
        return held->placed_here ? "bookmarks placed earlier by this Cursor" : "bookmarks placed by another Cursor of this query";
    }

    // The page at `position`, walked from `landing`.
    CursorPage jump_from(const PageBookmarks::Landing& landing, std::uint64_t position, std::uint64_t number,
                         std::size_t size, std::vector<KeyValue>& keys) {
        CursorPage out;
        out.rows = Page(sql.select_columns().size());
        out.page_number = number;
        bool more = false;
        keys = read(sql.jump(position - landing.position, size + 1, landing.from), size, false, &out.rows, more);
        out.has_next_page = more;
        return out;
    }

    // The sort values of each row of `rows`, and the rows into `page`, `reverse`d for a backward read.
    std::vector<KeyValue> read(const SqlFragment& statement, std::size_t keep, bool reverse, Page* page,
                               bool& more) {
        mysql::Rows rows = connection.query(statement.sql, statement.params);
        more = rows.size() > keep;
        std::vector<mysql::Rows::Row> kept;
        std::vector<KeyValue> keys;
        const auto& columns = page ? sql.select_columns() : sql.order().columns;
        while (rows.next() && keys.size() < keep) {
            mysql::Rows::Row row;
            for (std::size_t c = 1; c <= columns.size(); ++c)
                row.push_back(rows.is_null(c) ? std::nullopt : std::optional<std::string>(rows.text(c)));
            KeyValue key;
            for (std::size_t i = 0; i < sql.order().columns.size(); ++i) {
                const std::size_t at = page ? sql.sort_positions()[i] : i;
                key.push_back(key_part_from_text(sql.order().columns[i], *row[at]));
            }
            keys.push_back(std::move(key));
            kept.push_back(std::move(row));
        }
        if (reverse) {
            std::reverse(kept.begin(), kept.end());
            std::reverse(keys.begin(), keys.end());
        }
        if (page)
            for (const auto& row : kept)
                for (const auto& cell : row) cell ? page->append(*cell) : page->append_null();
        return keys;
    }

    bool any_past(bool backward, const KeyValue& from) {
        const SqlFragment statement = sql.exists(backward, from);
        return connection.query(statement.sql, statement.params).size() > 0;
    }

    std::string token(Edge edge, std::uint64_t page_number, const KeyValue& values) const {
        return signer.encode({edge, page_number, values});
    }

    CursorPage finish(CursorPage out, const std::vector<KeyValue>& keys) const {
        out.columns = sql.select_columns();
        if (!keys.empty()) {
            out.start_cursor = token(Edge::start, out.page_number, keys.front());
            out.end_cursor = token(Edge::end, out.page_number, keys.back());
        }
        return out;
    }
};

Cursor::Cursor(const MySqlOptions& mysql, CursorSpec spec, CursorKeys keys)
    : impl_(std::make_unique<Impl>(mysql, std::move(spec), std::move(keys))) {}
Cursor::~Cursor() = default;
Cursor::Cursor(Cursor&&) noexcept = default;
Cursor& Cursor::operator=(Cursor&&) noexcept = default;

CursorPage Cursor::page(const PageRequest& request) {
    check_size(request.size);
    using From = PageRequest::From;
    const bool backward = request.from == From::last || request.from == From::before;
    std::optional<TokenContent> from;
    if (request.from == From::after || request.from == From::before) from = impl_->signer.decode(request.token);

    CursorPage out;
    out.rows = Page(impl_->sql.select_columns().size());
    bool more = false;
    const auto keys = impl_->read(impl_->sql.page(backward, from ? std::optional(from->values) : std::nullopt, request.size + 1),
                                  request.size, backward, &out.rows, more);
    // Relay: has_next_page for first/after, has_previous_page for last/before; the other is asked of the
    // index past this page's edge (one single-row lookup), where Relay allows a plain false.
    if (!backward) {
        out.has_next_page = more;
        out.has_previous_page = from && impl_->any_past(true, keys.empty() ? from->values : keys.front());
    } else {
        out.has_previous_page = more;
        out.has_next_page = from && impl_->any_past(false, keys.empty() ? from->values : keys.back());
    }
    // A page's number is known when it follows on from a page of known number at the right edge.
    if (request.from == From::first)
        out.page_number = 1;
    else if (request.from == From::after && from->edge == Edge::end && from->page_number > 0)
        out.page_number = from->page_number + 1;
    else if (request.from == From::before && from->edge == Edge::start && from->page_number > 1)
        out.page_number = from->page_number - 1;
    return impl_->finish(std::move(out), keys);
}

CursorPage Cursor::jump_exact(std::uint64_t number, std::size_t size) {
    check_size(size);
    if (number < 1) throw UsageError("pages are numbered from 1");
    const std::uint64_t position = (number - 1) * size;
    std::vector<KeyValue> keys;
    // Within a bookmark's span of the start, counting from it costs less than placing bookmarks (the first
    // Cursor of a query in a process, or the command line's every call, pays about 0.2 s for them on 20M
    // rows: bench/results/cursor.md).
    if (!impl_->sql.filtered() && position > PageBookmarks::span_rows) {
        const TableVersion version = table_version(impl_->connection, impl_->table);
        auto& bookmarks = impl_->current_bookmarks(version);
        const std::size_t counted_before = bookmarks ? bookmarks->counted(version) : 0;
        const auto landing = bookmarks ? bookmarks->exact_at_or_before(impl_->connection, position, version) : std::nullopt;
        if (landing) {
            CursorPage out = impl_->jump_from(*landing, position, number, size, keys);
            // Exact only if nothing was committed since `version` was read: the counts, kept or new, and
            // the walk then all saw the table as it is now.
            if (table_version(impl_->connection, impl_->table).same_as(version)) {
                // Counts that held to the end of this jump: the other Cursors of the query may use them.
                if (bookmarks->counted(version) > counted_before)
                    BookmarkShelf::process().share_counts(impl_->shelf_key, *impl_->held);
                out.method = PageMethod::exact_jump;
                out.has_previous_page = number > 1;
                out.how = "counted from a bookmark at exact row " + std::to_string(landing->position) + " (" +
                          std::to_string(position - landing->position) + " index entries; " +
                          std::to_string(bookmarks->counted(version)) +
                          " bookmark positions counted, kept while the table's UPDATE_TIME is unchanged; " +
                          impl_->bookmarks_origin() + ")";
                return impl_->finish(std::move(out), keys);
            }
            bookmarks->forget_counts();
        }
    }
    CursorPage out = impl_->jump_from({}, position, number, size, keys);
    out.method = PageMethod::exact_jump;
    out.has_previous_page = number > 1;
    out.how = "counted from the list's start (" + std::to_string(position) + " index entries)";
    return impl_->finish(std::move(out), keys);
}

CursorPage Cursor::jump_approximate(std::uint64_t number, std::size_t size) {
    check_size(size);
    if (number < 1) throw UsageError("pages are numbered from 1");
    if (impl_->sql.filtered()) return jump_exact(number, size);
    const TableVersion version = table_version(impl_->connection, impl_->table);
    const auto& bookmarks = impl_->current_bookmarks(version);
    if (!bookmarks) return jump_exact(number, size);
    const std::uint64_t position = (number - 1) * size;
    const PageBookmarks::Landing landing = bookmarks->at_or_before(position, version);
    std::vector<KeyValue> keys;
    CursorPage out = impl_->jump_from(landing, position, number, size, keys);
    out.method = PageMethod::approximate_jump;
    out.total_rows_estimate = bookmarks->total_rows();
    out.how = landing.exact ? "from a bookmark at exact row " + std::to_string(landing.position) +
                                  " (counted, the table unchanged since; " + impl_->bookmarks_origin() + ")"
                            : "from a bookmark at about row " + std::to_string(landing.position) + " (" +
                                  bookmarks->method() + "; " + impl_->bookmarks_origin() + ")";
    // Before the page's first row, when there is one; else before where the walk ended, when it began past the start.
    out.has_previous_page = keys.empty() ? position > 0 : impl_->any_past(true, keys.front());
    return impl_->finish(std::move(out), keys);
}

bool Cursor::prepare_jumps() {
    if (impl_->sql.filtered()) return false;
    const bool placed = impl_->current_bookmarks(table_version(impl_->connection, impl_->table)).has_value();
    impl_->placed_for_this_jump = false;  // the next jump's `how`: placed earlier, not for it
    return placed;
}

std::vector<PageLink> Cursor::window(const std::string& token, std::size_t size, std::size_t radius) {
    check_size(size);
    const TokenContent at = impl_->signer.decode(token);
    // Positions count rows from the token's (0): after it +1, +2, ...; before it -1, -2, ... The current
    // page starts at `start`; page p + j starts at start + j * size, and its link is the row before that.
    const std::int64_t n = static_cast<std::int64_t>(size);
    const std::int64_t start = at.edge == Edge::start ? 0 : -(n - 1);
    const auto r = static_cast<std::int64_t>(radius);
    bool more = false;
    const auto after = impl_->read(impl_->sql.sort_values(false, at.values, static_cast<std::size_t>(std::max<std::int64_t>(0, start + r * n))),
                                   SIZE_MAX, false, nullptr, more);
    const auto before = impl_->read(impl_->sql.sort_values(true, at.values, static_cast<std::size_t>(r * n - start + 1)),
                                    SIZE_MAX, false, nullptr, more);
    const auto exists = [&](std::int64_t i) {
        return i == 0 || (i > 0 ? static_cast<std::size_t>(i - 1) < after.size() : static_cast<std::size_t>(-i - 1) < before.size());
    };
    const auto row = [&](std::int64_t i) -> const KeyValue& {
        return i == 0 ? at.values : i > 0 ? after[static_cast<std::size_t>(i - 1)] : before[static_cast<std::size_t>(-i - 1)];
    };
    const std::uint64_t p = at.page_number;
    const auto number = [&](std::int64_t j) { return p > 0 ? static_cast<std::uint64_t>(static_cast<std::int64_t>(p) + j) : 0; };
    std::vector<PageLink> links;
    for (std::int64_t j = -1; j >= -r; --j) {
        const std::int64_t q = start + j * n;
        if (!exists(q + n - 1)) break;
        if (!exists(q - 1)) {  // page p + j holds the list's first row: it is page 1
            links.push_back({j, 1, ""});
            break;
        }
        links.push_back({j, number(j), impl_->token(Edge::end, p > 0 ? number(j - 1) : 0, row(q - 1))});
    }
    std::reverse(links.begin(), links.end());
    for (std::int64_t j = 1; j <= r && exists(start + j * n); ++j)
        links.push_back({j, number(j), impl_->token(Edge::end, p > 0 ? number(j - 1) : 0, row(start + j * n - 1))});
    return links;
}

}  // namespace rowpump
