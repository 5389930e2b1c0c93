// Worker formats: the row's JSON (the json encoder's, byte for byte) as the one argument of a Sidekiq
// job or a Celery task (task_envelope.hpp); for ActiveJob, the row in ActiveJob's own serialization.
// With --celery-kwargs, a Celery task gets the columns it names as keyword arguments and the others as
// its row argument (none when no column is left).
#include <algorithm>

#include "config/option_error.hpp"
#include "encode/encoders.hpp"
#include "encode/task_envelope.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

void TaskEnvelope::wrap_call(std::string_view, std::string_view, const TaskTimes&, std::string&) const {
    throw Error("this worker format has no keyword arguments");
}

namespace {

class WorkerEncoder final : public RowEncoder {
public:
    WorkerEncoder(std::unique_ptr<RowEncoder> row, std::unique_ptr<RowEncoder> kwargs,
                  std::unique_ptr<TaskEnvelope> envelope)
        : row_(std::move(row)), kwargs_(std::move(kwargs)), envelope_(std::move(envelope)) {}

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        encode_task(page, row, TaskTimes{}, out);
    }

    void encode_task(const Page& page, std::size_t row, const TaskTimes& times, std::string& out) const override {
        // One buffer per thread: encode() is const and runs in several workers at once.
        thread_local std::string row_json;
        row_json.clear();
        if (!kwargs_) {
            row_->encode(page, row, row_json);
            envelope_->wrap(row_json, times, out);
            return;
        }
        thread_local std::string kwargs_json;
        kwargs_json.clear();
        row_json.push_back('[');
        if (row_) row_->encode(page, row, row_json);
        row_json.push_back(']');
        kwargs_->encode(page, row, kwargs_json);
        envelope_->wrap_call(row_json, kwargs_json, times, out);
    }

    std::string header() const override { return {}; }

private:
    std::unique_ptr<RowEncoder> row_;     // null: no row argument (every column is a kwarg)
    std::unique_ptr<RowEncoder> kwargs_;  // null: no kwargs
    std::unique_ptr<TaskEnvelope> envelope_;
};

// The places of the kwargs columns and of the others; an unknown name is refused.
void split_columns(const std::vector<Column>& columns, const std::vector<std::string>& kwargs,
                   std::vector<std::size_t>& keyword, std::vector<std::size_t>& positional) {
    for (const auto& name : kwargs) {
        const auto found = std::find_if(columns.begin(), columns.end(), [&](const Column& c) { return c.name == name; });
        if (found == columns.end())
            throw config::OptionError({config::OptionId::celery_kwargs, " names '" + name +
                                                                            "', which is not a column the job reads"});
        keyword.push_back(static_cast<std::size_t>(found - columns.begin()));
    }
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (std::find(keyword.begin(), keyword.end(), i) == keyword.end()) positional.push_back(i);
}

}  // namespace

std::unique_ptr<RowEncoder> make_worker_encoder(Format format, std::vector<Column> columns, const TaskSpec& task,
                                                JsonStyle style) {
    auto envelope = make_task_envelope(format, task);
    if (format == Format::celery && !task.celery.kwargs.empty()) {
        std::vector<std::size_t> keyword;
        std::vector<std::size_t> positional;
        split_columns(columns, task.celery.kwargs, keyword, positional);
        std::unique_ptr<RowEncoder> row;
        if (!positional.empty()) row = make_column_subset(columns, std::move(positional), style);
        auto kwargs = make_column_subset(std::move(columns), std::move(keyword), style);
        return std::make_unique<WorkerEncoder>(std::move(row), std::move(kwargs), std::move(envelope));
    }
    auto row = format == Format::activejob ? make_activejob_arguments(std::move(columns), style)
                                           : make_json_encoder(std::move(columns), style);
    return std::make_unique<WorkerEncoder>(std::move(row), nullptr, std::move(envelope));
}

}  // namespace rowpump
