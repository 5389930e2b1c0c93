// The plain sink on a Redis Cluster: the Redis backend's push plan, pipelined to the node that owns the
// queue's slot through the cluster client, which follows MOVED and ASK. At-least-once, as on one Redis: a
// page whose pipeline was redirected or cut off is sent again whole.
#include <optional>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "backend/redis_cluster/cluster_writers.hpp"
#include "redis/cluster_client.hpp"

namespace rowpump {

namespace {

class ClusterSink final : public Sink {
public:
    explicit ClusterSink(const ClusterTarget& target)
        : plan_(target.keys),
          slot_(redis::queue_slot(target.keys, plan_)),
          client_(redis::ClusterClient::connect_at_start(target.cluster)),
          delayed_writer_(redis::random_delayed_writer()) {
        client_.retrying([this] {
            client_.on_owner(slot_, [this](redis::Connection& connection) { plan_.check_key_types(connection); });
        });
    }

    void write(const std::vector<Message>& batch) override {
        if (batch.empty()) return;
        plan_.plan(batch, {delayed_writer_, next_sequence_});
        next_sequence_ += batch.size();
        commands_.clear();
        for (std::size_t i = 0; i < plan_.commands(); ++i) commands_.push_back(plan_.command(i));
        client_.retrying([this] { client_.pipeline(slot_, commands_); });
    }

    void keep_alive() override {
        try {
            client_.command(slot_, {"PING"});
        } catch (const Error&) {
            // The next write reconnects, within its retry budget.
        }
    }

    std::optional<std::uint64_t> ready_count() override {
        return client_.retrying([this] {
            std::vector<std::vector<std::string_view>> lengths;
            for (const std::string& key : plan_.ready_keys()) lengths.push_back({"LLEN", key});
            std::vector<redis::ClusterClient::Command> commands(lengths.begin(), lengths.end());
            std::uint64_t total = 0;
            for (const redis::Reply& reply : client_.pipeline(slot_, commands))
                total += static_cast<std::uint64_t>(reply.integer);
            return std::optional<std::uint64_t>(total);
        });
    }

    std::string describe() const override {
        std::string lists;
        for (const std::string& key : plan_.ready_keys()) lists += (lists.empty() ? "" : ", ") + key;
        return client_.redacted() + (plan_.ready_keys().size() == 1 ? " list " : " lists ") + lists + " (slot " +
               std::to_string(slot_) + ")";
    }

private:
    // First: bad names and keys in several slots are refused before connecting.
    redis::PushPlan plan_;
    std::uint16_t slot_;
    redis::ClusterClient client_;
    std::uint64_t delayed_writer_;
    std::uint64_t next_sequence_ = 0;
    std::vector<redis::ClusterClient::Command> commands_;  // views into plan_, rebuilt for every page
};

}  // namespace

std::unique_ptr<Sink> make_cluster_sink(ClusterTarget target) { return std::make_unique<ClusterSink>(target); }

}  // namespace rowpump
