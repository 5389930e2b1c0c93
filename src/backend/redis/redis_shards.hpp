#pragma once
// One queue spread over N shards (--shards N): shard i of queue q is the queue "{q:i}", a whole queue of its
// own (ready list, priority lists, delayed set, processing lists, ...) whose keys share the hash tag q:i,
// so on a Redis Cluster each shard sits in its own slot and the shards spread over the masters. The
// producer sends each page whole to one shard; consumers read every shard. docs/DESIGN.md, "Redis Cluster".
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rowpump::redis {

inline constexpr std::size_t max_shards = 1024;

// The name the shards are built on: "q" for --queue q, and also for --queue '{q}' (the tag a cluster
// queue carries anyway). Throws UsageError for an empty name or braces anywhere else.
std::string shard_base(const std::string& queue);
// "{q:i}": shard `shard` of the queue named `base` (shard_base's result).
std::string shard_queue(std::string_view base, std::size_t shard);
// Every shard's queue name, in order. Throws UsageError for a count outside 1..max_shards.
std::vector<std::string> shard_queues(const std::string& queue, std::size_t shards);

// Where the next page goes: to the shard that has been sent the fewest rows so far (the first such from a
// rotating start), so the shards' sizes stay within one page of each other whatever the page sizes are.
// Shared by the sinks of one process that write the same queue (balance_for), so its workers' pages
// balance together.
class ShardBalance {
public:
    explicit ShardBalance(std::size_t shards);
    // The shard for a page of `rows` rows, counted as sent there.
    std::size_t place(std::size_t rows);
    std::size_t shards() const { return rows_.size(); }

private:
    std::vector<std::atomic<std::uint64_t>> rows_;
    std::atomic<std::uint64_t> turn_{0};
};

// The balance of the process's sinks for `queue` at `where` (a server or cluster, redacted).
std::shared_ptr<ShardBalance> balance_for(const std::string& where, const std::string& queue, std::size_t shards);

}  // namespace rowpump::redis
