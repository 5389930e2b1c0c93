#include "cli/queue_source.hpp"

#include <cmath>
#include <cstdint>

#include "config/option_checks.hpp"
#include "rowpump/error.hpp"
#include "backend/registry/registry.hpp"

namespace rowpump::cli {

using config::OptionId;
using std::chrono::milliseconds;

milliseconds flag_milliseconds(double seconds, const char* flag) {
    if (!(seconds >= 0) || !std::isfinite(seconds))
        throw UsageError(std::string(flag) + " must be a number of seconds >= 0");
    return milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

QueueSource parse_queue_source(const QueueOptions& options) {
    if (options.source.empty())
        throw UsageError("no queue source: pass --source mysql://... or redis://... (or set ROWPUMP_QUEUE_SOURCE)");
    QueueSource source;
    const Backend& backend = backend_for_uri(options.source, TargetRole::queue_source);
    if (!backend.traits().redis_keys) {
        source.mysql = MySqlOptions::from_url(options.source);
        options.timeouts.apply(*source.mysql);
        source.redacted = source.mysql->redacted();
    } else {
        if (options.queue.empty()) throw UsageError("no queue given: pass --queue NAME");
        source.redis = backend.redis_server(options.source, redis_queue_options(options));
        options.timeouts.apply(*source.redis);
        source.redacted = source.redis->redacted();
    }
    if (options.queue.empty()) throw UsageError("no queue given: pass --queue NAME");
    const QueueOptions defaults;
    std::vector<OptionId> redis_names;
    if (options.list_key != defaults.list_key) redis_names.push_back(OptionId::list_key);
    if (options.delayed_key != defaults.delayed_key) redis_names.push_back(OptionId::delayed_key);
    if (options.delay_score != defaults.delay_score) redis_names.push_back(OptionId::delay_score);
    config::check_redis_names_apply(redis_names, options.source, source.redis.has_value());
    return source;
}

RetryPolicy retry_policy(const QueueOptions& options) {
    RetryPolicy policy;
    policy.max_attempts = options.max_attempts;
    policy.backoff_base = flag_milliseconds(options.backoff_seconds, "--backoff");
    policy.backoff_cap = flag_milliseconds(options.backoff_cap_seconds, "--backoff-cap");
    return policy;
}

MySqlQueueOptions mysql_queue_options(const QueueOptions& options) {
    MySqlQueueOptions queue;
    queue.table = options.queue;
    queue.claim_mode = options.claim_mode == "update-then-select" ? ClaimMode::update_then_select : ClaimMode::skip_locked;
    queue.retry = retry_policy(options);
    queue.max_crashes = options.max_crashes;
    return queue;
}

RedisQueueOptions redis_queue_options(const QueueOptions& options) {
    RedisQueueOptions queue;
    queue.queue = options.queue;
    queue.priority_lists = options.priority_lists;
    queue.return_list = options.return_list;
    queue.list_key = options.list_key;
    queue.delayed_key = options.delayed_key;
    queue.delay_score = options.delay_score;
    queue.retry = retry_policy(options);
    queue.poll_interval = flag_milliseconds(options.poll_seconds, "--poll");
    return queue;
}

ConsumerOptions consumer_options(const QueueSource& source, const QueueOptions& options) {
    ConsumerOptions consumer;
    consumer.workers = options.concurrency;
    consumer.batch = options.batch;
    consumer.until_empty = options.until_empty;
    if (source.mysql) {
        consumer.mysql = source.mysql;
        consumer.mysql_queue = mysql_queue_options(options);
        consumer.claim_timeout = flag_milliseconds(options.claim_timeout_seconds, "--claim-timeout");
        if (consumer.claim_timeout.count() == 0)
            throw UsageError("--claim-timeout must be more than 0 s: every claim would be taken back at once");
    } else {
        consumer.redis = source.redis;
        consumer.redis_queue = redis_queue_options(options);
        consumer.redis_queue.consumer = options.consumer;  // the library adds :<n> per worker
        consumer.heartbeat_timeout = flag_milliseconds(options.heartbeat_timeout_seconds, "--heartbeat-timeout");
    }
    consumer.reap_interval = flag_milliseconds(options.reap_interval_seconds, "--reap-interval");
    return consumer;
}

}  // namespace rowpump::cli
