// The plain sink of a sharded queue on a Redis Cluster: one cluster client, the Redis backend's push plan
// for each shard, and each page pipelined whole to the shard the process's balance picks (the one sent the
// fewest rows so far). At-least-once, as the one-slot sink: a page redirected or cut off midway is sent
// again whole, to the same shard.
#include <memory>
#include <optional>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_shards.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "backend/redis_cluster/cluster_shards.hpp"
#include "redis/cluster_client.hpp"

namespace rowpump {

namespace {

class ClusterShardSink final : public Sink {
public:
    ClusterShardSink(const ClusterTarget& target, std::size_t shards)
        : base_(redis::shard_base(target.keys.queue)),
          client_(redis::ClusterClient::connect_at_start(target.cluster)),
          balance_(redis::balance_for(client_.redacted(), base_, shards)),
          delayed_writer_(redis::random_delayed_writer()) {
        for (const RedisQueueKeys& keys : shard_keys(target.keys, shards)) {
            plans_.push_back(std::make_unique<redis::PushPlan>(keys));
            slots_.push_back(redis::queue_slot(keys, *plans_.back()));
        }
        client_.retrying([this] {
            for (std::size_t shard = 0; shard < plans_.size(); ++shard)
                client_.on_owner(slots_[shard], [&](redis::Connection& connection) {
                    plans_[shard]->check_key_types(connection);
                });
        });
    }

    void write(const std::vector<Message>& batch) override {
        if (batch.empty()) return;
        const std::size_t shard = balance_->place(batch.size());
        redis::PushPlan& plan = *plans_[shard];
        plan.plan(batch, {delayed_writer_, next_sequence_});
        next_sequence_ += batch.size();
        commands_.clear();
        for (std::size_t i = 0; i < plan.commands(); ++i) commands_.push_back(plan.command(i));
        client_.retrying([&] { client_.pipeline(slots_[shard], commands_); });
    }

    void keep_alive() override {
        try {
            for (const std::uint16_t slot : slots_) client_.command(slot, {"PING"});
        } catch (const Error&) {
            // The next write reconnects, within its retry budget.
        }
    }

    std::optional<std::uint64_t> ready_count() override {
        return client_.retrying([this] {
            std::uint64_t total = 0;
            for (std::size_t shard = 0; shard < plans_.size(); ++shard) {
                std::vector<std::vector<std::string_view>> lengths;
                for (const std::string& key : plans_[shard]->ready_keys()) lengths.push_back({"LLEN", key});
                const std::vector<redis::ClusterClient::Command> commands(lengths.begin(), lengths.end());
                for (const redis::Reply& reply : client_.pipeline(slots_[shard], commands))
                    total += static_cast<std::uint64_t>(reply.integer);
            }
            return std::optional<std::uint64_t>(total);
        });
    }

    std::string describe() const override {
        return client_.redacted() + " queue " + base_ + " over " + std::to_string(plans_.size()) + " shards " +
               redis::shard_queue(base_, 0) + " ... " + redis::shard_queue(base_, plans_.size() - 1);
    }

private:
    std::string base_;
    redis::ClusterClient client_;
    std::shared_ptr<redis::ShardBalance> balance_;
    std::vector<std::unique_ptr<redis::PushPlan>> plans_;
    std::vector<std::uint16_t> slots_;
    std::uint64_t delayed_writer_;
    std::uint64_t next_sequence_ = 0;
    std::vector<redis::ClusterClient::Command> commands_;  // views into a plan, rebuilt for every page
};

}  // namespace

std::vector<RedisQueueKeys> shard_keys(const RedisQueueKeys& keys, std::size_t shards) {
    if (keys.layout != QueueLayout::rowpump)
        throw UsageError("--shards spreads rowpump's own queue over slots; Sidekiq and Celery workers read fixed "
                         "keys of one slot: remove --shards");
    std::vector<RedisQueueKeys> out;
    for (const std::string& name : redis::shard_queues(keys.queue, shards)) {
        RedisQueueKeys shard = keys;
        shard.queue = name;
        out.push_back(std::move(shard));
    }
    return out;
}

void check_shard_names(const RedisQueueKeys& keys, std::size_t shards, bool job) {
    if (job)
        throw UsageError("--shards with --job-id is not built yet (each range's checkpoint would have to live in "
                         "its shard's slot, docs/DESIGN.md \"Shards\"): remove one of them");
    for (const RedisQueueKeys& shard : shard_keys(keys, shards)) {
        const redis::PushPlan plan(shard);
        redis::queue_slot(shard, plan);
    }
}

std::unique_ptr<Sink> make_cluster_shard_sink(const ClusterTarget& target, std::size_t shards) {
    return std::make_unique<ClusterShardSink>(target, shards);
}

}  // namespace rowpump
