#include "cursor/bookmark_shelf.hpp"

#include "cursor/sort_order.hpp"

namespace rowpump {

BookmarkShelf& BookmarkShelf::process() {
    static BookmarkShelf shelf;
    return shelf;
}

bool BookmarkShelf::fresh(const HeldBookmarks& held, const TableVersion& version) const {
    if (!version.same_table(held.placed_at)) return false;
    const std::chrono::steady_clock::duration lifetime{lifetime_.load()};
    return std::chrono::steady_clock::now() - held.made <= lifetime || version.same_as(held.placed_at);
}

std::list<BookmarkShelf::Entry>::iterator BookmarkShelf::find(const std::string& key) {
    for (auto at = entries_.begin(); at != entries_.end(); ++at) {
        if (at->key != key) continue;
        entries_.splice(entries_.begin(), entries_, at);
        return entries_.begin();
    }
    return entries_.end();
}

void BookmarkShelf::drop_least_recent() {
    // A placement under way stays: its waiters would not find it.
    for (auto at = entries_.end(); entries_.size() > capacity && at != entries_.begin();) {
        --at;
        if (!at->placing) at = entries_.erase(at);
    }
}

HeldBookmarks BookmarkShelf::take(const std::string& key, const TableVersion& version,
                                  const std::function<std::optional<PageBookmarks>()>& place) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        auto at = find(key);
        if (at != entries_.end() && at->held && fresh(*at->held, version)) {
            const std::shared_ptr<const HeldBookmarks> shelved = at->held;
            lock.unlock();
            HeldBookmarks copy = *shelved;  // up to 1024 bookmarks: copied outside the lock
            copy.placed_here = false;
            return copy;
        }
        if (at == entries_.end()) {
            entries_.push_front({key, nullptr, false});
            at = entries_.begin();
        }
        if (!at->placing) {
            at->placing = true;
            drop_least_recent();
            break;
        }
        placed_.wait(lock);
    }
    lock.unlock();

    HeldBookmarks out;
    try {
        out.bookmarks = place();
    } catch (...) {
        lock.lock();
        if (const auto at = find(key); at != entries_.end()) at->placing = false;
        placed_.notify_all();  // a waiter places them instead
        throw;
    }
    out.placed_at = out.bookmarks ? out.bookmarks->placed_at() : version;
    out.made = std::chrono::steady_clock::now();
    out.placement = ++placements_;
    out.placed_here = true;
    auto shelved = std::make_shared<const HeldBookmarks>(out);  // a copy: without the placer's second session
    lock.lock();
    auto at = find(key);
    if (at == entries_.end()) {  // cleared meanwhile
        entries_.push_front({key, nullptr, false});
        at = entries_.begin();
    }
    at->held = std::move(shelved);
    at->placing = false;
    drop_least_recent();
    placed_.notify_all();
    return out;
}

void BookmarkShelf::share_counts(const std::string& key, const HeldBookmarks& held) {
    if (!held.bookmarks) return;
    // Another placement of the query (remade, or after a clear) is newer than these counts' bookmarks.
    const auto deeper = [&](const Entry& entry) {
        return entry.held && entry.held->placement == held.placement && entry.held->bookmarks &&
               held.bookmarks->counts_more_than(*entry.held->bookmarks);
    };
    std::unique_lock<std::mutex> lock(mutex_);
    if (auto at = find(key); at == entries_.end() || !deeper(*at)) return;
    lock.unlock();
    auto copy = std::make_shared<const HeldBookmarks>(held);
    lock.lock();
    if (auto at = find(key); at != entries_.end() && deeper(*at)) at->held = std::move(copy);
}

void BookmarkShelf::set_lifetime(std::chrono::steady_clock::duration lifetime) { lifetime_ = lifetime.count(); }

void BookmarkShelf::clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    // A placement under way stays, emptied: its waiters wait for it, not place again.
    entries_.remove_if([](const Entry& entry) { return !entry.placing; });
    for (Entry& entry : entries_) entry.held.reset();
}

std::string bookmark_shelf_key(const MySqlOptions& mysql, const TableInfo& table, const CursorSpec& spec) {
    std::string key;
    for (const std::string& field : {mysql.host, std::to_string(mysql.port), mysql.socket, mysql.user, mysql.database})
        key += std::to_string(field.size()) + ":" + field;
    // The query's fingerprint without the columns shown: the rows and their order, which the bookmarks are
    // places in.
    return key + query_fingerprint(table, CursorSpec{spec.table, spec.sort, {}, spec.equals});
}

}  // namespace rowpump
