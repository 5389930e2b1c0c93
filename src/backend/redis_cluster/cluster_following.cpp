#include "backend/redis_cluster/cluster_following.hpp"

#include <variant>

#include "backend/redis/redis_consumers.hpp"
#include "backend/redis_cluster/cluster_owner.hpp"
#include "log.hpp"

namespace rowpump {

namespace {

// The queue's slot and where it is: calls that a redirection answered are made again at the new owner.
class SlotFollower {
public:
    SlotFollower(std::shared_ptr<redis::ClusterClient> client, const ConsumerOptions& options)
        : client_(std::move(client)), options_(options), slot_(consumer_slot(options_)) {}

    ConsumerOptions owner() const { return on_slot_owner(options_, *client_); }

    // Calls `action`; a MOVED it throws reads the slot map, calls `reopen(options on the new owner)` and
    // `action` again; an ASK is a transient error that the cluster client's retries wait out. So is a second
    // MOVED: while a slot is handed over, the masters learn its new owner one by one, and the new owner can
    // still send a client back to the old one. The retries back off, read the map again and follow it.
    template <class Action, class Reopen>
    auto call(Action&& action, Reopen&& reopen) -> decltype(action()) {
        return client_->retrying([&] {
            try {
                return action();
            } catch (const QueueError& error) {
                if (!client_->follow(error)) throw;
            }
            const ConsumerOptions moved = owner();
            log().warn("queue {}: slot {} moved to {}: following it there", options_.source.queue, slot_,
                       std::get<RedisOptions>(moved.source.connection).redacted());
            try {
                reopen(moved);  // opening on the new owner talks to it too
                return action();
            } catch (const QueueError& error) {
                if (!client_->follow(error)) throw;
                throw QueueError(std::string(error.what()) + " (slot " + std::to_string(slot_) +
                                     " is still being handed over: retrying)",
                                 true);
            }
        });
    }

private:
    std::shared_ptr<redis::ClusterClient> client_;
    ConsumerOptions options_;
    std::uint16_t slot_;
};

class FollowingConsumer final : public QueueConsumer {
public:
    FollowingConsumer(std::shared_ptr<redis::ClusterClient> client, const ConsumerOptions& options,
                      const std::size_t* worker)
        : follower_(std::move(client), options) {
        const ConsumerOptions owner = follower_.owner();
        inner_ = worker ? open_redis_consumer(redis_consumer_target(owner), *worker)
                       : open_named_redis_consumer(redis_consumer_target(owner));
        name_ = inner_->name();
    }

    std::vector<Task> claim(std::size_t n, std::chrono::milliseconds wait) override {
        return call([&] { return inner_->claim(n, wait); });
    }
    void ack(const Task& task) override {
        call([&] { inner_->ack(task); });
    }
    std::vector<std::size_t> ack(const std::vector<Task>& tasks) override {
        return call([&] { return inner_->ack(tasks); });
    }
    FailOutcome fail(const Task& task, const std::string& error) override {
        return call([&] { return inner_->fail(task, error); });
    }
    FailOutcome fail(const Task& task, const std::string& error, const RetryPolicy& policy) override {
        return call([&] { return inner_->fail(task, error, policy); });
    }
    void release(const std::vector<Task>& tasks) override {
        call([&] { inner_->release(tasks); });
    }
    Backlog backlog() override { return call([&] { return inner_->backlog(); }); }
    ReapResult reap() override { return call([&] { return inner_->reap(); }); }
    void heartbeat() override {
        call([&] { inner_->heartbeat(); });
    }
    void leave() override {
        call([&] { inner_->leave(); });
    }
    std::string describe(const Task& task) const override { return inner_->describe(task); }
    std::string name() const override { return name_; }

private:
    template <class Action>
    auto call(Action&& action) -> decltype(action()) {
        return follower_.call(action, [this](ConsumerOptions moved) {
            moved.redis.consumer = name_;  // the same name: its processing list and heartbeats moved with the slot
            inner_ = open_named_redis_consumer(redis_consumer_target(moved));
        });
    }

    SlotFollower follower_;
    std::unique_ptr<QueueConsumer> inner_;
    std::string name_;
};

class FollowingMaintainer final : public QueueMaintainer {
public:
    FollowingMaintainer(std::shared_ptr<redis::ClusterClient> client, const ConsumerOptions& options,
                        std::vector<std::string> consumers)
        : follower_(std::move(client), options),
          consumers_(std::move(consumers)),
          inner_(open_redis_maintainer(redis_consumer_target(follower_.owner()), consumers_)) {}

    ReapResult tick() override {
        return follower_.call([&] { return inner_->tick(); },
                              [this](const ConsumerOptions& moved) { inner_ = open_redis_maintainer(redis_consumer_target(moved), consumers_); });
    }

private:
    SlotFollower follower_;
    std::vector<std::string> consumers_;
    std::unique_ptr<QueueMaintainer> inner_;
};

class FollowingAdmin final : public QueueAdmin {
public:
    FollowingAdmin(std::shared_ptr<redis::ClusterClient> client, const ConsumerOptions& options)
        : follower_(std::move(client), options), inner_(open_redis_admin(redis_consumer_target(follower_.owner()))) {}

    std::string init() override { return call([&] { return inner_->init(); }); }
    QueueStats stats(bool exact) override { return call([&] { return inner_->stats(exact); }); }
    StatsWords words() const override { return inner_->words(); }
    std::string holder_line(const QueueStats::Holder& holder) const override { return inner_->holder_line(holder); }
    ReapResult reap() override { return call([&] { return inner_->reap(); }); }
    std::uint64_t promote() override { return call([&] { return inner_->promote(); }); }
    std::uint64_t purge(std::chrono::seconds older_than, std::size_t batch) override {
        return inner_->purge(older_than, batch);
    }
    std::uint64_t requeue_dead(std::uint64_t limit) override { return call([&] { return inner_->requeue_dead(limit); }); }

private:
    template <class Action>
    auto call(Action&& action) -> decltype(action()) {
        return follower_.call(action, [this](const ConsumerOptions& moved) { inner_ = open_redis_admin(redis_consumer_target(moved)); });
    }

    SlotFollower follower_;
    std::unique_ptr<QueueAdmin> inner_;
};

}  // namespace

std::unique_ptr<QueueConsumer> open_following_consumer(std::shared_ptr<redis::ClusterClient> client,
                                                       const ConsumerOptions& options, const std::size_t* worker) {
    return std::make_unique<FollowingConsumer>(std::move(client), options, worker);
}

std::unique_ptr<QueueMaintainer> open_following_maintainer(std::shared_ptr<redis::ClusterClient> client,
                                                           const ConsumerOptions& options,
                                                           std::vector<std::string> consumers) {
    return std::make_unique<FollowingMaintainer>(std::move(client), options, std::move(consumers));
}

std::unique_ptr<QueueAdmin> open_following_admin(std::shared_ptr<redis::ClusterClient> client,
                                                 const ConsumerOptions& options) {
    return std::make_unique<FollowingAdmin>(std::move(client), options);
}

}  // namespace rowpump
