// MySqlQueue's consumer operations: claim, ack, fail, release, heartbeat (the SQL is in mysql_queue_sql.cpp).
#include <algorithm>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "log.hpp"
#include "queue/error_text.hpp"
#include "backend/mysql_queue/mysql_queue_impl.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "queue/retry_policy.hpp"

namespace rowpump {

namespace {

constexpr std::int64_t microseconds(std::chrono::milliseconds duration) { return duration.count() * 1000; }

Task read_task(const mysql::Rows& row) {
    Task task;
    task.id = row.uint64(1);
    task.payload = row.text(2);
    task.version = row.uint64(3);
    task.attempts = static_cast<int>(row.int64(4));
    // Every earlier delivery ended in a failure (attempts) or in a claim taken back (crashes).
    task.deliveries = task.attempts + static_cast<int>(row.int64(6)) + 1;
    return task;
}

// What a statement over a list of tasks binds: ids alone, or (id, version) pairs.
enum class Bind { ids, id_versions };

// Calls each(first, chunk, shape, params) for every run of at most max_rows_per_statement tasks, starting
// at tasks[first], with `params` holding the chunk padded to `shape` rows by repeating its last task
// (queue::padded_rows).
template <class Each>
void for_each_chunk(std::span<const Task> tasks, Bind bind, Each each) {
    std::vector<mysql::Param> params;
    for (std::size_t first = 0; first < tasks.size(); first += queue::max_rows_per_statement) {
        const auto chunk = tasks.subspan(first, std::min(queue::max_rows_per_statement, tasks.size() - first));
        const std::size_t shape = queue::padded_rows(chunk.size());
        params.clear();
        for (std::size_t i = 0; i < shape; ++i) {
            const Task& task = chunk[std::min(i, chunk.size() - 1)];
            params.emplace_back(task.id);
            if (bind == Bind::id_versions) params.emplace_back(task.version);
        }
        each(first, chunk, shape, params);
    }
}

StaleClaim stale(const std::string& table, const Task& task) {
    return StaleClaim("task " + std::to_string(task.id) + " of queue table " + mysql::quote_identifier(table) +
                      " is no longer claimed at version " + std::to_string(task.version) +
                      ": the reaper took it back (owner gone or claim timed out); drop it");
}

}  // namespace

MySqlQueue::Impl::Impl(MySqlOptions mysql, MySqlQueueOptions queue)
    : connection(std::move(mysql)),
      options(std::move(queue)),
      sql(options.table, ""),
      cursors(queue::ClaimCursors::shared(connection.options().redacted() + " " + options.table)) {
    queue::validate(options.retry);
    if (options.max_crashes < 1)
        throw UsageError("max crashes must be at least 1, not " + std::to_string(options.max_crashes));
    prepare_session();
    if (options.claim_mode == ClaimMode::skip_locked && !connection.server_flavor().skip_locked()) {
        // The version fence of update-then-select needs no locking read; SKIP LOCKED came in MariaDB 10.6.
        log().info("{} has no SKIP LOCKED: claims from {} use --claim-mode update-then-select",
                   connection.server_flavor().describe(), options.table);
        options.claim_mode = ClaimMode::update_then_select;
    }
    sql = queue::QueueSql(options.table, run([&] { return mysql::check_queue_table(connection, options.table); }));
}

void MySqlQueue::Impl::prepare_session() {
    connection.execute_text("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
}

const std::vector<std::int64_t>& MySqlQueue::Impl::due_levels(bool fresh) {
    const auto now = std::chrono::steady_clock::now();
    if (!fresh && now < levels_expire) return levels;
    levels.clear();
    cursors->forget_older_than(levels_ttl);
    for (const auto& [level, waited_us] : ready_levels())
        if (waited_us >= 0) levels.push_back(level);
    levels_expire = now + levels_ttl;
    return levels;
}

std::vector<std::pair<std::int64_t, std::int64_t>> MySqlQueue::Impl::ready_levels() {
    std::vector<std::pair<std::int64_t, std::int64_t>> ready;
    for (std::int64_t below = std::numeric_limits<std::int64_t>::max();;) {
        auto next = connection.query(sql.next_level, {below});
        if (!next.next() || next.is_null(1)) break;
        below = next.int64(1);
        auto wait = connection.query(sql.level_wait, {below});
        // A row claimed between the two reads can leave the level empty: no wait, nothing due.
        if (wait.next() && !wait.is_null(1)) ready.emplace_back(below, wait.int64(1));
    }
    return ready;
}

bool MySqlQueue::Impl::claim_at(std::int64_t level, std::size_t n, std::vector<Task>& tasks) {
    const std::size_t before = tasks.size();
    for (int reads = 0; reads < max_reads_per_claim && tasks.size() < before + n; ++reads) {
        const std::uint64_t wanted = before + n - tasks.size();
        bool from_head = false;
        std::vector<Task> read;
        {
            const auto reading = cursors->lock();
            const auto cursor = cursors->at(level);
            from_head = !cursor;
            const std::uint64_t skip = from_head || spread == 1 ? 0 : wanted * (spread_random() % spread);
            std::vector<mysql::Param> params{level};
            if (!from_head) params.insert(params.end(), {cursor->available_at, cursor->available_at, cursor->id});
            params.emplace_back(wanted);
            if (skip > 0) params.emplace_back(skip);
            const std::string& statement =
                from_head ? sql.due_ready : skip > 0 ? sql.due_ready_after_skipping : sql.due_ready_after;
            auto rows = connection.query(statement, params);
            std::string last_available_at;
            while (rows.next()) {
                read.push_back(read_task(rows));
                last_available_at = rows.text(5);
            }
            // No more due rows after the cursor: the next read starts at the head, for the rows before it.
            if (read.size() < wanted && !from_head) cursors->erase(level);
            else if (!read.empty()) cursors->move(level, {std::move(last_available_at), read.back().id});
        }
        const std::size_t found = read.size();
        if (found > 0) {
            if (options.claim_mode == ClaimMode::skip_locked) keep_locked(read);
            claim_ready(read);
            spread = read.size() < found ? std::min(spread * 2, max_spread) : std::max(spread / 2, 1u);
        }
        const bool collided = read.size() < found;
        std::move(read.begin(), read.end(), std::back_inserter(tasks));
        if (found < wanted) {
            if (from_head) return true;
        } else if (collided && tasks.size() > before) {
            // Other consumers are claiming the same rows: hand over what this claim has (its transaction,
            // in skip_locked, holds them) rather than chase them.
            return false;
        }
    }
    return false;
}

void MySqlQueue::Impl::keep_locked(std::vector<Task>& read) {
    std::unordered_set<std::uint64_t> locked;
    for_each_chunk(read, Bind::id_versions, [&](std::size_t, auto, std::size_t shape, const auto& params) {
        auto result = connection.query(sql.lock_ready(shape), params);
        while (result.next()) locked.insert(result.uint64(1));
    });
    std::erase_if(read, [&](const Task& task) { return !locked.contains(task.id); });
}

void MySqlQueue::Impl::claim_ready(std::vector<Task>& read) {
    std::uint64_t claimed = 0;
    for_each_chunk(read, Bind::id_versions, [&](std::size_t, auto, std::size_t shape, const auto& params) {
        claimed += connection.execute(sql.claim_ready(shape), params);
    });
    if (claimed < read.size()) {
        // Another consumer took some of them since the read: only the rows can tell which.
        std::unordered_map<std::uint64_t, std::uint64_t> held;  // id -> version
        for_each_chunk(read, Bind::ids, [&](std::size_t, auto, std::size_t shape, const auto& params) {
            auto result = connection.query(sql.claimed_rows(shape), params);
            while (result.next()) held.emplace(result.uint64(1), result.uint64(3));
        });
        std::erase_if(read, [&](const Task& task) {
            const auto found = held.find(task.id);
            return found == held.end() || found->second != task.version + 1;
        });
    }
    for (Task& task : read) ++task.version;
}

bool MySqlQueue::Impl::is_done_at(std::uint64_t id, std::uint64_t version) {
    auto row = connection.query(sql.row_state, {id});
    return row.next() && row.text(1) == "done" && row.uint64(2) == version;
}

MySqlQueue::MySqlQueue(MySqlOptions options, MySqlQueueOptions queue)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(queue))) {}
MySqlQueue::~MySqlQueue() = default;
MySqlQueue::MySqlQueue(MySqlQueue&&) noexcept = default;
MySqlQueue& MySqlQueue::operator=(MySqlQueue&&) noexcept = default;

void MySqlQueue::create_table(const MySqlOptions& options, const std::string& table) {
    mysql::Connection connection(options);
    connection.retrying([&] {
        mysql::create_queue_table(connection, table);
        mysql::check_queue_table(connection, table);
    });
}

std::vector<Task> MySqlQueue::claim(std::size_t n) {
    if (n == 0) return {};
    Impl& q = *impl_;
    std::vector<Task> tasks;
    const auto claim_levels = [&] {
        for (const bool fresh : {false, true}) {
            for (std::int64_t level : q.due_levels(fresh)) {
                // A lower level only once this one has no due rows left.
                if (!q.claim_at(level, n - tasks.size(), tasks) || tasks.size() >= n) break;
            }
            if (!tasks.empty()) break;
        }
    };
    if (q.options.claim_mode == ClaimMode::update_then_select) {
        // Each claim commits by itself: after a transient error, what the attempt claimed is still this
        // consumer's to finish (the version fences it if the reaper takes it back first).
        q.run(claim_levels);
    } else {
        // A failed attempt rolled its claims back.
        q.run([&] {
            tasks.clear();
            q.in_transaction(claim_levels);
        });
    }
    return tasks;
}

void MySqlQueue::ack(const Task& task) {
    if (!ack(std::vector<Task>{task}).empty()) throw stale(impl_->options.table, task);
}

std::vector<std::size_t> MySqlQueue::ack(const std::vector<Task>& tasks) {
    Impl& q = *impl_;
    std::vector<std::size_t> stale_tasks;
    for_each_chunk(tasks, Bind::id_versions, [&](std::size_t first, auto chunk, std::size_t shape, const auto& params) {
        const std::string sql = q.sql.ack(shape);
        const auto acked = q.run([&] { return q.connection.execute(sql, params); });
        std::unordered_set<std::uint64_t> distinct;
        for (const Task& task : chunk) distinct.insert(task.id);
        // Fewer rows than tasks: some were done already (a repeated ack, or a retry after a lost reply)
        // or are stale. Only the row itself can tell which.
        if (acked < distinct.size()) {
            for (std::size_t i = 0; i < chunk.size(); ++i) {
                if (!q.run([&] { return q.is_done_at(chunk[i].id, chunk[i].version); }))
                    stale_tasks.push_back(first + i);
            }
        }
    });
    return stale_tasks;
}

FailOutcome MySqlQueue::fail(const Task& task, const std::string& error) { return fail(task, error, impl_->options.retry); }

FailOutcome MySqlQueue::fail(const Task& task, const std::string& error, const RetryPolicy& retry) {
    Impl& q = *impl_;
    const std::vector<mysql::Param> params{
        std::int64_t{retry.max_attempts},        std::int64_t{retry.max_attempts},
        microseconds(retry.backoff_cap),         microseconds(retry.backoff_base),
        queue::jitter_millionths(retry),         queue::storable_error(error),
        task.id,                                 task.version};
    // A retry after a lost reply finds the version moved on and reports the task stale: it was failed.
    const auto changed = q.run([&] { return q.connection.execute(q.sql.fail, params); });
    if (changed == 0) throw stale(q.options.table, task);
    return task.attempts + 1 >= retry.max_attempts ? FailOutcome::dead : FailOutcome::retried;
}

void MySqlQueue::release(const std::vector<Task>& tasks) {
    Impl& q = *impl_;
    for (const Task& task : tasks) {
        q.run([&] { return q.connection.execute(q.sql.release, {task.id, task.version}); });
    }
}

void MySqlQueue::heartbeat() {
    Impl& q = *impl_;
    q.run([&] { return q.connection.execute(q.sql.touch); });
}

std::uint64_t MySqlQueue::owner_id() {
    Impl& q = *impl_;
    return q.run([&] { return q.connection.connection_id(); });
}

const MySqlQueueOptions& MySqlQueue::options() const { return impl_->options; }

}  // namespace rowpump
