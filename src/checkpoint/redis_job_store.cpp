// Job state in Redis hashes beside the queue; each step is one Lua script, so a page's pushes and its
// checkpoint are applied together or not at all.
#include "checkpoint/job_store.hpp"
#include "checkpoint/key_codec.hpp"
#include "checkpoint/redis_scripts.hpp"
#include "log.hpp"
#include "redis/connection.hpp"
#include "redis/queue_keys.hpp"
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
    RedisJobLedger(RedisOptions options, const SinkSpec& sink, const JobDefinition& definition, std::size_t ranges)
        : connection_(redis::Connection::connect_within(std::move(options), retry_budget(sink))),
          sink_(sink),
          definition_(definition),
          ranges_(ranges),
          owner_(std::to_string(connection_.client_id())) {
        destinations_.push_back(redis::job_range(definition.job_id, 0));  // KEYS[1], replaced per call
        if (sink.priority_lists.empty()) destinations_.push_back(redis::ready_list(sink.queue));
        for (const auto& level : sink.priority_lists) destinations_.push_back(redis::priority_list(sink.queue, level));
        destinations_.push_back(redis::delayed_set(sink.queue));
    }

    std::optional<StoredRange> lease() override {
        return connection_.retrying(retry_budget(sink_), [&]() -> std::optional<StoredRange> {
            refresh_owner();
            for (std::size_t number = 0; number < ranges_; ++number) {
                const std::string key = redis::job_range(definition_.job_id, number);
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

    bool write(const StoredRange& range, const std::vector<Message>& batch, const KeyValue& last_key) override {
        const std::string range_key = redis::job_range(definition_.job_id, range.number);
        const std::string checkpoint = encode_key(last_key);
        const std::string rows = std::to_string(batch.size());
        const std::string lease_ms = std::to_string(lease_milliseconds());
        const std::string key_count = std::to_string(destinations_.size());
        std::vector<std::string> numbers;  // destination indexes and scores, kept alive for argv
        numbers.reserve(batch.size() * 2);
        Argv argv{"EVAL", redis_scripts::write_page, key_count, range_key};
        for (std::size_t i = 1; i < destinations_.size(); ++i) argv.push_back(destinations_[i]);
        argv.insert(argv.end(), {owner_, checkpoint, rows, lease_ms,
                                 sink_.push == PushSide::left ? "LPUSH" : "RPUSH", committed_});
        const std::size_t delayed_index = destinations_.size();  // KEYS are 1-based: the last one
        for (const Message& message : batch) {
            if (message.due_ms > 0) {
                numbers.push_back(std::to_string(delayed_index));
                numbers.push_back(std::to_string(message.due_ms));
            } else {
                const std::size_t list = sink_.priority_lists.empty() ? 0 : static_cast<std::size_t>(message.priority_level);
                numbers.push_back(std::to_string(2 + list));
                numbers.emplace_back();
            }
        }
        for (std::size_t i = 0; i < batch.size(); ++i) {
            argv.push_back(numbers[2 * i]);
            argv.push_back(numbers[2 * i + 1]);
            argv.push_back(batch[i].payload);
        }
        try {
            // Safe to repeat: the script compares the stored checkpoint with the one this page starts from.
            // The lease stays with the id it was taken under until another process takes it over.
            const bool written = connection_.retrying(retry_budget(sink_), [&] {
                return connection_.command(argv).integer == 1;
            });
            if (written) committed_ = checkpoint;
            return written;
        } catch (const QueueError& error) {
            throw QueueError("job " + definition_.job_id + ": " + error.what(), false);
        }
    }

    bool complete(const StoredRange& range) override {
        return connection_.retrying(retry_budget(sink_), [&] {
            return connection_
                       .command({"EVAL", redis_scripts::complete_range, "1",
                                 redis::job_range(definition_.job_id, range.number), owner_})
                       .integer == 1;
        });
    }

private:
    static std::chrono::milliseconds retry_budget(const SinkSpec& sink) {
        return std::chrono::seconds(sink.redis_retry_seconds);
    }
    long long lease_milliseconds() const { return static_cast<long long>(definition_.lease_timeout.count()) * 1000; }

    // After a reconnect this ledger is a new client: leases held by the old id are lost (and free).
    void refresh_owner() { owner_ = std::to_string(connection_.client_id()); }

    bool client_alive(const std::string& id) {
        return !connection_.command({"CLIENT", "LIST", "ID", id}).text.empty();
    }

    redis::Connection connection_;
    SinkSpec sink_;
    JobDefinition definition_;
    std::size_t ranges_;
    std::string owner_;
    std::string committed_;  // the stored checkpoint of the range held now, as stored
    std::vector<std::string> destinations_;
};

class RedisJobStore final : public JobStore {
public:
    RedisJobStore(RedisOptions options, SinkSpec sink, JobDefinition definition)
        : options_(std::move(options)),
          sink_(std::move(sink)),
          definition_(std::move(definition)),
          connection_(redis::Connection::connect_within(options_, std::chrono::seconds(sink_.redis_retry_seconds))) {}

    JobState state() override {
        JobState state;
        auto meta = hash_fields(connection_, redis::job_meta(definition_.job_id), {"fingerprint", "definition", "ranges"});
        if (meta.size() != 3 || meta[0].is_nil()) return state;
        state.exists = true;
        state.fingerprint = meta[0].text;
        state.description = meta[1].text;
        state.ranges = std::stoul(meta[2].text);
        for (std::size_t i = 0; i < state.ranges; ++i) {
            connection_.append({"HMGET", redis::job_range(definition_.job_id, i), "status", "rows_written"});
        }
        for (const auto& reply : connection_.read_replies(state.ranges)) {
            if (reply.elements.size() != 2) continue;
            if (reply.elements[0].text == "done") ++state.ranges_done;
            if (!reply.elements[1].is_nil()) state.rows_written += std::stoull(reply.elements[1].text);
        }
        return state;
    }

    JobState create(const std::vector<Partition>& partitions) override {
        std::vector<std::string> storage;
        storage.push_back(redis::job_meta(definition_.job_id));
        for (std::size_t i = 0; i < partitions.size(); ++i) storage.push_back(redis::job_range(definition_.job_id, i));
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
        return state();
    }

    std::unique_ptr<JobLedger> open_ledger() override {
        return std::make_unique<RedisJobLedger>(options_, sink_, definition_, state().ranges);
    }

private:
    RedisOptions options_;
    SinkSpec sink_;
    JobDefinition definition_;
    redis::Connection connection_;
};

}  // namespace

std::unique_ptr<JobStore> open_redis_job_store(const SinkSpec& sink, const JobDefinition& definition) {
    if (sink.queue.empty()) throw UsageError("a redis sink needs --queue NAME");
    return std::make_unique<RedisJobStore>(RedisOptions::from_url(sink.uri), sink, definition);
}

}  // namespace rowpump
