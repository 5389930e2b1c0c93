#pragma once
// The HTTP endpoint of `queue consume --http`: GET / (the status page, http/web_page.hpp), GET /status
// (JSON: this consumer's counts and latency, the queue's depths by state, the newest tasks it saw go dead),
// GET /metrics (Prometheus text), and POST /requeue-dead[?limit=N] (the same as `queue requeue-dead`).
// The depths are counted through a connection of the endpoint's own, at most once a second however many
// pages poll.
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "cli/dead_tasks.hpp"
#include "cli/queue_source.hpp"
#include "http/http_server.hpp"
#include "metrics/consumer_metrics.hpp"
#include "queue/queue_admin.hpp"

namespace rowpump::cli {

class ConsumerEndpoint {
public:
    // Serves on options.http until destroyed (a bad address is a UsageError here, before anything runs).
    ConsumerEndpoint(const QueueOptions& options, const ConsumerOptions& consumer,
                     const metrics::ConsumerMetrics& counters, const DeadTasks& dead);
    ~ConsumerEndpoint();
    ConsumerEndpoint(const ConsumerEndpoint&) = delete;
    ConsumerEndpoint& operator=(const ConsumerEndpoint&) = delete;

private:
    http::Response handle(const http::Request& request);
    http::Response status();
    http::Response requeue_dead(const http::Request& request);
    QueueAdmin& admin();  // opened on first use, again after a failure

    const QueueOptions& options_;
    const ConsumerOptions& consumer_;
    const metrics::ConsumerMetrics& counters_;
    const DeadTasks& dead_;
    const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::mutex mutex_;  // the admin and the cached depths (the server has one thread; this keeps it so)
    std::unique_ptr<QueueAdmin> admin_;
    std::optional<QueueStats> depths_;
    std::string depths_error_;
    std::chrono::steady_clock::time_point depths_at_{};
    std::unique_ptr<http::Server> server_;  // last: its handler uses everything above
};

}  // namespace rowpump::cli
