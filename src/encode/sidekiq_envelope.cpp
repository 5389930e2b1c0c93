// A Sidekiq job as Sidekiq::Client.push_bulk writes it (client.rb, job_util.rb), keys in its order:
//
//   {"retry":true,"queue":"Q","class":"C","args":[ROW],"jid":"<24 hex>","created_at":T,"enqueued_at":T}
//
// with "retry" a count or false, and "dead", "tags" and more keys after "queue", when the worker options
// (--sidekiq-retry, ...) set them, where a worker class's sidekiq_options would put them.
//
// normalize_item merges the default options ("retry", "queue") under the item's keys, adds "jid" and
// "created_at"; atomic_push adds "enqueued_at" when it LPUSHes to queue:Q. A scheduled job goes into
// the `schedule` set without "enqueued_at": Sidekiq's poller adds it when it moves the job to its queue.
// Sidekiq 6 and 7 write the times as float seconds (Time.now.to_f), Sidekiq 8 as integer milliseconds.
// ActiveJob's Sidekiq adapter pushes the same job with its JobWrapper as "class" and the job's own class
// as "wrapped", after "class" (activejob_envelope.cpp).
#include <charconv>

#include "encode/encoders.hpp"
#include "encode/json_string.hpp"
#include "encode/task_envelope.hpp"
#include "encode/unique_ids.hpp"

namespace rowpump {

namespace {

void append_integer(std::string& out, std::int64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end);
}

void append_seconds(std::string& out, std::int64_t microseconds) {
    append_integer(out, microseconds / 1'000'000);
    out.push_back('.');
    const auto fraction = static_cast<int>(microseconds % 1'000'000);
    for (int unit = 100'000; unit > 0; unit /= 10) out.push_back(static_cast<char>('0' + fraction / unit % 10));
}

// What a worker class's sidekiq_options would merge in after "retry" and "queue" (worker_options.cpp).
void append_options(const SidekiqJobOptions& options, std::string& out) {
    if (!options.dead) out += ",\"dead\":false";
    if (!options.tags.empty()) {
        out += ",\"tags\":[";
        for (std::size_t i = 0; i < options.tags.size(); ++i) {
            if (i > 0) out.push_back(',');
            append_json_string(options.tags[i], out);
        }
        out.push_back(']');
    }
    for (const auto& [key, value] : options.fields) {
        out.push_back(',');
        append_json_string(key, out);
        out.push_back(':');
        append_json_string(value, out);
    }
}

class SidekiqEnvelope final : public TaskEnvelope {
public:
    SidekiqEnvelope(const TaskSpec& task, std::string_view wrapper_class)
        : milliseconds_(task.sidekiq_timestamps == SidekiqTimestamps::milliseconds) {
        const SidekiqJobOptions& options = task.sidekiq;
        head_ = "{\"retry\":";
        if (options.retries) append_integer(head_, *options.retries);
        else head_ += options.retry ? "true" : "false";
        head_ += ",\"queue\":";
        append_json_string(task.queue, head_);
        append_options(options, head_);
        head_ += ",\"class\":";
        append_json_string(wrapper_class.empty() ? std::string_view(task.job_class) : wrapper_class, head_);
        if (!wrapper_class.empty()) {
            head_ += ",\"wrapped\":";
            append_json_string(task.job_class, head_);
        }
        head_ += ",\"args\":[";
    }

    void wrap(std::string_view argument_json, const TaskTimes& times, std::string& out) const override {
        out.append(head_);
        out.append(argument_json);
        out.append("],\"jid\":\"", 9);
        ids_.append_jid(out);
        out.append("\",\"created_at\":", 15);
        append_time(out, times.now_us);
        if (times.due_ms <= 0) {
            out.append(",\"enqueued_at\":", 15);
            append_time(out, times.now_us);
        }
        out.push_back('}');
    }

private:
    void append_time(std::string& out, std::int64_t microseconds) const {
        if (milliseconds_) append_integer(out, microseconds / 1000);
        else append_seconds(out, microseconds);
    }

    bool milliseconds_;
    std::string head_;  // everything before the argument
    UniqueIds ids_;
};

}  // namespace

std::unique_ptr<TaskEnvelope> make_sidekiq_envelope(const TaskSpec& task, std::string_view wrapper_class) {
    return std::make_unique<SidekiqEnvelope>(task, wrapper_class);
}

}  // namespace rowpump
