// MySqlQueue's maintenance: reaping lost claims, purging done tasks, requeueing dead ones, stats and the
// backlog.
#include <algorithm>
#include <limits>

#include "backend/mysql_queue/mysql_queue_impl.hpp"

namespace rowpump {

namespace {

// Rows per statement for the bulk maintenance writes: each statement is a short transaction, so
// consumers and replicas never wait long behind it.
constexpr std::uint64_t maintenance_batch = 1000;

double seconds_from_microseconds(std::int64_t us) { return static_cast<double>(us) / 1e6; }

}  // namespace

ReapResult MySqlQueue::reap(std::chrono::milliseconds claim_timeout) {
    Impl& q = *impl_;
    const std::int64_t timeout_us = claim_timeout.count() * 1000;
    ReapResult result;
    for (;;) {
        const std::uint64_t before = result.dead + result.released;
        std::vector<std::uint64_t> lost;
        q.run([&] {
            lost.clear();
            auto rows = q.connection.query(q.sql.lost_claims, {timeout_us});
            while (rows.next()) lost.push_back(rows.uint64(1));
        });
        std::vector<mysql::Param> params;
        for (std::size_t first = 0; first < lost.size(); first += queue::max_rows_per_statement) {
            const std::size_t rows = std::min(queue::max_rows_per_statement, lost.size() - first);
            const std::size_t shape = queue::padded_rows(rows);
            params.clear();
            for (std::size_t i = 0; i < shape; ++i) params.emplace_back(lost[first + std::min(i, rows - 1)]);
            // Poison first: the claims that reach max_crashes go dead, the rest go back to ready.
            params.emplace_back(std::int64_t{q.options.max_crashes});
            params.emplace_back(timeout_us);
            result.dead += q.run([&] { return q.connection.execute(q.sql.reap_dead(shape), params); });
            params.erase(params.end() - 2);
            result.released += q.run([&] { return q.connection.execute(q.sql.reap_ready(shape), params); });
        }
        // A full page of candidates may have more behind it; stop when a page changed nothing.
        if (lost.size() < queue::lost_claims_per_read || result.dead + result.released == before) return result;
    }
}

std::uint64_t MySqlQueue::purge(std::chrono::seconds older_than, std::size_t batch) {
    Impl& q = *impl_;
    if (batch == 0) throw UsageError("purge batch must be at least 1 row");
    std::uint64_t deleted = 0;
    for (;;) {
        const auto rows = q.run([&] {
            return q.connection.execute(q.sql.purge, {std::int64_t{older_than.count()}, std::uint64_t{batch}});
        });
        deleted += rows;
        if (rows < batch) return deleted;
    }
}

std::uint64_t MySqlQueue::requeue_dead(std::uint64_t limit) {
    Impl& q = *impl_;
    std::uint64_t moved = 0;
    const std::uint64_t wanted = limit == 0 ? std::numeric_limits<std::uint64_t>::max() : limit;
    while (moved < wanted) {
        const std::uint64_t step = std::min(maintenance_batch, wanted - moved);
        const auto rows = q.run([&] { return q.connection.execute(q.sql.requeue_dead, {step}); });
        moved += rows;
        if (rows < step) break;
    }
    return moved;
}

QueueStats MySqlQueue::stats(std::uint64_t count_limit) {
    Impl& q = *impl_;
    return q.run([&] {
        QueueStats stats;
        const std::uint64_t limit = count_limit == 0 ? std::numeric_limits<std::int64_t>::max() : count_limit;
        const auto count = [&](const char* status) {
            auto row = q.connection.query(q.sql.count_status, {std::string(status), limit});
            row.next();
            const std::uint64_t counted = row.uint64(1);
            if (counted >= limit) stats.capped = true;
            return counted;
        };
        stats.ready = count("ready");
        stats.in_flight = count("claimed");
        stats.done = count("done");
        stats.dead = count("dead");

        for (const auto& [level, waited_us] : q.ready_levels()) {
            const double waited = seconds_from_microseconds(waited_us);
            if (waited >= 0 && (!stats.oldest_ready_seconds || waited > *stats.oldest_ready_seconds))
                stats.oldest_ready_seconds = waited;
        }

        auto holders = q.connection.query(q.sql.holders);
        while (holders.next()) {
            QueueStats::Holder holder;
            holder.name = std::to_string(holders.uint64(1));
            holder.tasks = holders.uint64(2);
            holder.age_seconds = holders.is_null(3) ? 0 : seconds_from_microseconds(holders.int64(3));
            holder.alive = holders.int64(4) != 0;
            stats.holders.push_back(std::move(holder));
        }
        return stats;
    });
}

Backlog MySqlQueue::backlog(std::uint64_t row_limit) {
    Impl& q = *impl_;
    return q.run([&] {
        auto row = q.connection.query(q.sql.backlog, {row_limit});
        row.next();
        Backlog backlog;
        backlog.waiting = row.uint64(1);
        if (!row.is_null(2))
            backlog.next_due = std::chrono::milliseconds(std::max<std::int64_t>(row.int64(2), 0) / 1000);
        backlog.later = row.uint64(3);
        // Only when nothing is due, which is when a draining consumer asks.
        if (backlog.waiting == 0) {
            auto held = q.connection.query(q.sql.held);
            held.next();
            backlog.held = held.uint64(1);
            backlog.orphaned = held.uint64(2);
        }
        return backlog;
    });
}

}  // namespace rowpump
