#include "encode/bullmq_job_id.hpp"

#include <algorithm>
#include <string_view>

#include "brace_template.hpp"
#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

using config::OptionError;
using config::OptionId;

constexpr std::string_view what = "--bullmq-job-id";

bool has_control(std::string_view text) {
    return std::any_of(text.begin(), text.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// BullMQ's test: `${parseInt(id, 10)}` === id, i.e. an optional '-' and digits without a leading zero.
bool is_integer_text(std::string_view id) {
    if (!id.empty() && id.front() == '-') id.remove_prefix(1);
    if (id.empty() || (id.size() > 1 && id.front() == '0')) return false;
    return std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

void check_bullmq_task(const TaskSpec& task) {
    if (task.bullmq.job_name.empty())
        throw OptionError({OptionId::format, " bullmq needs the jobs' name, which a Worker's processor reads as "
                           "job.name: give it with ", OptionId::job_name});
    if (has_control(task.bullmq.job_name))
        throw OptionError({OptionId::job_name, " '" + task.bullmq.job_name + "' holds a control character"});
    const std::string& text = task.bullmq.job_id;
    if (text.empty()) return;
    bool placeholder = false;
    for (const BracePart& part : split_braces(text, what)) {
        placeholder = placeholder || part.placeholder;
        if (!part.placeholder && (part.text.find(':') != std::string::npos || has_control(part.text)))
            throw OptionError({OptionId::bullmq_job_id, " '" + text + "' holds ':' or a control character, which "
                               "BullMQ refuses in a job id: use '-' or '_'"});
    }
    if (!placeholder)
        throw OptionError({OptionId::bullmq_job_id, " '" + text + "' names no column: every row would get the same "
                           "id; write the key column in braces, e.g. 'order-{id}'"});
}

BullmqJobId::BullmqJobId(const std::string& id_template, const std::vector<Column>& columns) : template_(id_template) {
    for (const Column& column : columns) names_.push_back(column.name);
    for (const BracePart& part : split_braces(id_template, what)) {
        if (!part.placeholder) {
            parts_.push_back({part.text, 0, false});
            continue;
        }
        const auto found = std::find(names_.begin(), names_.end(), part.text);
        if (found == names_.end())
            throw OptionError({OptionId::bullmq_job_id, " '" + id_template + "': {" + part.text + "} at position " +
                               std::to_string(part.position) + " is not a column the job reads: name one of its "
                               "columns (its key, for ids that repeat across runs)"});
        parts_.push_back({{}, static_cast<std::size_t>(found - names_.begin()), true});
    }
    // '{id}' alone over an integer key gives integers for every row: refused before anything is read.
    if (parts_.size() == 1) {
        const ColumnKind kind = columns[parts_.front().column].kind;
        if (kind == ColumnKind::signed_integer || kind == ColumnKind::unsigned_integer)
            throw OptionError({OptionId::bullmq_job_id, " '" + id_template + "' gives integer ids, which BullMQ "
                               "refuses (its counter's ids are integers): add text, e.g. '" +
                               names_[parts_.front().column] + "-{" + names_[parts_.front().column] + "}'"});
    }
}

void BullmqJobId::append(const Page& page, std::size_t row, std::string& out) const {
    const std::size_t start = out.size();
    for (const Part& part : parts_) {
        if (!part.placeholder) {
            out += part.text;
            continue;
        }
        const auto value = page.value(row, part.column);
        if (!value)
            throw UsageError("--bullmq-job-id '" + template_ + "': column " + names_[part.column] +
                             " is NULL in a row: a job id needs a value; use a NOT NULL column such as the key");
        if (value->find(':') != std::string_view::npos || has_control(*value))
            throw UsageError("--bullmq-job-id '" + template_ + "': column " + names_[part.column] + " holds '" +
                             std::string(*value) + "', with ':' or a control character, which BullMQ refuses in a "
                             "job id: use another column");
        out += *value;
    }
    if (is_integer_text(std::string_view(out).substr(start)))
        throw UsageError("--bullmq-job-id '" + template_ + "' gives the id " + out.substr(start) +
                         ", an integer, which BullMQ refuses (its counter's ids are integers): add text around "
                         "the braces, e.g. 'order-{...}'");
}

}  // namespace rowpump
