#include "backend/redis/redis_wait.hpp"

#include <charconv>

#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

template <class Number>
bool parse_number(std::string_view text, Number& out) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

void parse_redis_wait(const std::string& text, SinkSpec& sink) {
    const auto colon = text.find(':');
    const std::string_view replicas = std::string_view(text).substr(0, colon);
    unsigned count = 0;
    long long timeout = sink.redis_only.wait_timeout.count();
    const bool ok = parse_number(replicas, count) && count <= 1000 &&
                    (colon == std::string::npos ||
                     (parse_number(std::string_view(text).substr(colon + 1), timeout) && timeout > 0 &&
                      timeout <= 3'600'000));
    if (!ok)
        throw config::OptionError({"invalid ", config::OptionId::redis_wait, " '" + text +
                                   "': expected N[:timeout_ms], the replicas that must have each page (0-1000) and "
                                   "how long to wait for them (1-3600000 ms, default 1000), e.g. 1:500"});
    sink.redis_only.wait_replicas = count;
    sink.redis_only.wait_timeout = std::chrono::milliseconds(timeout);
}

void wait_for_replicas(Connection& connection, const RedisReplicaWait& wait, std::size_t rows, bool retried) {
    if (wait.replicas == 0) return;
    const std::string wanted = std::to_string(wait.replicas);
    const auto timeout = wait.timeout;
    const long long acknowledged =
        connection.blocking_command({"WAIT", wanted, std::to_string(timeout.count())}, timeout).integer;
    if (acknowledged >= wait.replicas) return;
    using config::OptionId;
    const auto flag = [](OptionId id) { return config::spelled(id, config::Spelling::cli); };
    const std::string what = "a page of " + std::to_string(rows) + " rows reached " + std::to_string(acknowledged) +
                             " of the " + wanted + " replicas " + flag(OptionId::redis_wait) + " asks for within " +
                             std::to_string(timeout.count()) + " ms";
    if (retried) throw QueueError(what + "; waiting again", true);
    throw QueueError(what + ": it is on the master, but a failover now could lose it, and without " +
                         flag(OptionId::job_id) + " a retry could push it twice, so the run stops (give " +
                         flag(OptionId::job_id) + " to have such pages retried)",
                     false);
}

}  // namespace rowpump::redis
