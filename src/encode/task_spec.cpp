// Which worker formats take which task fields, and what a Sidekiq job class may be.
#include <string_view>

#include "config/option_error.hpp"
#include "encode/bullmq_job_id.hpp"
#include "encode/worker_options.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

bool is_ascii_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_constant_char(char c) {
    return is_ascii_upper(c) || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// "Billing::InvoiceJob": Sidekiq looks the class up with Object.const_get on each "::" part, and a part
// must be a Ruby constant name (a capital letter, then letters, digits, underscores).
bool is_constant_path(std::string_view path) {
    if (path.empty()) return false;
    for (std::size_t start = 0;;) {
        const std::size_t end = path.find("::", start);
        const std::string_view part = path.substr(start, end == std::string_view::npos ? path.npos : end - start);
        if (part.empty() || !is_ascii_upper(part[0])) return false;
        for (const char c : part)
            if (!is_constant_char(c)) return false;
        if (end == std::string_view::npos) return true;
        start = end + 2;
    }
}

bool has_control_or_space(std::string_view text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return true;
    return false;
}

// An option that only the `owner` worker format reads, given with the format `given`: refused, naming both
// ways out. `lead` says what was given ("a job class is given, but it is only used by ").
[[noreturn]] void refuse_without_owner(const std::string& lead, const std::string& owner, config::OptionId option,
                                       const std::string& given) {
    using config::OptionId;
    throw config::OptionError({lead, OptionId::format, " " + owner + " (the format is " + given + "): remove ", option,
                               ", or use ", OptionId::format, " " + owner});
}

}  // namespace

void check_task_spec(Format format, const TaskSpec& task) {
    using config::OptionError;
    using config::OptionId;
    const std::string name = format_name(format);
    const bool sidekiq_job = format == Format::sidekiq || format == Format::activejob;
    if (sidekiq_job) {
        if (task.job_class.empty())
            throw OptionError({OptionId::format, " " + name + " needs the job class its workers run, e.g. "
                               "Billing::InvoiceJob: give it with ", OptionId::job_class});
        if (!is_constant_path(task.job_class))
            throw UsageError("job class '" + task.job_class + "' is not a Ruby constant path: expected names that "
                             "start with a capital letter, joined by '::', e.g. Billing::InvoiceJob");
    } else if (!task.job_class.empty()) {
        refuse_without_owner("a job class is given, but it is only used by ", "sidekiq or activejob",
                             OptionId::job_class, name);
    }
    if (format == Format::celery) {
        if (task.task.empty())
            throw OptionError({OptionId::format, " celery needs the name of the task its workers run, e.g. "
                               "billing.tasks.invoice: give it with ", OptionId::task});
        if (has_control_or_space(task.task))
            throw UsageError("task name '" + task.task + "' holds a space or control character: give the name the "
                             "task is registered under, e.g. billing.tasks.invoice");
    } else if (!task.task.empty()) {
        refuse_without_owner("a task name is given, but it is only used by ", "celery", OptionId::task, name);
    }
    if (format == Format::bullmq) check_bullmq_task(task);
    if (!sidekiq_job && task.sidekiq_timestamps != SidekiqTimestamps::seconds)
        refuse_without_owner("Sidekiq timestamps in ms are only written by ", "sidekiq", OptionId::sidekiq_timestamps,
                             name);
    check_worker_options(format, task);
    if ((sidekiq_job || format == Format::celery || format == Format::bullmq) && has_control_or_space(task.queue))
        throw OptionError({"queue name '" + task.queue + "' holds a space or control character: ", OptionId::format,
                           " " + name + " needs a queue name its workers can be told (-q / -Q)"});
}

}  // namespace rowpump
