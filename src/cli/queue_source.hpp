#pragma once
// The queue subcommands' view of --source: the library's consumer options built from the flags, with the
// source typed by the registry (the URL's scheme picks the backend).
#include <chrono>

#include "cli/queue_command.hpp"
#include "config/option_schema.hpp"
#include "rowpump/consumer.hpp"

namespace rowpump::cli {

// Seconds from a flag as milliseconds; throws an OptionError naming `flag` when negative.
std::chrono::milliseconds flag_milliseconds(double seconds, config::OptionId flag);

// The options of the library's consumers (rowpump/consumer.hpp) for --source and --queue, set up from the
// flags: everything but the stop flag and the callbacks. Throws UsageError for a source no backend with a
// queue takes, and for a flag out of range or one the source's backend has no use for.
ConsumerOptions consumer_options(const QueueOptions& options);

// For consume and reap: a backend whose claims expire needs a claim timeout of more than 0.
void check_claim_timeout(const ConsumerOptions& consumer);

}  // namespace rowpump::cli
