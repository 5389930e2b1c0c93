#include "backend/mysql_queue/claim_cursors.hpp"

#include <map>

namespace rowpump::queue {

std::shared_ptr<ClaimCursors> ClaimCursors::shared(const std::string& key) {
    static std::mutex registry_mutex;
    // Weak: the cursors of a table go away with its last queue object.
    static std::map<std::string, std::weak_ptr<ClaimCursors>> registry;
    const std::lock_guard lock(registry_mutex);
    std::erase_if(registry, [](const auto& entry) { return entry.second.expired(); });
    std::weak_ptr<ClaimCursors>& entry = registry[key];
    auto cursors = entry.lock();
    if (!cursors) {
        cursors = std::make_shared<ClaimCursors>();
        entry = cursors;
    }
    return cursors;
}

std::optional<ClaimCursor> ClaimCursors::at(std::int64_t level) const {
    const auto found = cursors_.find(level);
    if (found == cursors_.end()) return std::nullopt;
    return found->second;
}

void ClaimCursors::move(std::int64_t level, ClaimCursor cursor) { cursors_[level] = std::move(cursor); }

void ClaimCursors::erase(std::int64_t level) { cursors_.erase(level); }

void ClaimCursors::forget_older_than(std::chrono::milliseconds age) {
    const std::lock_guard guard(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now - forgotten_at_ < age) return;
    cursors_.clear();
    forgotten_at_ = now;
}

}  // namespace rowpump::queue
