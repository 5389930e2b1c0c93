#pragma once
// Pages for applications: a list sorted by columns that end in a unique key (created_at DESC, id DESC),
// walked forward and backward with opaque, signed tokens in GraphQL Relay's terms (first/after,
// last/before, start_cursor, end_cursor, has_next_page, has_previous_page), and a jump to page N.
// No OFFSET over the table: each page is a keyset query on the sort's index. docs/cursor_pagination.md.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "rowpump/page.hpp"
#include "rowpump/table.hpp"

namespace ROWPUMP_EXPORT rowpump {

enum class SortDirection { ascending, descending };

struct SortColumn {
    std::string column;
    SortDirection direction = SortDirection::ascending;
};

// "created_at DESC, id DESC" (ASC when no direction is given); throws UsageError on anything else.
std::vector<SortColumn> parse_sort(const std::string& text);

// A token that cannot be used: altered, for another query, signed under a key no longer known, or not a
// token. Never executed. A web handler answers it with 400.
class InvalidCursor : public UsageError {
public:
    using UsageError::UsageError;
};

// The signing keys: tokens are signed under `current`, and verified under it or `previous` (rotation:
// the old key becomes previous, so tokens already handed out keep working until it is dropped).
struct CursorKeys {
    std::string current;
    std::string previous;  // empty: none

    // ROWPUMP_CURSOR_KEY or the contents of ROWPUMP_CURSOR_KEY_FILE, and ROWPUMP_CURSOR_KEY_PREVIOUS or
    // ROWPUMP_CURSOR_KEY_PREVIOUS_FILE; nullopt when no current key is set. A key shorter than 16 bytes
    // throws UsageError.
    static std::optional<CursorKeys> from_environment();
};

struct CursorSpec {
    std::string table;               // "name" or "schema.name"
    std::vector<SortColumn> sort;    // NOT NULL columns that include a unique key's columns
    std::vector<std::string> columns;  // the row's columns; empty: every column, in table order
    // The filter: column = value for each pair, ANDed. Columns are checked and quoted, values bound.
    std::vector<std::pair<std::string, std::string>> equals;
};

// Which page to read, in Relay's terms.
struct PageRequest {
    enum class From { first, after, last, before };
    From from = From::first;
    std::string token;  // for after and before
    std::size_t size = 20;

    static PageRequest first(std::size_t size) { return {From::first, "", size}; }
    static PageRequest after(std::string token, std::size_t size) { return {From::after, std::move(token), size}; }
    static PageRequest last(std::size_t size) { return {From::last, "", size}; }
    static PageRequest before(std::string token, std::size_t size) { return {From::before, std::move(token), size}; }
};

// How a page was found: by keyset from a token (or the list's end), by counting through the index
// (exact jump), by index estimates (approximate jump).
enum class PageMethod { keyset, exact_jump, approximate_jump };
std::string to_string(PageMethod method);

struct CursorPage {
    std::vector<Column> columns;  // what each row carries
    Page rows;                    // in display order
    std::string start_cursor;     // the first row's token; empty when no row
    std::string end_cursor;       // the last row's
    bool has_next_page = false;
    bool has_previous_page = false;
    std::uint64_t page_number = 0;  // counted from 1 at the list's start; 0 when unknown (after a last)
    PageMethod method = PageMethod::keyset;
    // An approximate jump's estimate of the list's rows ("page about 48,000 of about 100,000"); 0 otherwise.
    std::uint64_t total_rows_estimate = 0;
    // A jump's way there, in words: from the list's start, or from which bookmark (at an exact or an
    // estimated row) and how its place was known. Empty for a keyset page.
    std::string how;
};

// A link to a page near the current one: read it with PageRequest::after(after, size), or first(size)
// when `after` is empty (page 1).
struct PageLink {
    std::int64_t offset = 0;        // pages from the current one: -2, -1, +1, ...
    std::uint64_t page_number = 0;  // 0 when the current page's number is unknown
    std::string after;
};

class Cursor {
public:
    // Introspects the table and checks the spec (columns exist, sort columns NOT NULL and unique
    // together); throws UsageError. Opens its own connection, and a second one with the same options
    // when a jump's bookmark count first takes more than one statement (the two count in parallel).
    Cursor(const MySqlOptions& mysql, CursorSpec spec, CursorKeys keys);
    ~Cursor();
    Cursor(Cursor&&) noexcept;
    Cursor& operator=(Cursor&&) noexcept;

    // One page; a bad token throws InvalidCursor before any statement runs.
    CursorPage page(const PageRequest& request);
    // Page `number` (from 1) exactly, as of the moment of the count: the inner query counts entries of the
    // sort's index (no row is read for them), then joins back for this page's rows. Without a filter it
    // counts from the last bookmark at or before the page whose exact position is known (positions are
    // counted once, gap by gap, and kept while the table's UPDATE_TIME is unchanged), so the walk is at
    // most a bookmark's span; else, or when the table changed during the jump, from the list's start
    // (cost grows with the depth). `how` says which.
    CursorPage jump_exact(std::uint64_t number, std::size_t size);
    // Page about `number`, in milliseconds at any depth: from bookmarks placed by index estimates (the
    // balanced planner's dives, their scale calibrated by an exact count of the list's first million rows;
    // made by prepare_jumps or the first jump, remade after a minute if the table changed), then an exact
    // walk of at most a bookmark's span. Lands exactly where the bookmark's position is counted and still
    // holds (see jump_exact), else within the estimates' error of (number - 1) * size; `how` says which,
    // and whose bookmarks they were. The page's number is `number`, as a label. Without usable estimates
    // (a filter, a first sort column with no axis), it is jump_exact, and says so in `method`.
    CursorPage jump_approximate(std::uint64_t number, std::size_t size);
    // Places the jumps' bookmarks now, so that no request pays for them (0.1 to 0.2 s): call it at a
    // server's startup. The Cursors of one query (server, table, sort, filter) in a process share their
    // bookmarks and the positions they count: a later Cursor takes a copy instead of placing them again
    // (thread-safe; the last 16 queries kept). False when the list has none (a filter, a sort the
    // estimates cannot place): its jumps count exactly.
    bool prepare_jumps();
    // Links to the `radius` pages either side of the page `token` starts or ends (a page's start or end
    // cursor), from one key-only query each way of at most radius * size index entries.
    std::vector<PageLink> window(const std::string& token, std::size_t size, std::size_t radius);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rowpump
