// The consumer side of a sharded queue on a Redis Cluster (cluster_shards.hpp): each worker holds the Redis
// backend's consumer of every shard, on the shard's owner and following it (cluster_following.hpp), under
// one name, so one heartbeat covers its processing lists in all shards. A claim looks at every shard without blocking, from a start that moves
// on past the shard that last gave tasks; when none has any it blocks on one shard (the next in turn) for a
// share of the wait, so no shard waits more than that share for a worker that looks elsewhere.
#include <algorithm>
#include <unordered_map>

#include "backend/redis/redis_shards.hpp"
#include "backend/redis_cluster/cluster_following.hpp"
#include "backend/redis_cluster/cluster_owner.hpp"
#include "backend/redis_cluster/cluster_shards.hpp"

namespace rowpump {

namespace {

using std::chrono::milliseconds;

// A blocking look at one shard lasts at least this long (or the whole wait, when that is shorter).
constexpr milliseconds min_block_share{50};

// `options` for each shard: its queue name, and no shard count of its own.
std::vector<ConsumerOptions> shard_options(const ConsumerOptions& options) {
    std::vector<ConsumerOptions> out;
    for (const std::string& name : redis::shard_queues(options.source.queue, options.shards)) {
        ConsumerOptions shard = options;
        shard.source.queue = name;
        shard.shards = 0;
        out.push_back(std::move(shard));
    }
    return out;
}

// One cluster client for the objects of one thread.
std::shared_ptr<redis::ClusterClient> cluster_client(const ConsumerOptions& options) {
    return std::make_shared<redis::ClusterClient>(redis::ClusterClient::connect_at_start(source_cluster(options)));
}

// What every shard's `reap` released and buried, added up.
template <class Shard, class Reap>
ReapResult sum_reaped(const std::vector<std::unique_ptr<Shard>>& shards, Reap&& reap) {
    ReapResult total;
    for (const auto& shard : shards) {
        const ReapResult part = reap(*shard);
        total.released += part.released;
        total.dead += part.dead;
    }
    return total;
}

class ShardConsumer final : public QueueConsumer {
public:
    ShardConsumer(const ConsumerOptions& options, std::size_t worker) {
        const auto client = cluster_client(options);
        // One name on every shard: the given one with the worker's number, else shard 0's generated one.
        if (!options.redis.consumer.empty()) name_ = options.redis.consumer + ":" + std::to_string(worker);
        for (ConsumerOptions& shard : shard_options(options)) {
            shard.redis.consumer = name_;
            shards_.push_back(open_following_consumer(client, shard, nullptr));
            if (name_.empty()) name_ = shards_.back()->name();
        }
        start_ = worker % shards_.size();  // workers start apart
    }

    std::vector<Task> claim(std::size_t n, milliseconds wait) override {
        const std::size_t count = shards_.size();
        for (std::size_t step = 0; step < count; ++step) {
            const std::size_t shard = (start_ + step) % count;
            std::vector<Task> tasks = shards_[shard]->claim(n, milliseconds(0));
            if (tasks.empty()) continue;
            start_ = (shard + 1) % count;
            return note(shard, std::move(tasks));
        }
        const std::size_t shard = start_;
        start_ = (start_ + 1) % count;
        const milliseconds share = std::min(wait, std::max(min_block_share, wait / static_cast<long>(count)));
        return note(shard, shards_[shard]->claim(n, share));
    }

    void ack(const Task& task) override { shards_[take(task.payload)]->ack(task); }
    std::vector<std::size_t> ack(const std::vector<Task>& tasks) override {
        std::vector<std::size_t> stale;
        for_each_shard(tasks, [&](std::size_t shard, const std::vector<Task>& part, const std::vector<std::size_t>& at) {
            for (const std::size_t i : shards_[shard]->ack(part)) stale.push_back(at[i]);
        });
        std::sort(stale.begin(), stale.end());
        return stale;
    }
    FailOutcome fail(const Task& task, const std::string& error) override {
        return shards_[take(task.payload)]->fail(task, error);
    }
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) override {
        return shards_[take(task.payload)]->fail(task, error, policy);
    }
    void release(const std::vector<Task>& tasks) override {
        for_each_shard(tasks, [&](std::size_t shard, const std::vector<Task>& part, const std::vector<std::size_t>&) {
            shards_[shard]->release(part);
        });
    }

    Backlog backlog() override {
        Backlog total;
        std::optional<milliseconds> next_due;
        for (const auto& shard : shards_) {
            const Backlog part = shard->backlog();
            total.waiting += part.waiting;
            total.later += part.later;
            total.held += part.held;
            total.orphaned += part.orphaned;
            if (part.waiting > 0) next_due = std::min(next_due.value_or(part.next_due), part.next_due);
        }
        total.next_due = next_due.value_or(milliseconds(0));
        return total;
    }
    ReapResult reap() override {
        return sum_reaped(shards_, [](auto& shard) { return shard.reap(); });
    }
    void heartbeat() override {
        for (const auto& shard : shards_) shard->heartbeat();
    }
    void leave() override {
        for (const auto& shard : shards_) shard->leave();
    }
    std::string describe(const Task& task) const override { return shards_.front()->describe(task); }
    std::string name() const override { return name_; }

private:
    // Remembers which shard handed out each task (a Redis task is its payload; equal payloads of
    // different shards are told apart by count, and either copy may be finished first).
    std::vector<Task> note(std::size_t shard, std::vector<Task> tasks) {
        for (const Task& task : tasks) origin_[task.payload].push_back(shard);
        return tasks;
    }
    std::size_t take(const std::string& payload) {
        const auto found = origin_.find(payload);
        if (found == origin_.end() || found->second.empty()) return 0;  // unknown: its shard says it is stale
        const std::size_t shard = found->second.back();
        found->second.pop_back();
        if (found->second.empty()) origin_.erase(found);
        return shard;
    }
    template <class Action>
    void for_each_shard(const std::vector<Task>& tasks, Action&& action) {
        std::vector<std::vector<Task>> parts(shards_.size());
        std::vector<std::vector<std::size_t>> positions(shards_.size());
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            const std::size_t shard = take(tasks[i].payload);
            parts[shard].push_back(tasks[i]);
            positions[shard].push_back(i);
        }
        for (std::size_t shard = 0; shard < parts.size(); ++shard)
            if (!parts[shard].empty()) action(shard, parts[shard], positions[shard]);
    }

    std::vector<std::unique_ptr<QueueConsumer>> shards_;
    std::string name_;
    std::size_t start_ = 0;
    std::unordered_map<std::string, std::vector<std::size_t>> origin_;
};

class ShardMaintainer final : public QueueMaintainer {
public:
    ShardMaintainer(const ConsumerOptions& options, const std::vector<std::string>& consumers) {
        const auto client = cluster_client(options);
        for (const ConsumerOptions& shard : shard_options(options))
            shards_.push_back(open_following_maintainer(client, shard, consumers));
    }
    ReapResult tick() override {
        return sum_reaped(shards_, [](auto& shard) { return shard.tick(); });
    }

private:
    std::vector<std::unique_ptr<QueueMaintainer>> shards_;
};

class ShardAdmin final : public QueueAdmin {
public:
    explicit ShardAdmin(const ConsumerOptions& options) {
        const auto client = cluster_client(options);
        for (const ConsumerOptions& shard : shard_options(options)) shards_.push_back(open_following_admin(client, shard));
    }
    std::string init() override {
        std::string lines;
        for (const auto& shard : shards_) lines += (lines.empty() ? "" : "\n") + shard->init();
        return lines;
    }
    // The shards' counts added up; a consumer's holdings in every shard make one holder.
    QueueStats stats(bool exact) override {
        QueueStats total;
        for (const auto& shard : shards_) {
            const QueueStats part = shard->stats(exact);
            total.ready += part.ready;
            total.in_flight += part.in_flight;
            total.dead += part.dead;
            if (part.delayed) total.delayed = total.delayed.value_or(0) + *part.delayed;
            total.capped = total.capped || part.capped;
            for (const QueueStats::Holder& holder : part.holders) add_holder(total.holders, holder);
        }
        return total;
    }
    StatsWords words() const override { return shards_.front()->words(); }
    std::string holder_line(const QueueStats::Holder& holder) const override {
        return shards_.front()->holder_line(holder);
    }
    ReapResult reap() override {
        return sum_reaped(shards_, [](auto& shard) { return shard.reap(); });
    }
    std::uint64_t promote() override {
        std::uint64_t moved = 0;
        for (const auto& shard : shards_) moved += shard->promote();
        return moved;
    }
    std::uint64_t purge(std::chrono::seconds older_than, std::size_t batch) override {
        return shards_.front()->purge(older_than, batch);  // Redis keeps no done tasks: says so
    }
    // `limit` over all shards together (0: every dead task).
    std::uint64_t requeue_dead(std::uint64_t limit) override {
        std::uint64_t moved = 0;
        for (const auto& shard : shards_) {
            if (limit != 0 && moved >= limit) break;
            moved += shard->requeue_dead(limit == 0 ? 0 : limit - moved);
        }
        return moved;
    }

private:
    static void add_holder(std::vector<QueueStats::Holder>& holders, const QueueStats::Holder& holder) {
        for (QueueStats::Holder& known : holders) {
            if (known.name != holder.name) continue;
            known.tasks += holder.tasks;
            known.age_seconds = std::max(known.age_seconds, holder.age_seconds);
            known.alive = known.alive && holder.alive;
            return;
        }
        holders.push_back(holder);
    }

    std::vector<std::unique_ptr<QueueAdmin>> shards_;
};

}  // namespace

std::unique_ptr<QueueConsumer> open_shard_consumer(const ConsumerOptions& options, std::size_t worker) {
    return std::make_unique<ShardConsumer>(options, worker);
}
std::unique_ptr<QueueMaintainer> open_shard_maintainer(const ConsumerOptions& options,
                                                       std::vector<std::string> consumers) {
    return std::make_unique<ShardMaintainer>(options, consumers);
}
std::unique_ptr<QueueAdmin> open_shard_admin(const ConsumerOptions& options) {
    return std::make_unique<ShardAdmin>(options);
}

}  // namespace rowpump
