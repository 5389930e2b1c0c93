#include "redis/cluster_client.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <thread>

#include "log.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

// A redirection answers with the node that has the slot now; a few hops cover a migration that finished
// between two of them. More means the nodes disagree (a failover still spreading): retry later.
constexpr int max_hops = 5;
constexpr std::chrono::milliseconds stop_poll{100};

std::optional<unsigned> parse_number(std::string_view text) {
    unsigned value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

}  // namespace

std::optional<Redirect> find_redirect(std::string_view message) {
    // The error reply as the connection quotes it: "... answered: MOVED 3999 127.0.0.1:6381".
    for (const std::string_view word : {std::string_view("MOVED "), std::string_view("ASK ")}) {
        for (auto at = message.find(word); at != std::string_view::npos; at = message.find(word, at + 1)) {
            if (at != 0 && message[at - 1] != ' ') continue;
            std::string_view rest = message.substr(at + word.size());
            const auto space = rest.find(' ');
            if (space == std::string_view::npos) continue;
            const auto slot = parse_number(rest.substr(0, space));
            std::string_view address = rest.substr(space + 1);
            address = address.substr(0, std::min(address.find_first_of(" \r\n"), address.size()));
            const auto colon = address.rfind(':');
            if (!slot || *slot >= cluster_slots || colon == std::string_view::npos) continue;
            const auto port = parse_number(address.substr(colon + 1));
            if (!port || *port == 0 || *port > 65535) continue;
            return Redirect{word == "ASK ", static_cast<std::uint16_t>(*slot), std::string(address.substr(0, colon)), *port};
        }
    }
    return std::nullopt;
}

ClusterClient::ClusterClient(ClusterOptions options) : options_(std::move(options)) {
    if (options_.seeds.empty()) throw UsageError("a Redis Cluster needs at least one node: redis-cluster://host:port/");
    for (const RedisOptions& seed : options_.seeds) node_index(seed.host, seed.port);
    refresh();
}

ClusterClient ClusterClient::connect_at_start(ClusterOptions options) {
    try {
        return ClusterClient(std::move(options));
    } catch (const QueueError& error) {
        // Nothing is written yet: an unreachable cluster, or a server that is not one, is the user's to fix.
        throw UsageError(error.what());
    }
}

std::size_t ClusterClient::node_index(const std::string& host, unsigned port) {
    for (std::size_t i = 0; i < nodes_.size(); ++i)
        if (nodes_[i].host == host && nodes_[i].port == port) return i;
    nodes_.push_back({host, port, nullptr});
    return nodes_.size() - 1;
}

Connection& ClusterClient::connect(std::size_t node) {
    Node& target = nodes_.at(node);
    if (!target.connection) target.connection = std::make_unique<Connection>(options_.node(target.host, target.port));
    else if (!target.connection->connected()) target.connection->reconnect();
    return *target.connection;
}

void ClusterClient::read_map(Connection& connection, const std::string& asked_host) {
    const Reply reply = connection.command({"CLUSTER", "SLOTS"});
    std::vector<std::uint32_t> owners(cluster_slots, std::numeric_limits<std::uint32_t>::max());
    for (const Reply& range : reply.elements) {
        if (range.elements.size() < 3 || range.elements[2].elements.size() < 2) continue;
        const Reply& master = range.elements[2];
        // An empty host: the node answers on the address it was asked on.
        const std::string host = master.elements[0].text.empty() ? asked_host : master.elements[0].text;
        const auto node = static_cast<std::uint32_t>(node_index(host, static_cast<unsigned>(master.elements[1].integer)));
        const auto first = std::clamp<long long>(range.elements[0].integer, 0, cluster_slots - 1);
        const auto last = std::clamp<long long>(range.elements[1].integer, 0, cluster_slots - 1);
        for (long long slot = first; slot <= last; ++slot) owners[static_cast<std::size_t>(slot)] = node;
    }
    slot_owner_ = std::move(owners);
    stale_ = false;
}

void ClusterClient::refresh() {
    std::string last_error = "no node known";
    // The nodes of the map first (a seed may be the one that died), then the seeds by name.
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        try {
            read_map(connect(i), nodes_[i].host);
            return;
        } catch (const QueueError& error) {
            // An error reply (not a cluster node, a refused login) says the same on every node.
            if (!error.is_transient() && nodes_.size() == options_.seeds.size())
                throw QueueError("Redis at " + nodes_[i].host + ":" + std::to_string(nodes_[i].port) +
                                     " gave no slot map (is it a node of a Redis Cluster?): " + error.what(),
                                 false);
            last_error = error.what();
        }
    }
    throw QueueError("no node of the Redis Cluster " + redacted() + " gave its slot map: " + last_error, true);
}

RedisOptions ClusterClient::owner_options(std::uint16_t slot) const {
    const std::uint32_t node = slot_owner_.at(slot);
    if (node >= nodes_.size())
        throw QueueError("slot " + std::to_string(slot) + " of the Redis Cluster " + redacted() + " has no master now",
                         true);
    return options_.node(nodes_[node].host, nodes_[node].port);
}

Connection& ClusterClient::owner(std::uint16_t slot) {
    owner_options(slot);  // throws for a slot without a master
    return connect(slot_owner_[slot]);
}

std::vector<Reply> ClusterClient::pipeline(std::uint16_t slot, std::span<const Command> commands) {
    std::optional<Redirect> ask;
    for (int hop = 0; hop < max_hops; ++hop) {
        Connection& connection = ask ? connect(node_index(ask->host, ask->port)) : owner(slot);
        const std::string_view asking[] = {"ASKING"};
        for (const Command& command : commands) {
            if (ask) connection.append(asking);
            connection.append(command);
        }
        try {
            std::vector<Reply> replies = connection.read_replies(commands.size() * (ask ? 2 : 1));
            if (!ask) return replies;
            std::vector<Reply> answers;
            for (std::size_t i = 1; i < replies.size(); i += 2) answers.push_back(std::move(replies[i]));
            return answers;
        } catch (const QueueError& error) {
            const auto redirect = find_redirect(error.what());
            if (!redirect) throw;
            if (redirect->ask) {
                ask = redirect;
                continue;
            }
            // MOVED: the slot has a new owner, and the map may be old in other slots too.
            ask.reset();
            follow(error);
        }
    }
    throw QueueError("slot " + std::to_string(slot) + " of the Redis Cluster " + redacted() + " was redirected " +
                         std::to_string(max_hops) + " times in a row (a failover or migration under way)",
                     true);
}

bool ClusterClient::follow(const QueueError& error) {
    const auto redirect = find_redirect(error.what());
    if (!redirect) return false;
    if (redirect->ask)
        throw QueueError("slot " + std::to_string(redirect->slot) + " of the Redis Cluster " + redacted() +
                             " is being migrated to " + redirect->host + ":" + std::to_string(redirect->port) +
                             ": waiting for the migration to end",
                         true);
    const std::size_t node = node_index(redirect->host, redirect->port);
    try {
        read_map(connect(node), redirect->host);
    } catch (const QueueError&) {
        stale_ = true;
    }
    slot_owner_.at(redirect->slot) = static_cast<std::uint32_t>(node);
    return true;
}

Reply ClusterClient::command(std::uint16_t slot, Command argv) {
    return std::move(pipeline(slot, std::span<const Command>(&argv, 1)).front());
}

Reply ClusterClient::command(std::uint16_t slot, std::initializer_list<std::string_view> argv) {
    return command(slot, Command(argv.begin(), argv.size()));
}

void ClusterClient::wait_before_retry(const Error& error, int attempt, const RetryDeadline& deadline) {
    const std::atomic<bool>* stop = options_.seeds.front().stop;
    const auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
    const auto interrupted = [&] {
        return Interrupted("stopped by a signal while retrying the Redis Cluster " + redacted() + ": " + error.what());
    };
    if (stopped()) throw interrupted();
    if (deadline.spent())
        throw QueueError("the Redis Cluster " + redacted() + " failed for " + describe_duration(deadline.budget()) +
                             " (--retry-budget): " + error.what(),
                         false);
    const auto wait = deadline.next_wait(attempt);
    log().warn("{}; retrying in {} ms", error.what(), wait.count());
    for (const auto until = std::chrono::steady_clock::now() + wait; std::chrono::steady_clock::now() < until;) {
        if (stopped()) throw interrupted();
        std::this_thread::sleep_for(std::min(
            stop_poll, std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()) +
                           std::chrono::milliseconds(1)));
    }
}

}  // namespace rowpump::redis
