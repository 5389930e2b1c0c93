#include "encode/encoders.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

Format parse_format(const std::string& name) {
    if (name == "json") return Format::json;
    if (name == "csv") return Format::csv;
    if (name == "sidekiq") return Format::sidekiq;
    if (name == "celery") return Format::celery;
    throw UsageError("unknown format '" + name + "': expected json, csv, sidekiq or celery");
}

std::string format_name(Format format) {
    switch (format) {
        case Format::json: return "json";
        case Format::csv: return "csv";
        case Format::sidekiq: return "sidekiq";
        case Format::celery: return "celery";
    }
    return "format " + std::to_string(static_cast<int>(format));
}

QueueLayout queue_layout(Format format) {
    if (format == Format::sidekiq) return QueueLayout::sidekiq;
    if (format == Format::celery) return QueueLayout::celery;
    return QueueLayout::rowpump;
}

std::string default_queue(Format format) {
    if (format == Format::sidekiq) return "default";
    if (format == Format::celery) return "celery";
    return {};
}

std::unique_ptr<TaskEnvelope> make_task_envelope(Format format, const TaskSpec& task) {
    check_task_spec(format, task);
    if (format == Format::sidekiq) return make_sidekiq_envelope(task);
    if (format == Format::celery) return make_celery_envelope(task);
    throw UsageError("format " + format_name(format) + " wraps no task: expected sidekiq or celery");
}

std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns, const TaskSpec& task) {
    check_task_spec(format, task);
    switch (format) {
        case Format::json: return make_json_encoder(std::move(columns));
        case Format::csv: return make_csv_encoder(std::move(columns));
        case Format::sidekiq:
        case Format::celery: return make_worker_encoder(format, std::move(columns), task);
    }
    throw Error("unknown encoder format " + std::to_string(static_cast<int>(format)));
}

}  // namespace rowpump
