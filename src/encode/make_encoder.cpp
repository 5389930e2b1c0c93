#include "encode/encoders.hpp"
#include "config/choices.hpp"
#include "config/option_error.hpp"
#include "encode/payload_template.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

// The names are config/choices.hpp's table, the one the command line and the job file read.
Format parse_format(const std::string& name) { return config::parse_choice_or_throw<Format>(name, "format"); }

std::string format_name(Format format) {
    if (const auto name = config::choice_name(format); !name.empty()) return std::string(name);
    return "format " + std::to_string(static_cast<int>(format));
}

QueueLayout queue_layout(Format format) {
    if (format == Format::sidekiq || format == Format::activejob) return QueueLayout::sidekiq;
    if (format == Format::celery) return QueueLayout::celery;
    if (format == Format::bullmq) return QueueLayout::bullmq;
    return QueueLayout::rowpump;
}

std::string default_queue(Format format) {
    if (format == Format::sidekiq || format == Format::activejob) return "default";
    if (format == Format::celery) return "celery";
    return {};
}

std::unique_ptr<TaskEnvelope> make_task_envelope(Format format, const TaskSpec& task) {
    check_task_spec(format, task);
    if (format == Format::sidekiq) return make_sidekiq_envelope(task);
    if (format == Format::celery) return make_celery_envelope(task);
    if (format == Format::activejob) return make_activejob_envelope(task);
    throw UsageError("format " + format_name(format) + " wraps no task: expected sidekiq, activejob or celery");
}

std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns, const TaskSpec& task,
                                         const PayloadOptions& payload) {
    check_task_spec(format, task);
    check_payload_options(format, payload);
    switch (format) {
        case Format::json: return make_json_encoder(std::move(columns), json_style(payload));
        case Format::csv: return make_csv_encoder(std::move(columns), payload.csv_null);
        case Format::sidekiq:
        case Format::activejob:
        case Format::celery: return make_worker_encoder(format, std::move(columns), task, json_style(payload));
        case Format::bullmq: return make_bullmq_encoder(std::move(columns), task, json_style(payload));
        case Format::payload_template:
            return make_template_encoder(payload.template_text, std::move(columns), json_style(payload));
    }
    throw Error("unknown encoder format " + std::to_string(static_cast<int>(format)));
}

std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns, const PayloadOptions& payload) {
    return make_encoder(format, std::move(columns), TaskSpec{}, payload);
}

BigNumbers parse_big_numbers(const std::string& name) {
    if (name == "number") return BigNumbers::number;
    if (name == "string") return BigNumbers::string;
    throw UsageError("unknown big-numbers mode '" + name + "': expected number or string");
}

CsvNull parse_csv_null(const std::string& name) {
    if (name == "empty") return CsvNull::empty;
    if (name == "\\N") return CsvNull::backslash_n;
    throw UsageError("unknown CSV null '" + name + "': expected empty or \\N (quoted for the shell: '\\N')");
}

JsonColumns parse_json_columns(const std::string& name) {
    if (name == "string") return JsonColumns::string;
    if (name == "embed") return JsonColumns::embed;
    throw UsageError("unknown JSON columns mode '" + name + "': expected string or embed");
}

void check_payload_options(Format format, const PayloadOptions& payload) {
    using config::OptionError;
    using config::OptionId;
    if (format != Format::csv && payload.csv_null != CsvNull::empty)
        throw OptionError({"a CSV null is given but the format is not csv: add ", OptionId::format, " csv, or drop ",
                           OptionId::csv_null});
    if (format == Format::csv && payload.json_columns != JsonColumns::string)
        throw OptionError({"CSV writes a JSON column's text as it is: drop ", OptionId::json_columns,
                           ", or choose a JSON format"});
    if (format != Format::payload_template && !payload.template_text.empty())
        throw OptionError({"a template is given but the format is not template: add ", OptionId::format,
                           " template, or drop ", OptionId::payload_template});
    if (format == Format::payload_template) parse_payload_template(payload.template_text);
}

}  // namespace rowpump
