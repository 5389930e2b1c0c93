// The worker options, read as Sidekiq (job_retry.rb) and Celery (app/amqp.py, worker/request.py) read
// the keys they become:
//   "retry"   true, false or an Integer: Sidekiq retries a failed job that many times (true: 25), then
//             moves it to the `dead` set; false neither retries nor keeps it.
//   "dead"    false: a job out of retries is dropped instead of going to `dead`.
//   "tags"    an Array of strings (Sidekiq::Client#validate refuses anything else).
//   more keys a job's own hash, which middleware reads; values written as strings.
//   "expires" Celery revokes a task whose expiry passed before it started (Request#revoked: "expired").
//   kwargs    the task's keyword arguments, a dict of column names.
//   routing_key  delivery_info's, which Celery's retry and reply routing reuse.
//   priority  properties.priority, which kombu's Redis transport reads as an int clamped to 0..9 (virtual
//             Channel._get_message_priority) and files under its step (redis_queue_keys.hpp); rowpump
//             refuses values outside 0..9 rather than let kombu clamp them silently.
#include "encode/worker_options.hpp"

#include <array>
#include <charconv>
#include <set>
#include <string_view>

#include "config/option_error.hpp"

namespace rowpump {

namespace {

using config::OptionError;
using config::OptionId;

// Keys that Sidekiq writes or reads itself (client.rb, job_retry.rb, api.rb), or ActiveJob's adapter:
// a field of the same name would change or break the job.
constexpr std::array<std::string_view, 19> sidekiq_keys{
    "retry",      "queue",        "class",       "args",          "jid",        "created_at",   "enqueued_at",
    "at",         "wrapped",      "dead",        "tags",          "backtrace",  "retry_queue",  "retry_count",
    "retried_at", "failed_at",    "error_class", "error_message", "error_backtrace"};

bool is_sidekiq_job(Format format) { return format == Format::sidekiq || format == Format::activejob; }

bool has_control_or_space(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return true;
    return false;
}

// A worker option given to a format that does not read it.
[[noreturn]] void refuse(OptionId option, const std::string& owner, Format format) {
    throw OptionError({option, " is only read by ", OptionId::format, " " + owner + " (the format is " +
                                                                          format_name(format) + "): remove ",
                       option, ", or use that format"});
}

void check_names(OptionId option, const std::vector<std::string>& names) {
    std::set<std::string> seen;
    for (const auto& name : names) {
        if (name.empty()) throw OptionError({option, ": an empty name; expected names separated by commas"});
        if (!seen.insert(name).second) throw OptionError({option, ": '" + name + "' is given twice"});
    }
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
    return text;
}

}  // namespace

void read_sidekiq_retry(const std::string& text, SidekiqJobOptions& options) {
    options.retries.reset();
    options.retry = text != "false";
    if (text == "true" || text == "false") return;
    std::uint32_t count = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        throw OptionError({OptionId::sidekiq_retry, " '" + text + "': expected a retry count (0, 5, ...), true or "
                                                    "false, as Sidekiq reads \"retry\""});
    options.retries = count;
}

void read_celery_priority(const std::string& text, CeleryTaskOptions& options) {
    options.priority.reset();
    if (text.empty()) return;
    unsigned priority = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), priority);
    if (error != std::errc() || end != text.data() + text.size() || priority > 9)
        throw OptionError({OptionId::celery_priority, " '" + text + "': expected a priority from 0 to 9, as kombu "
                                                      "reads a message's properties.priority"});
    options.priority = priority;
}

void read_sidekiq_dead(const std::string& text, SidekiqJobOptions& options) {
    if (text != "true" && text != "false")
        throw OptionError({OptionId::sidekiq_dead, " '" + text + "': expected true or false"});
    options.dead = text == "true";
}

void read_sidekiq_fields(const std::vector<std::string>& pairs, SidekiqJobOptions& options) {
    options.fields.clear();
    for (const auto& pair : pairs) {
        const auto equals = pair.find('=');
        if (equals == std::string::npos || equals == 0)
            throw OptionError({OptionId::sidekiq_field, " '" + pair + "': expected KEY=VALUE, e.g. source=backfill"});
        options.fields.emplace_back(pair.substr(0, equals), pair.substr(equals + 1));
    }
}

void check_worker_options(Format format, const TaskSpec& task) {
    const SidekiqJobOptions& sidekiq = task.sidekiq;
    if (!is_sidekiq_job(format)) {
        if (!sidekiq.retry || sidekiq.retries) refuse(OptionId::sidekiq_retry, "sidekiq or activejob", format);
        if (!sidekiq.dead) refuse(OptionId::sidekiq_dead, "sidekiq or activejob", format);
        if (!sidekiq.fields.empty()) refuse(OptionId::sidekiq_field, "sidekiq or activejob", format);
        if (!sidekiq.tags.empty()) refuse(OptionId::sidekiq_tags, "sidekiq or activejob", format);
    }
    const CeleryTaskOptions& celery = task.celery;
    if (format != Format::celery) {
        if (celery.expires_seconds > 0) refuse(OptionId::celery_expires, "celery", format);
        if (!celery.kwargs.empty()) refuse(OptionId::celery_kwargs, "celery", format);
        if (!celery.routing_key.empty()) refuse(OptionId::routing_key, "celery", format);
        if (celery.priority) refuse(OptionId::celery_priority, "celery", format);
        if (!celery.priority_column.empty()) refuse(OptionId::celery_priority_column, "celery", format);
    }
    if (celery.priority && !celery.priority_column.empty())
        throw OptionError({OptionId::celery_priority, " and ", OptionId::celery_priority_column,
                           " are both given: keep ", OptionId::celery_priority, " for one priority for every row, or ",
                           OptionId::celery_priority_column, " for each row's own"});
    if (format != Format::bullmq) {
        if (!task.bullmq.job_name.empty()) refuse(OptionId::job_name, "bullmq", format);
        if (!task.bullmq.job_id.empty()) refuse(OptionId::bullmq_job_id, "bullmq", format);
    }
    check_names(OptionId::sidekiq_tags, sidekiq.tags);
    check_names(OptionId::celery_kwargs, celery.kwargs);
    std::set<std::string> keys;
    for (const auto& [key, value] : sidekiq.fields) {
        if (key == "retry" || key == "dead" || key == "tags")
            throw OptionError({OptionId::sidekiq_field, " '" + key + "': set it with its own option, ",
                               key == "retry" ? OptionId::sidekiq_retry
                                              : key == "dead" ? OptionId::sidekiq_dead : OptionId::sidekiq_tags});
        for (const auto reserved : sidekiq_keys)
            if (key == reserved)
                throw OptionError({OptionId::sidekiq_field, " '" + key + "': Sidekiq writes or reads that key "
                                                            "itself; choose another name"});
        if (!keys.insert(key).second) throw OptionError({OptionId::sidekiq_field, " '" + key + "' is given twice"});
    }
    if (has_control_or_space(celery.routing_key))
        throw OptionError({OptionId::routing_key, " '" + celery.routing_key + "' holds a space or control character"});
    if (celery.expires_seconds < 0) throw OptionError({OptionId::celery_expires, " must be positive"});
}

std::string worker_options_text(const TaskSpec& task) {
    std::string text;
    const SidekiqJobOptions& sidekiq = task.sidekiq;
    if (!sidekiq.retry) text += " retry false";
    if (sidekiq.retries) text += " retry " + std::to_string(*sidekiq.retries);
    if (!sidekiq.dead) text += " dead false";
    if (!sidekiq.tags.empty()) text += " tags " + joined(sidekiq.tags);
    for (const auto& [key, value] : sidekiq.fields) text += " field " + key + "=" + value;
    const CeleryTaskOptions& celery = task.celery;
    if (celery.expires_seconds > 0) text += " expires " + std::to_string(celery.expires_seconds);
    if (!celery.kwargs.empty()) text += " kwargs " + joined(celery.kwargs);
    if (!celery.routing_key.empty()) text += " routing-key " + celery.routing_key;
    if (celery.priority) text += " priority " + std::to_string(*celery.priority);
    if (!celery.priority_column.empty()) text += " priority-column " + celery.priority_column;
    if (!task.bullmq.job_name.empty()) text += " job-name " + task.bullmq.job_name;
    if (!task.bullmq.job_id.empty()) text += " job-id '" + task.bullmq.job_id + "'";
    return text;
}

}  // namespace rowpump
