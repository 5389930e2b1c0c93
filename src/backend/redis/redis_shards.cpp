#include "backend/redis/redis_shards.hpp"

#include <map>
#include <mutex>

#include "rowpump/error.hpp"

namespace rowpump::redis {

std::string shard_base(const std::string& queue) {
    std::string base = queue;
    if (base.size() >= 2 && base.front() == '{' && base.back() == '}') base = base.substr(1, base.size() - 2);
    if (base.empty())
        throw UsageError("--shards needs a queue name: --queue NAME makes the queues {NAME:0}, {NAME:1}, ...");
    if (base.find_first_of("{}") != std::string::npos)
        throw UsageError("with --shards the queue name '" + queue +
                         "' may have no braces but one pair around it all: the shards' names {NAME:0}, {NAME:1}, ... "
                         "carry their own hash tags");
    return base;
}

std::string shard_queue(std::string_view base, std::size_t shard) {
    return "{" + std::string(base) + ":" + std::to_string(shard) + "}";
}

std::vector<std::string> shard_queues(const std::string& queue, std::size_t shards) {
    if (shards < 1 || shards > max_shards)
        throw UsageError("--shards must be 1 to " + std::to_string(max_shards) + ", not " + std::to_string(shards));
    const std::string base = shard_base(queue);
    std::vector<std::string> names;
    names.reserve(shards);
    for (std::size_t i = 0; i < shards; ++i) names.push_back(shard_queue(base, i));
    return names;
}

ShardBalance::ShardBalance(std::size_t shards) : rows_(shards) {
    if (shards == 0) throw UsageError("a sharded queue needs at least one shard");
}

std::size_t ShardBalance::place(std::size_t rows) {
    // Ties go round from a start that moves with every page: equal pages visit every shard in turn.
    const std::size_t start = static_cast<std::size_t>(turn_.fetch_add(1, std::memory_order_relaxed) % rows_.size());
    std::size_t best = start;
    std::uint64_t fewest = rows_[start].load(std::memory_order_relaxed);
    for (std::size_t step = 1; step < rows_.size(); ++step) {
        const std::size_t shard = (start + step) % rows_.size();
        const std::uint64_t sent = rows_[shard].load(std::memory_order_relaxed);
        if (sent < fewest) {
            fewest = sent;
            best = shard;
        }
    }
    rows_[best].fetch_add(rows, std::memory_order_relaxed);
    return best;
}

std::shared_ptr<ShardBalance> balance_for(const std::string& where, const std::string& queue, std::size_t shards) {
    static std::mutex mutex;
    static std::map<std::string, std::weak_ptr<ShardBalance>> balances;
    const std::string key = where + "\n" + queue + "\n" + std::to_string(shards);
    const std::lock_guard lock(mutex);
    std::weak_ptr<ShardBalance>& slot = balances[key];
    std::shared_ptr<ShardBalance> balance = slot.lock();
    if (!balance) {
        balance = std::make_shared<ShardBalance>(shards);
        slot = balance;
    }
    return balance;
}

}  // namespace rowpump::redis
