#pragma once
// The queue subcommands, one function each; run_queue (queue_command.cpp) picks the one given.
#include "cli/queue_command.hpp"

namespace rowpump::cli {

int run_queue_init(const QueueOptions& options);
int run_queue_stats(const QueueOptions& options);
int run_queue_consume(const QueueOptions& options);
int run_queue_reap(const QueueOptions& options);
int run_queue_promote(const QueueOptions& options);
int run_queue_purge(const QueueOptions& options);
int run_queue_requeue_dead(const QueueOptions& options);

}  // namespace rowpump::cli
