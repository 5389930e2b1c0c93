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

// What the JSON of a value depends on besides the value.
struct JsonStyle {
    BigNumbers big_numbers = BigNumbers::number;
    JsonColumns json_columns = JsonColumns::string;
};
inline JsonStyle json_style(const PayloadOptions& payload) { return {payload.big_numbers, payload.json_columns}; }

std::unique_ptr<RowEncoder> make_json_encoder(std::vector<Column> columns, JsonStyle style = {});
std::unique_ptr<RowEncoder> make_csv_encoder(std::vector<Column> columns, CsvNull null = CsvNull::empty);
std::unique_ptr<RowEncoder> make_template_encoder(const std::string& template_text, std::vector<Column> columns,
                                                  JsonStyle style);
std::unique_ptr<RowEncoder> make_worker_encoder(Format format, std::vector<Column> columns, const TaskSpec& task,
                                                JsonStyle style);

// `wrapper_class`: the class Sidekiq runs when it is not task.job_class, which then goes in "wrapped".
std::unique_ptr<TaskEnvelope> make_sidekiq_envelope(const TaskSpec& task, std::string_view wrapper_class = {});
std::unique_ptr<TaskEnvelope> make_celery_envelope(const TaskSpec& task);
// ActiveJob's job through its Sidekiq adapter, around one argument already in ActiveJob's serialization.
std::unique_ptr<TaskEnvelope> make_activejob_envelope(const TaskSpec& task);
// BullMQ's job parts, "<id>\n<name>\n<data>" (bullmq_encoder.cpp).
std::unique_ptr<RowEncoder> make_bullmq_encoder(std::vector<Column> columns, const TaskSpec& task, JsonStyle style);
// The page columns `picked` (indexes into `columns`) as one JSON object, values as the JSON format's.
std::unique_ptr<RowEncoder> make_column_subset(std::vector<Column> columns, std::vector<std::size_t> picked,
                                               JsonStyle style);
// The row as ActiveJob serializes a Hash with string keys (activejob_arguments.cpp).
std::unique_ptr<RowEncoder> make_activejob_arguments(std::vector<Column> columns, JsonStyle style);

// One value as JSON, as the JSON encoder writes it (text that is not NULL); `in_utc` for a TIMESTAMP.
// `column` names the column in the error for a JSON column to embed whose value is not JSON.
void append_json_value(const Column& column, std::string_view text, JsonStyle style, std::string& out);

}  // namespace rowpump
