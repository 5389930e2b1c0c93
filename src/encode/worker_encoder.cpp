// Worker formats: the row's JSON (the json encoder's, byte for byte) as the one argument of a Sidekiq
// job or a Celery task (task_envelope.hpp).
#include "encode/encoders.hpp"
#include "encode/task_envelope.hpp"

namespace rowpump {

namespace {

class WorkerEncoder final : public RowEncoder {
public:
    WorkerEncoder(std::unique_ptr<RowEncoder> row, std::unique_ptr<TaskEnvelope> envelope)
        : row_(std::move(row)), envelope_(std::move(envelope)) {}

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        encode_task(page, row, TaskTimes{}, out);
    }

    void encode_task(const Page& page, std::size_t row, const TaskTimes& times, std::string& out) const override {
        // One buffer per thread: encode() is const and runs in several workers at once.
        thread_local std::string row_json;
        row_json.clear();
        row_->encode(page, row, row_json);
        envelope_->wrap(row_json, times, out);
    }

    std::string header() const override { return {}; }

private:
    std::unique_ptr<RowEncoder> row_;
    std::unique_ptr<TaskEnvelope> envelope_;
};

}  // namespace

std::unique_ptr<RowEncoder> make_worker_encoder(Format format, std::vector<Column> columns, const TaskSpec& task,
                                                JsonStyle style) {
    return std::make_unique<WorkerEncoder>(make_json_encoder(std::move(columns), style),
                                           make_task_envelope(format, task));
}

}  // namespace rowpump
