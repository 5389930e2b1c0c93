// A job's state on a Redis Cluster: the Redis backend's job store and ledgers, each opened on the node
// that owns the queue's slot (the job's keys share it: cluster_queue_slot.hpp), and opened again on the
// new owner when a call is answered MOVED (a failover, a finished migration). A page is one MULTI/EXEC of
// its rows and its checkpoint on one node, as on a single Redis, so a failover cannot split it: the
// replica that takes over (CLUSTER FAILOVER waits until it has caught up) has the page whole or not at
// all. A ledger opened again is a new client, so the range it held is lost to it (PageWrite::lost) and
// leased again from its checkpoint. ASK (a migration under way) is waited out: a page's WATCH and
// MULTI/EXEC run on one node.
#include "backend/redis/redis_push_plan.hpp"
#include "backend/redis/redis_writers.hpp"
#include "backend/redis_cluster/cluster_queue_slot.hpp"
#include "backend/redis_cluster/cluster_writers.hpp"
#include "log.hpp"
#include "redis/cluster_client.hpp"

namespace rowpump {

namespace {

// The Redis backend's store for the node that owns `slot` now, with the seeds' timeouts and stop flag.
std::unique_ptr<JobStore> open_on_owner(redis::ClusterClient& client, std::uint16_t slot, const ClusterTarget& target,
                                        const JobDefinition& definition) {
    return open_redis_job_store(target.on_node(client.owner_options(slot)), definition);
}

// Calls `action` within the cluster's retry budget; a redirection reopens what it ran on (`reopen`) on
// the slot's owner and tries again.
template <class Action, class Reopen>
auto following(redis::ClusterClient& client, std::uint16_t slot, Action&& action, Reopen&& reopen) -> decltype(action()) {
    return client.retrying([&] {
        try {
            return action();
        } catch (const QueueError& error) {
            if (!client.follow(error)) throw;
        }
        log().warn("slot {} moved to {}: the job store opens again there", slot, client.owner_options(slot).redacted());
        reopen();
        return action();
    });
}

class ClusterJobLedger final : public JobLedger {
public:
    ClusterJobLedger(const ClusterTarget& target, const JobDefinition& definition, std::uint16_t slot)
        : target_(target), definition_(definition), slot_(slot), client_(target.cluster) {
        client_.retrying([this] { reopen(); });
    }

    std::optional<StoredRange> lease() override { return run([&] { return ledger_->lease(); }); }

    PageWrite write(StoredRange& range, const std::vector<Message>& batch, const KeyValue& last_key) override {
        return client_.retrying([&] {
            try {
                return ledger_->write(range, batch, last_key);
            } catch (const QueueError& error) {
                if (!client_.follow(error)) throw;
            }
            // The page's EXEC was refused whole at the old owner. The new one knows this ledger's lease
            // under the old client's id: the range is left, and leased again from its checkpoint.
            log().warn("slot {} of job {} moved to {}: leaving range {} to be leased again from its checkpoint",
                       slot_, definition_.job_id, client_.owner_options(slot_).redacted(), range.number);
            reopen();
            return PageWrite::lost;
        });
    }

    bool complete(const StoredRange& range) override { return run([&] { return ledger_->complete(range); }); }
    std::optional<std::uint64_t> ready_count() override { return run([&] { return ledger_->ready_count(); }); }
    std::vector<StoredRange> pending_ranges() override { return run([&] { return ledger_->pending_ranges(); }); }
    std::optional<StoredRange> split(const StoredRange& victim, const KeyValue& at, std::uint64_t moved_rows,
                                     const std::function<bool(const KeyValue&)>& before_split) override {
        return run([&] { return ledger_->split(victim, at, moved_rows, before_split); });
    }

private:
    template <class Action>
    auto run(Action&& action) -> decltype(action()) {
        return following(client_, slot_, action, [this] { reopen(); });
    }

    void reopen() {
        ledger_.reset();
        store_ = open_on_owner(client_, slot_, target_, definition_);
        ledger_ = store_->open_ledger();
    }

    ClusterTarget target_;
    JobDefinition definition_;
    std::uint16_t slot_;
    redis::ClusterClient client_;
    std::unique_ptr<JobStore> store_;
    std::unique_ptr<JobLedger> ledger_;
};

class ClusterJobStore final : public JobStore {
public:
    ClusterJobStore(const ClusterTarget& target, const JobDefinition& definition, std::uint16_t slot)
        : target_(target),
          definition_(definition),
          slot_(slot),
          client_(redis::ClusterClient::connect_at_start(target_.cluster)),
          store_(open_on_owner(client_, slot_, target_, definition_)) {}

    JobState state() override { return run([&] { return store_->state(); }); }
    JobState create(const std::vector<Partition>& partitions) override {
        return run([&] { return store_->create(partitions); });
    }
    std::unique_ptr<JobLedger> open_ledger() override {
        return std::make_unique<ClusterJobLedger>(target_, definition_, slot_);
    }

private:
    template <class Action>
    auto run(Action&& action) -> decltype(action()) {
        return following(client_, slot_, action, [this] { store_ = open_on_owner(client_, slot_, target_, definition_); });
    }

    ClusterTarget target_;
    JobDefinition definition_;
    std::uint16_t slot_;
    redis::ClusterClient client_;
    std::unique_ptr<JobStore> store_;
};

}  // namespace

std::unique_ptr<JobStore> open_cluster_job_store(const ClusterTarget& target, const JobDefinition& definition) {
    if (target.keys.queue.empty()) throw UsageError("a redis-cluster sink needs --queue NAME");
    const redis::PushPlan plan(target.keys);
    const std::uint16_t slot = redis::queue_slot(target.keys, plan);
    JobDefinition tagged = definition;
    tagged.state_prefix = redis::cluster_state_prefix(definition.state_prefix, target.keys.queue, slot);
    return std::make_unique<ClusterJobStore>(target, tagged, slot);
}

}  // namespace rowpump
