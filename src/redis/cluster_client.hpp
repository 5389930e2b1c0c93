#pragma once
// A client of a Redis Cluster over redis::Connection: one connection per node, opened when first needed,
// and the slot map (CLUSTER SLOTS) that says which node owns each slot. Commands go to the owner of their
// slot, pipelined per node. A MOVED reply (the slot has a new owner: a finished migration, a failover)
// reads the map again and sends the commands there; an ASK reply (the slot is being migrated and the key
// is already on the importing node) sends them to that node once, each after ASKING, without changing
// the map. A lost node is transient: retrying() waits, reads the map again (a replica may have taken
// over) and tries again within the retry budget.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/cluster_options.hpp"
#include "redis/cluster_slot.hpp"
#include "redis/connection.hpp"
#include "retry.hpp"

namespace rowpump::redis {

// A redirection a node answered instead of running a command: "MOVED 3999 127.0.0.1:6381" or "ASK ...".
struct Redirect {
    bool ask = false;
    std::uint16_t slot = 0;
    std::string host;
    unsigned port = 0;
};
// The redirection an error's message reports, if any.
std::optional<Redirect> find_redirect(std::string_view message);

class ClusterClient {
public:
    using Command = std::span<const std::string_view>;

    // Reads the slot map from the first seed that answers. Throws a transient QueueError when none does.
    explicit ClusterClient(ClusterOptions options);
    // The first contact of a run: a cluster that cannot be reached is a UsageError (exit 2), at once.
    static ClusterClient connect_at_start(ClusterOptions options);

    // The node that owns `slot` in the map as last read, and its connection options.
    RedisOptions owner_options(std::uint16_t slot) const;
    // A connection to the owner of `slot` (opened now when there is none).
    Connection& owner(std::uint16_t slot);

    // Sends `commands` (every key of them in `slot`) in one pipeline to the slot's owner and reads their
    // replies, following MOVED and ASK (a few times at most: then a transient QueueError). A redirected
    // pipeline is sent again whole: commands the first node ran before the redirection run twice, so
    // only commands safe to repeat belong here. Error replies throw as Connection::read_replies throws them.
    std::vector<Reply> pipeline(std::uint16_t slot, std::span<const Command> commands);
    Reply command(std::uint16_t slot, Command argv);
    Reply command(std::uint16_t slot, std::initializer_list<std::string_view> argv);

    // Reads the slot map again, from any node known that answers.
    void refresh();

    // Runs `action(connection)` on the owner of `slot`: for code that talks to one node in its own way (a
    // WATCH and a transaction, a script, another backend's own objects). A MOVED reply it throws updates
    // the map and runs it again on the new owner; an ASK reply (a migration under way) is a transient
    // error, which retrying() waits out until the migration ends and the slot is MOVED.
    template <class Action>
    auto on_owner(std::uint16_t slot, Action&& action) -> decltype(action(std::declval<Connection&>())) {
        for (int hop = 0;; ++hop) {
            try {
                return action(owner(slot));
            } catch (const QueueError& error) {
                if (!follow(error) || hop + 1 >= 5) throw;
            }
        }
    }
    // What a redirection reported in `error` tells: MOVED updates the map (true: try again at the new
    // owner); ASK throws a transient QueueError; anything else is false.
    bool follow(const QueueError& error);

    // Calls `action` until it succeeds or throws an error that is not transient, with the retry policy of
    // Connection::retrying (retry.hpp): backoff, the retry budget, a stop request. After a failure the
    // next attempt first reads the slot map again.
    template <class Action>
    auto retrying(Action&& action) -> decltype(action()) {
        return retry_transient(
            options_.seeds.front().retry_budget,
            [&] {
                if (stale_) refresh();
                return action();
            },
            [this](const Error& error, int attempt, const RetryDeadline& deadline) {
                stale_ = true;
                wait_before_retry(error, attempt, deadline);
            });
    }

    const ClusterOptions& options() const noexcept { return options_; }
    std::string redacted() const { return options_.redacted(); }

private:
    struct Node {
        std::string host;
        unsigned port = 0;
        std::unique_ptr<Connection> connection;
    };

    std::size_t node_index(const std::string& host, unsigned port);
    Connection& connect(std::size_t node);
    // Reads the map from `connection` (a node of the cluster): false when that node is not in a cluster.
    void read_map(Connection& connection, const std::string& asked_host);
    void wait_before_retry(const Error& error, int attempt, const RetryDeadline& deadline);

    ClusterOptions options_;
    std::vector<Node> nodes_;                  // every node the map or a redirection named
    std::vector<std::uint32_t> slot_owner_;    // slot -> index in nodes_; unassigned: nodes_.size()
    bool stale_ = false;
};

}  // namespace rowpump::redis
