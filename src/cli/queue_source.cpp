#include "cli/queue_source.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "backend/queue_source.hpp"
#include "backend/registry/registry.hpp"
#include "config/option_checks.hpp"
#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

using config::OptionId;
using std::chrono::milliseconds;

milliseconds flag_milliseconds(double seconds, OptionId flag) {
    if (!(seconds >= 0) || !std::isfinite(seconds))
        throw config::OptionError({flag, " must be a number of seconds >= 0"});
    return milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

namespace {

// --source, typed by its backend, with --read-timeout, --write-timeout and --retry-budget over the URL's.
QueueSource queue_source(const QueueOptions& options) {
    if (options.source.empty())
        throw config::OptionError({"no queue source: pass ", OptionId::queue_source, " mysql://... or redis://... (or set " +
                                   config::option(OptionId::queue_source).env + ")"});
    backend_for_uri(options.source, TargetRole::queue_source);  // an unknown scheme is named before the queue
    QueueSource named = QueueSource::from_url(options.source, options.queue);
    named.stream_group = options.group;
    QueueSource source = typed_source(named);
    options.timeouts.apply(connection_timeouts(source));
    if (options.queue.empty()) throw config::OptionError({"no queue given: pass ", OptionId::queue_name, " NAME"});
    return source;
}

RetryPolicy retry_policy(const QueueOptions& options) {
    RetryPolicy policy;
    policy.max_attempts = static_cast<int>(options.max_attempts);
    policy.backoff_base = flag_milliseconds(options.backoff_seconds, OptionId::backoff);
    policy.backoff_cap = flag_milliseconds(options.backoff_cap_seconds, OptionId::backoff_cap);
    return policy;
}

}  // namespace

ConsumerOptions consumer_options(const QueueOptions& options) {
    ConsumerOptions consumer;
    consumer.source = queue_source(options);
    const Backend& backend = backend_for(consumer.source);
    config::check_redis_names_apply(config::redis_name_options_given(options.redis_names), options.source,
                                    backend.traits().redis_keys);
    consumer.retry = retry_policy(options);
    consumer.claim_mode = options.claim_mode;
    consumer.max_crashes = static_cast<int>(options.max_crashes);
    static_cast<RedisKeyNames&>(consumer.redis) = options.redis_names;
    consumer.redis.priority_lists = options.priority_lists;
    consumer.redis.return_list = options.return_list;
    consumer.redis.consumer = options.consumer;  // the library adds :<n> per worker
    consumer.redis.poll_interval = flag_milliseconds(options.poll_seconds, OptionId::poll);
    consumer.shards = options.shards;
    config::check_shards_apply(consumer.shards, options.source, backend.traits().shards);
    consumer.workers = options.concurrency;
    consumer.batch = options.batch;
    consumer.until_empty = options.until_empty;
    if (backend.traits().claims_expire)
        consumer.claim_timeout = flag_milliseconds(options.claim_timeout_seconds, OptionId::claim_timeout);
    consumer.heartbeat_timeout = flag_milliseconds(options.heartbeat_timeout_seconds, OptionId::heartbeat_timeout);
    consumer.reap_interval = flag_milliseconds(options.reap_interval_seconds, OptionId::reap_interval);
    return consumer;
}

void check_claim_timeout(const ConsumerOptions& consumer) {
    if (backend_for(consumer.source).traits().claims_expire && consumer.claim_timeout.count() == 0)
        throw config::OptionError(
            {OptionId::claim_timeout, " must be more than 0 s: every claim would be taken back at once"});
}

}  // namespace rowpump::cli
