#pragma once
// The jumps' bookmarks shared by the Cursors of one query in a process. Placing them costs a new Cursor's
// first jump about 0.1 to 0.2 s (index dives and a calibration count: page_bookmarks.hpp); a web server
// that makes a Cursor per request or per thread would pay that on every one. The shelf keeps the last
// placement of each query (server, database, table, sort, filter), and a Cursor takes a copy of it
// instead of placing them again: a copy, because a Cursor extends its exact counts and opens a second
// session for them, neither of which may be shared across threads.
//
// Freshness is the Cursor's own rule, applied to the shelf's placements too: bookmarks serve while they
// are younger than the lifetime (a minute) or the table is unchanged since they were placed, and never
// for a table made again under the same name. Exact counts a Cursor adds go back on the shelf when they
// are deeper, or of a later table version, than the shelf's copy of the same placement: they are checked
// against the table's version wherever they are used (page_bookmarks.hpp), so sharing them is safe.
//
// One caller places a query's bookmarks at a time; the others asking for that query meanwhile wait for
// its placement rather than run the same dives and count. At most `capacity` queries are kept, the least
// recently used dropped first.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cursor/page_bookmarks.hpp"
#include "rowpump/cursor.hpp"
#include "rowpump/options.hpp"

namespace rowpump {

// A Cursor's own copy of one placement.
struct HeldBookmarks {
    std::optional<PageBookmarks> bookmarks;  // nullopt: the estimates cannot place them
    TableVersion placed_at;                  // the table's version they were placed at
    std::chrono::steady_clock::time_point made;
    std::uint64_t placement = 0;  // which placement it is a copy of
    bool placed_here = false;     // placed by this caller, not taken from the shelf
};

class BookmarkShelf {
public:
    static constexpr std::size_t capacity = 16;
    static constexpr std::chrono::seconds default_lifetime{60};

    // The process's shelf.
    static BookmarkShelf& process();

    // Whether `held` may still serve at `version` (the rule above).
    bool fresh(const HeldBookmarks& held, const TableVersion& version) const;
    // Fresh bookmarks for `key`: a copy of the shelf's, or else placed by `place` and shelved. `place`
    // runs without the shelf's lock; an exception from it reaches the caller, and the next caller places.
    HeldBookmarks take(const std::string& key, const TableVersion& version,
                       const std::function<std::optional<PageBookmarks>()>& place);
    // Offers the counts `held` has added since it was taken (see counts_more_than).
    void share_counts(const std::string& key, const HeldBookmarks& held);

    // How long bookmarks serve after the table changed. Tests shorten it rather than wait a minute.
    void set_lifetime(std::chrono::steady_clock::duration lifetime);
    // Drops every placement (after tables were replaced by a way CREATE_TIME cannot tell; for tests).
    void clear();

private:
    struct Entry {
        std::string key;
        std::shared_ptr<const HeldBookmarks> held;  // null while the first placement runs
        bool placing = false;
    };
    std::list<Entry>::iterator find(const std::string& key);
    void drop_least_recent();

    mutable std::mutex mutex_;
    std::condition_variable placed_;
    std::list<Entry> entries_;  // the most recently used first
    // Read by every jump's freshness check, outside the lock.
    std::atomic<std::chrono::steady_clock::rep> lifetime_{
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(default_lifetime).count()};
    std::atomic<std::uint64_t> placements_{0};
};

// What makes bookmarks valid for another Cursor: the server (host, port or socket, user, database), the
// table, the sort and the filter. Not the password, the columns shown, or the signing keys.
std::string bookmark_shelf_key(const MySqlOptions& mysql, const TableInfo& table, const CursorSpec& spec);

}  // namespace rowpump
