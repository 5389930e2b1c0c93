#pragma once
// The queue subcommands' view of --source: which backend, and the library options built from the flags.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/queue_command.hpp"
#include "config/option_schema.hpp"
#include "rowpump/consumer.hpp"
#include "rowpump/options.hpp"
#include "rowpump/queue.hpp"

namespace rowpump::cli {

struct QueueSource {
    std::optional<MySqlOptions> mysql;  // exactly one of these is set
    std::optional<RedisOptions> redis;
    std::string redacted;               // for messages
};

// Parses --source (mysql://..., mariadb://... or redis://...). Throws UsageError for anything else.
QueueSource parse_queue_source(const QueueOptions& options);
RetryPolicy retry_policy(const QueueOptions& options);
MySqlQueueOptions mysql_queue_options(const QueueOptions& options);
RedisQueueOptions redis_queue_options(const QueueOptions& options);

// Seconds from a flag as milliseconds; throws an OptionError naming `flag` when negative.
std::chrono::milliseconds flag_milliseconds(double seconds, config::OptionId flag);
// --claim-timeout as milliseconds, more than 0 (else an OptionError).
std::chrono::milliseconds claim_timeout(const QueueOptions& options);

// The options of the library's consumers (rowpump/consumer.hpp) for the source, set up from the flags:
// everything but the stop flag and the callbacks. Throws UsageError for a flag out of range.
ConsumerOptions consumer_options(const QueueSource& source, const QueueOptions& options);

}  // namespace rowpump::cli
