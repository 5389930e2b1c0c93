#pragma once
// The encoders behind make_encoder(), one per format.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "encode/task_envelope.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/table.hpp"

namespace rowpump {

// A TIMESTAMP column (information_schema's COLUMN_TYPE "timestamp" or "timestamp(N)"): its values are
// instants, read in the session's zone, which is UTC. DATETIME, of the same kind, is a wall-clock value.
inline bool is_timestamp(const Column& column) {
    return column.kind == ColumnKind::datetime && column.column_type.starts_with("timestamp");
}

std::unique_ptr<RowEncoder> make_json_encoder(std::vector<Column> columns, BigNumbers big_numbers = BigNumbers::number);
std::unique_ptr<RowEncoder> make_csv_encoder(std::vector<Column> columns);
std::unique_ptr<RowEncoder> make_template_encoder(const std::string& template_text, std::vector<Column> columns,
                                                  BigNumbers big_numbers);
std::unique_ptr<RowEncoder> make_worker_encoder(Format format, std::vector<Column> columns, const TaskSpec& task,
                                                BigNumbers big_numbers);

std::unique_ptr<TaskEnvelope> make_sidekiq_envelope(const TaskSpec& task);
std::unique_ptr<TaskEnvelope> make_celery_envelope(const TaskSpec& task);

// One value as JSON, as the JSON encoder writes it (text that is not NULL); `in_utc` for a TIMESTAMP.
void append_json_value(ColumnKind kind, bool in_utc, std::string_view text, BigNumbers big_numbers, std::string& out);

}  // namespace rowpump
