// --format bullmq: a row as the parts of a BullMQ job that the Redis writer turns into BullMQ's keys
// (backend/redis/bullmq_page_writer.hpp): "<id>\n<name>\n<data>", the id empty for BullMQ's counter, the
// data the row's JSON (the json encoder's, byte for byte), which the Worker gets as job.data. The id and
// the name hold no line break (check_bullmq_task, BullmqJobId), so the writer splits at the first two.
#include <optional>

#include "encode/bullmq_job_id.hpp"
#include "encode/encoders.hpp"

namespace rowpump {

namespace {

class BullmqEncoder final : public RowEncoder {
public:
    BullmqEncoder(std::vector<Column> columns, const TaskSpec& task, JsonStyle style)
        : name_(task.bullmq.job_name),
          id_(task.bullmq.job_id.empty() ? std::nullopt : std::optional<BullmqJobId>(std::in_place, task.bullmq.job_id, columns)),
          data_(make_json_encoder(std::move(columns), style)) {}

    void encode(const Page& page, std::size_t row, std::string& out) const override {
        if (id_) id_->append(page, row, out);
        out += '\n';
        out += name_;
        out += '\n';
        data_->encode(page, row, out);
    }

    std::string header() const override { return {}; }

private:
    std::string name_;
    std::optional<BullmqJobId> id_;
    std::unique_ptr<RowEncoder> data_;
};

}  // namespace

std::unique_ptr<RowEncoder> make_bullmq_encoder(std::vector<Column> columns, const TaskSpec& task, JsonStyle style) {
    return std::make_unique<BullmqEncoder>(std::move(columns), task, style);
}

}  // namespace rowpump
