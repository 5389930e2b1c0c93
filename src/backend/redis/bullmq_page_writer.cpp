#include "backend/redis/bullmq_page_writer.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>

#include "backend/redis/bullmq_scripts.hpp"
#include "backend/redis/redis_job_scripts.hpp"
#include "backend/redis/redis_page_pipeline.hpp"
#include "config/option_checks.hpp"
#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

constexpr std::array<std::string_view, 8> key_names{"wait", "paused", "meta", "id", "delayed", "active", "events", "marker"};
constexpr std::array<std::string_view, 8> key_types{"list", "list", "hash", "string", "zset", "list", "stream", "zset"};
constexpr std::size_t number_digits = 20;
// The jobs one script call adds at most (see write).
constexpr std::size_t jobs_a_call = 1000;

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

BullmqPageWriter::BullmqPageWriter(const RedisQueueKeys& keys)
    : job_prefix_(keys.bullmq_prefix + ":" + keys.queue + ":"), script_(bullmq_scripts::add_jobs) {
    if (keys.queue.empty() || keys.queue.find(':') != std::string::npos)
        throw config::OptionError({"BullMQ queue name '" + keys.queue + "': BullMQ needs a name without ':' (its key "
                                   "separator): give it with ", config::OptionId::queue});
    config::check_redis_names_fit_format(keys.names_given, "bullmq");
    for (std::size_t i = 0; i < keys_.size(); ++i) keys_[i] = job_prefix_ + std::string(key_names[i]);
}

void BullmqPageWriter::check_key_types(Connection& connection) const {
    for (std::size_t i = 0; i < keys_.size(); ++i) {
        const std::string type = connection.command({"TYPE", keys_[i]}).text;
        if (type == key_types[i] || type == "none") continue;
        throw config::OptionError({"key " + keys_[i] + " is a " + type + ", where BullMQ keeps a " +
                                   std::string(key_types[i]) + ": choose another ", config::OptionId::queue,
                                   " or ", config::OptionId::bullmq_prefix});
    }
}

bool BullmqPageWriter::write(Connection& connection, const std::vector<Message>& batch, DelayedTag,
                             const CheckpointMove* fence) {
    if (batch.empty()) return true;
    const std::int64_t timestamp = now_ms();
    arguments_.clear();
    arguments_.reserve(2 + batch.size() * 4);
    // Neither buffer grows below, so the views into it stay valid.
    numbers_.assign((batch.size() + 1) * number_digits, '\0');
    const auto number = [&](std::size_t slot, std::int64_t value) {
        char* start = numbers_.data() + slot * number_digits;
        return std::string_view(start, static_cast<std::size_t>(std::to_chars(start, start + number_digits, value).ptr - start));
    };
    arguments_.push_back(job_prefix_);
    arguments_.push_back(number(0, timestamp));
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const std::string_view payload = batch[i].payload;
        const std::size_t id_end = payload.find('\n');
        const std::size_t name_end = id_end == std::string_view::npos ? id_end : payload.find('\n', id_end + 1);
        if (name_end == std::string_view::npos)
            throw Error("a BullMQ job's payload is not the bullmq encoder's \"<id>\\n<name>\\n<data>\"");
        arguments_.push_back(payload.substr(0, id_end));
        arguments_.push_back(payload.substr(id_end + 1, name_end - id_end - 1));
        arguments_.push_back(payload.substr(name_end + 1));
        // A due time already past is a ready job, as BullMQ's delay 0.
        arguments_.push_back(number(i + 1, batch[i].due_ms > timestamp ? batch[i].due_ms - timestamp : 0));
    }
    // Redis spends about a fifth more CPU on one script call of 10,000 jobs than on ten of 1,000, for the
    // same instructions: the call's 40,000 arguments (some 2.5 MB) outrun its caches (bench/bullmq_floor.sh).
    // A larger page goes as calls of jobs_a_call in one MULTI/EXEC, so it is still added whole or not at all.
    if (!fence && batch.size() <= jobs_a_call) {
        const std::span<const std::string_view> args(arguments_);
        const std::array<std::string_view, 8> keys{keys_[0], keys_[1], keys_[2], keys_[3],
                                                   keys_[4], keys_[5], keys_[6], keys_[7]};
        script_.run(connection, keys, args);
        return true;
    }
    // By its source: a NOSCRIPT inside the MULTI would only show at the EXEC.
    PagePipeline pipeline(connection, true);
    std::vector<std::string_view> add;
    Reply result;
    std::size_t calls = 0;
    for (std::size_t first = 0; first < batch.size(); first += jobs_a_call) {
        const std::size_t count = std::min(jobs_a_call, batch.size() - first);
        add.assign({"EVAL", bullmq_scripts::add_jobs, "8"});
        add.insert(add.end(), keys_.begin(), keys_.end());
        add.insert(add.end(), arguments_.begin(), arguments_.begin() + 2);  // the prefix and the timestamp
        const auto jobs = arguments_.begin() + static_cast<std::ptrdiff_t>(2 + first * 4);
        add.insert(add.end(), jobs, jobs + static_cast<std::ptrdiff_t>(count * 4));
        ++calls;
        if (!fence && first + count == batch.size())
            result = pipeline.commit(add);
        else
            pipeline.send(add);
    }
    if (fence) {
        // The lists' move, told BullMQ's key types: when add_jobs refused a key of another type, it refuses
        // too, and the checkpoint stays.
        std::vector<std::string_view> move{"EVAL", redis_scripts::move_checkpoint, "9", fence->range_key};
        move.insert(move.end(), keys_.begin(), keys_.end());
        move.insert(move.end(), fence->arguments.begin(), fence->arguments.end());
        move.insert(move.end(), key_types.begin(), key_types.end());
        result = pipeline.commit(move);
        ++calls;
        if (result.is_nil()) return false;
    }
    // Errors inside EXEC come back as its elements: the add's refusal of a key (every call refuses alike:
    // they check the same keys before writing), or the move's.
    bool applied = result.elements.size() == calls;
    for (const Reply& element : result.elements) applied = applied && element.type == Reply::Type::integer;
    if (!applied) {
        if (fence)
            throw QueueError("a page for " + std::string(fence->range_key) + " was refused inside its transaction "
                             "(a BullMQ key of another type under " + job_prefix_ + "?); nothing of it was added and "
                             "its checkpoint did not move: fix the key and resume",
                             false);
        throw QueueError("a page was refused inside its transaction (a BullMQ key of another type under " +
                             job_prefix_ + "?); nothing of it was added: fix the key and run again",
                         false);
    }
    return true;
}

std::uint64_t BullmqPageWriter::ready_count(Connection& connection) const {
    connection.append({"LLEN", keys_[0]});
    connection.append({"LLEN", keys_[1]});
    std::uint64_t total = 0;
    for (const Reply& reply : connection.read_replies(2)) total += static_cast<std::uint64_t>(reply.integer);
    return total;
}

}  // namespace rowpump::redis
