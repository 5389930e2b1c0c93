// Job state in Redis hashes beside the queue. Leasing and completing a range are Lua scripts; a page's
// pushes and its checkpoint are one MULTI/EXEC under WATCH, applied together or not at all.
#include <algorithm>

#include "checkpoint/job_store.hpp"
#include "checkpoint/key_codec.hpp"
#include "backend/redis/redis_job_scripts.hpp"
#include "log.hpp"
#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_page_writer.hpp"
#include "backend/redis/redis_queue_keys.hpp"
#include "backend/redis/redis_wait.hpp"
#include "backend/redis/redis_writers.hpp"
#include "redis/connection.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

using Argv = std::vector<std::string_view>;

std::vector<redis::Reply> hash_fields(redis::Connection& connection, const std::string& key,
                                      std::initializer_list<std::string_view> fields) {
    Argv argv{"HMGET", key};
    argv.insert(argv.end(), fields.begin(), fields.end());
    return connection.command(argv).elements;
}

class RedisJobLedger final : public JobLedger {
public:
    RedisJobLedger(const RedisTarget& target, const JobDefinition& definition, std::unique_ptr<redis::QueueWriter> writer)
        : connection_(redis::Connection::connect_within(target.connection)),
          wait_(target.wait),
          definition_(definition),
          owner_(std::to_string(connection_.client_id())),
          writer_(std::move(writer)) {}

    std::optional<StoredRange> lease() override {
        return connection_.retrying([&]() -> std::optional<StoredRange> {
            refresh_owner();
            // Read each time: splits add ranges while the job runs.
            const std::size_t ranges = range_count();
            for (std::size_t number = 0; number < ranges; ++number) {
                const std::string key = redis::job_range(definition_.state_prefix, definition_.job_id, number);
                auto fields = hash_fields(connection_, key, {"status", "owner"});
                if (fields.size() != 2 || fields[0].text != "pending") continue;
                const std::string& owner = fields[1].text;
                const bool gone = owner != "0" && owner != owner_ && !client_alive(owner);
                const std::string lease_ms = std::to_string(lease_milliseconds());
                auto taken = connection_.command({"EVAL", redis_scripts::lease_range, "1", key, owner, owner_,
                                                  lease_ms, gone ? "1" : "0"});
                if (taken.is_nil() || taken.elements.size() != 5) continue;
                if (owner != "0" && owner != owner_)
                    log().info("taking over range {} of job {} from client {} ({})", number, definition_.job_id,
                               owner, gone ? "gone" : "lease expired");
                StoredRange range;
                range.number = static_cast<std::uint32_t>(number);
                range.range.lo = decode_optional_key(taken.elements[0].text, definition_.key_columns);
                range.range.hi = decode_optional_key(taken.elements[1].text, definition_.key_columns);
                range.last_key = decode_optional_key(taken.elements[2].text, definition_.key_columns);
                range.rows_written = std::stoull(taken.elements[3].text);
                committed_ = taken.elements[2].text;
                range.estimated_rows = std::stoull(taken.elements[4].text);
                return range;
            }
            return std::nullopt;
        });
    }

    PageWrite write(StoredRange& range, const std::vector<Message>& batch, const KeyValue& last_key) override {
        const std::string range_key = redis::job_range(definition_.state_prefix, definition_.job_id, range.number);
        const std::string checkpoint = encode_key(last_key);
        try {
            // Safe to repeat: a retry whose EXEC went through finds the checkpoint already moved.
            // The lease stays with the id it was taken under until another process takes it over.
            const PageWrite written = connection_.retrying([&] {
                return write_once(range_key, range, batch, checkpoint);
            });
            if (written == PageWrite::written) committed_ = checkpoint;
            return written;
        } catch (const QueueError& error) {
            throw QueueError("job " + definition_.job_id + ": " + error.what(), false);
        }
    }

    bool complete(const StoredRange& range) override {
        return connection_.retrying([&] {
            return connection_
                       .command({"EVAL", redis_scripts::complete_range, "1",
                                 redis::job_range(definition_.state_prefix, definition_.job_id, range.number), owner_})
                       .integer == 1;
        });
    }

    std::optional<std::uint64_t> ready_count() override {
        return connection_.retrying([this] { return std::optional<std::uint64_t>(writer_->ready_count(connection_)); });
    }

    std::vector<StoredRange> pending_ranges() override {
        return connection_.retrying([&] {
            const std::size_t ranges = range_count();
            for (std::size_t number = 0; number < ranges; ++number)
                connection_.append({"HMGET", redis::job_range(definition_.state_prefix, definition_.job_id, number), "status", "owner", "lo", "hi",
                                    "last_key", "rows_written", "estimated_rows"});
            const auto replies = connection_.read_replies(ranges);
            std::vector<StoredRange> leased;
            for (std::size_t number = 0; number < replies.size(); ++number) {
                const auto& fields = replies[number].elements;
                if (fields.size() != 7 || fields[0].text != "pending" || fields[1].text == owner_) continue;
                StoredRange range;
                range.number = static_cast<std::uint32_t>(number);
                range.owner = std::stoull(fields[1].text);
                range.range.lo = decode_optional_key(fields[2].text, definition_.key_columns);
                range.range.hi = decode_optional_key(fields[3].text, definition_.key_columns);
                range.last_key = decode_optional_key(fields[4].text, definition_.key_columns);
                range.rows_written = std::stoull(fields[5].text);
                range.estimated_rows = std::stoull(fields[6].text);
                leased.push_back(std::move(range));
            }
            return leased;
        });
    }

    // The checkpoint is fenced as read: a page commits in one short EXEC, so the thief's next look (a few
    // milliseconds later) most often finds the owner between two pages.
    std::optional<StoredRange> split(const StoredRange& victim, const KeyValue& split, std::uint64_t moved_rows,
                                     const std::function<bool(const KeyValue&)>&) override {
        return connection_.retrying([&]() -> std::optional<StoredRange> {
            // A retry after a lost reply finds the count moved and answers nullopt: the range it added is
            // then leased to a connection that is gone, free for the next lease.
            const std::size_t number = range_count();
            const std::string count = std::to_string(number), owner = std::to_string(victim.owner);
            const std::string checkpoint = encode_key(victim.last_key), bound = encode_key(victim.range.hi);
            const std::string split_key = encode_key(split), moved = std::to_string(moved_rows);
            const std::string lease_ms = std::to_string(lease_milliseconds());
            const std::string meta = redis::job_meta(definition_.state_prefix, definition_.job_id);
            const std::string victim_key = redis::job_range(definition_.state_prefix, definition_.job_id, victim.number);
            const std::string taken_key = redis::job_range(definition_.state_prefix, definition_.job_id, number);
            const auto reply = connection_.command({"EVAL", redis_scripts::split_range, "3", meta, victim_key, taken_key,
                                                    count, owner, checkpoint, bound, split_key, moved, owner_, lease_ms});
            if (reply.integer != 1) return std::nullopt;
            committed_.clear();
            StoredRange taken;
            taken.number = static_cast<std::uint32_t>(number);
            taken.range = {split, victim.range.hi};
            taken.estimated_rows = moved_rows;
            return taken;
        });
    }

private:
    // A page is one MULTI of native pushes and a checkpoint script, under WATCH of the range's hash: any
    // change to the range since its fence was read (a takeover, a split) aborts the EXEC, so the pushes and
    // the checkpoint are applied together or not at all. Native pushes are pipelined and parsed while the rest
    // of the page is still being sent; a Lua script would first receive the whole page, then loop over it.
    // The pushes are planned here, from the fence: the range's row count numbers the delayed members.
    PageWrite write_once(const std::string& range_key, StoredRange& range, const std::vector<Message>& batch,
                         const std::string& checkpoint) {
        const std::string bound = encode_key(range.range.hi);
        // An EXEC aborted by a change to the range (a takeover or a split after the fence was read) reads
        // the fence again to learn which. Nothing else writes a held range, so a second look decides.
        for (int look = 0; look < 3; ++look) {
            connection_.append({"WATCH", range_key});
            connection_.append({"HMGET", range_key, "status", "owner", "last_key", "rows_written", "hi"});
            const auto fence = connection_.read_replies(2).at(1).elements;
            const bool held = fence.size() == 5 && fence[0].text == "pending" && fence[1].text == owner_;
            if (!held || fence[2].text != committed_) {
                connection_.command({"UNWATCH"});
                // The checkpoint already moved to this page's end: an earlier attempt's EXEC went through.
                if (!held || fence[2].text != checkpoint) return PageWrite::lost;
                // WAIT counts this session's writes only, and this may be a new session: a write of its own
                // (that changes nothing the job reads) makes the WAIT cover everything the master holds.
                if (wait_.replicas != 0) connection_.command({"HINCRBY", range_key, "replica_waits", "1"});
                redis::wait_for_replicas(connection_, wait_, batch.size(), true);
                return PageWrite::written;
            }
            if (fence[4].text != bound) {
                connection_.command({"UNWATCH"});
                range.range.hi = decode_optional_key(fence[4].text, definition_.key_columns);
                range.last_key = decode_optional_key(committed_, definition_.key_columns);
                return PageWrite::shrunk;
            }
            if (exec_page(range_key, range.number, batch, checkpoint, std::stoull(fence[3].text))) {
                // Not acknowledged in time: a transient error, whose retry finds the page committed (above).
                redis::wait_for_replicas(connection_, wait_, batch.size(), true);
                return PageWrite::written;
            }
        }
        return PageWrite::lost;
    }

    // Delayed members are tagged {writer of (job, range), row's position in the range}: whichever
    // attempt or process writes this page, from this fence, writes the same members, and no two rows
    // of the job share one. Should a page ever be applied twice, its ZADDs would re-score, not add.
    // False when the EXEC was aborted: the range changed after its fence was read.
    bool exec_page(const std::string& range_key, std::uint32_t range_number, const std::vector<Message>& batch,
                   const std::string& checkpoint, std::uint64_t rows_before) {
        const redis::CheckpointMove move{
            redis_scripts::move_checkpoint, range_key,
            {std::to_string(lease_milliseconds()), checkpoint, std::to_string(batch.size())}};
        return writer_->write(connection_, batch,
                             {redis::ledger_delayed_writer(definition_.job_id, range_number), rows_before}, &move);
    }

    long long lease_milliseconds() const { return static_cast<long long>(definition_.lease_timeout.count()) * 1000; }

    // After a reconnect this ledger is a new client: leases held by the old id are lost (and free).
    void refresh_owner() { owner_ = std::to_string(connection_.client_id()); }

    std::size_t range_count() {
        const auto ranges = connection_.command({"HGET", redis::job_meta(definition_.state_prefix, definition_.job_id), "ranges"});
        return ranges.is_nil() ? 0 : std::stoul(ranges.text);
    }

    bool client_alive(const std::string& id) {
        return !connection_.command({"CLIENT", "LIST", "ID", id}).text.empty();
    }

    redis::Connection connection_;
    RedisReplicaWait wait_;
    JobDefinition definition_;
    std::string owner_;
    std::string committed_;  // the stored checkpoint of the range held now, as stored
    std::unique_ptr<redis::QueueWriter> writer_;
};

class RedisJobStore final : public JobStore {
public:
    RedisJobStore(RedisTarget target, JobDefinition definition, redis::QueueWriterFactory make_writer)
        : target_(std::move(target)),
          definition_(std::move(definition)),
          make_writer_(std::move(make_writer)),
          connection_(redis::Connection::connect_at_start(target_.connection)) {
        // Before the job exists: a queue key of the wrong type is refused with nothing written.
        const auto writer = make_writer_();
        retrying([&] { writer->check_key_types(connection_); });
    }

    // Every call survives a reconnect (a restarted server, an idle timeout that closed this connection while
    // the workers wrote): each one only reads, or is a script that is safe to run twice.
    JobState state() override {
        return retrying([&] { return state_once(); });
    }

    JobState create(const std::vector<Partition>& partitions) override {
        retrying([&] { create_once(partitions); });
        return state();
    }

    std::unique_ptr<JobLedger> open_ledger() override {
        return std::make_unique<RedisJobLedger>(target_, definition_, make_writer_());
    }

private:
    template <class Action>
    auto retrying(Action&& action) -> decltype(action()) {
        return connection_.retrying(std::forward<Action>(action));
    }

    JobState state_once() {
        JobState state;
        auto meta = hash_fields(connection_, redis::job_meta(definition_.state_prefix, definition_.job_id), {"fingerprint", "definition", "ranges"});
        if (meta.size() != 3 || meta[0].is_nil()) return state;
        state.exists = true;
        state.fingerprint = meta[0].text;
        state.description = meta[1].text;
        state.ranges = std::stoul(meta[2].text);
        for (std::size_t i = 0; i < state.ranges; ++i) {
            connection_.append({"HMGET", redis::job_range(definition_.state_prefix, definition_.job_id, i), "status", "rows_written", "lo", "hi",
                                "last_key", "estimated_rows"});
        }
        const auto replies = connection_.read_replies(state.ranges);
        for (std::size_t i = 0; i < replies.size(); ++i) {
            const auto& fields = replies[i].elements;
            if (fields.size() != 6 || fields[0].is_nil()) continue;
            StoredRangeState range;
            range.done = fields[0].text == "done";
            range.stored.number = static_cast<std::uint32_t>(i);
            range.stored.rows_written = std::stoull(fields[1].text);
            range.stored.range.lo = decode_optional_key(fields[2].text, definition_.key_columns);
            range.stored.range.hi = decode_optional_key(fields[3].text, definition_.key_columns);
            range.stored.last_key = decode_optional_key(fields[4].text, definition_.key_columns);
            range.stored.estimated_rows = std::stoull(fields[5].text);
            if (range.done) ++state.ranges_done;
            state.rows_written += range.stored.rows_written;
            state.estimated_rows += range.stored.estimated_rows;
            state.range_states.push_back(std::move(range));
        }
        return state;
    }

    void create_once(const std::vector<Partition>& partitions) {
        std::vector<std::string> storage;
        storage.push_back(redis::job_meta(definition_.state_prefix, definition_.job_id));
        for (std::size_t i = 0; i < partitions.size(); ++i) storage.push_back(redis::job_range(definition_.state_prefix, definition_.job_id, i));
        for (const auto& partition : partitions) {
            storage.push_back(encode_key(partition.range.lo));
            storage.push_back(encode_key(partition.range.hi));
            storage.push_back(std::to_string(partition.estimated_rows));
        }
        const std::string key_count = std::to_string(partitions.size() + 1);
        Argv argv{"EVAL", redis_scripts::create_job, key_count};
        for (std::size_t i = 0; i <= partitions.size(); ++i) argv.push_back(storage[i]);
        argv.push_back(definition_.fingerprint);
        argv.push_back(definition_.description);
        for (std::size_t i = partitions.size() + 1; i < storage.size(); ++i) argv.push_back(storage[i]);
        connection_.command(argv);
    }

    RedisTarget target_;
    JobDefinition definition_;
    redis::QueueWriterFactory make_writer_;
    redis::Connection connection_;
};

}  // namespace

std::unique_ptr<JobStore> open_redis_job_store(RedisTarget target, const JobDefinition& definition,
                                               redis::QueueWriterFactory make_writer) {
    if (target.keys.queue.empty()) throw UsageError("a redis sink needs --queue NAME");
    // The sink's timeouts, retry budget and stop flag, as every connection to its server takes them.
    return std::make_unique<RedisJobStore>(std::move(target), definition, std::move(make_writer));
}

std::unique_ptr<JobStore> open_redis_job_store(RedisTarget target, const JobDefinition& definition) {
    // Checked here, before any ledger makes its own: bad names are refused before anything connects.
    const RedisQueueKeys keys = target.keys;
    const redis::PageWriter checked(keys);
    return open_redis_job_store(std::move(target), definition,
                                [keys] { return std::make_unique<redis::PageWriter>(keys); });
}

}  // namespace rowpump
