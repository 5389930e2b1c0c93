#pragma once
// Where a row becomes a payload: encoders turn one row of a page into one string.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rowpump/page.hpp"
#include "rowpump/sink.hpp"
#include "rowpump/table.hpp"

namespace ROWPUMP_EXPORT rowpump {

// json and csv are rowpump's own payloads, template a payload of the user's; sidekiq and celery are jobs
// that those frameworks' workers run unchanged, activejob a Rails ActiveJob enqueued through its Sidekiq
// adapter, bullmq a BullMQ 5 job in its Redis keys (docs/worker-formats.md, docs/payloads-and-names.md).
enum class Format { json, csv, sidekiq, celery, payload_template, activejob, bullmq };

// "json", "csv", "sidekiq", "activejob", "celery", "bullmq" or "template"; throws UsageError otherwise.
Format parse_format(const std::string& name);
std::string format_name(Format format);
// The Redis key layout a format is written with: sidekiq and celery jobs go where their workers look
// (activejob's are Sidekiq jobs).
QueueLayout queue_layout(Format format);

// The queue a worker format's jobs go to when none is given: Sidekiq's "default", Celery's "celery"; empty
// for json and csv, which need one.
std::string default_queue(Format format);

// Sidekiq 6 and 7 write created_at and enqueued_at as float seconds, Sidekiq 8 as integer milliseconds.
// Each reads the other's, but its Web UI and middleware expect their own.
enum class SidekiqTimestamps { seconds, milliseconds };

// What a Sidekiq job (formats sidekiq and activejob) carries besides its class and arguments: the keys a
// worker class's sidekiq_options would set (docs/worker-formats.md).
struct SidekiqJobOptions {
    bool retry = true;                     // false: a failed job is neither retried nor kept
    std::optional<std::uint32_t> retries;  // a retry count instead of true; 0: a failure goes to `dead`
    bool dead = true;                      // false: a job out of retries is dropped, not kept in `dead`
    std::vector<std::string> tags;         // "tags", shown and filtered by Sidekiq's Web UI
    std::vector<std::pair<std::string, std::string>> fields;  // more keys, with string values
};

// What a Celery task message carries besides its name and arguments.
struct CeleryTaskOptions {
    double expires_seconds = 0;       // "expires" this long after enqueueing; 0: never
    std::vector<std::string> kwargs;  // columns passed as keyword arguments, left out of the row argument
    std::string routing_key;          // delivery_info's routing key; empty: the queue
    // properties.priority, 0..9; kombu's Redis transport keeps it in the list of its step
    // (RedisSinkOptions::celery_priority). nullopt: none given (priority 0, the list Q itself).
    std::optional<unsigned> priority;
    // A column holding each row's priority instead (an integer 0..9; NULL: 0, as a message without one):
    // the router reads it (route/router.hpp), and the message goes to its step's list. Not with `priority`.
    std::string priority_column;
};

// What a BullMQ job carries besides the row, which is its data.
struct BullmqJobOptions {
    std::string job_name;  // the job's name, job.name in a Worker's processor
    // The job's custom id, a brace template over the row's columns ("order-{id}"); empty: BullMQ's counter.
    std::string job_id;
};

// What a worker format needs beside the row: the job's class (Sidekiq) or task name (Celery), and the
// queue its workers read (run_job and BulkEnqueuer take the sink's queue: leave it empty or the same).
struct TaskSpec {
    std::string job_class;  // sidekiq, activejob: a Ruby constant path, e.g. "Billing::InvoiceJob"
    std::string task;       // celery: the registered task name, e.g. "billing.tasks.invoice"
    std::string queue;
    SidekiqTimestamps sidekiq_timestamps = SidekiqTimestamps::seconds;
    SidekiqJobOptions sidekiq;
    CeleryTaskOptions celery;
    BullmqJobOptions bullmq;
};

// Throws UsageError when `task` does not fit `format`: a worker format without its class or task name,
// a class that is not a Ruby constant path, a class or task given to another format.
void check_task_spec(Format format, const TaskSpec& task);

// When a task is enqueued and due; worker formats write these into the job.
struct TaskTimes {
    std::int64_t now_us = 0;  // Unix time in microseconds
    std::int64_t due_ms = 0;  // Unix time in milliseconds; 0: ready now
    std::optional<unsigned> priority;  // celery: the row's own priority (a priority column); nullopt: the task's
};

// How JSON carries DECIMAL and integers beyond +-(2^53 - 1): as numbers (exact text, the default) or as
// strings, which consumers that parse numbers into doubles (PHP json_decode, JS JSON.parse) keep exact.
enum class BigNumbers { number, string };
// "number" or "string"; throws UsageError otherwise.
BigNumbers parse_big_numbers(const std::string& name);

// How CSV writes NULL: an empty unquoted field, beside "" for an empty string (the default); or \N, as
// mysqldump --tab and SELECT ... INTO OUTFILE write it, with every backslash of a value doubled, so that
// LOAD DATA ... FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY '\\' reads each value back.
enum class CsvNull { empty, backslash_n };
// "empty" or "\N"; throws UsageError otherwise.
CsvNull parse_csv_null(const std::string& name);

// How JSON carries a JSON column: as a string holding its text (the default), or embedded as the JSON value
// itself (compacted onto one line; a value that is not JSON fails the run, naming its column).
enum class JsonColumns { string, embed };
// "string" or "embed"; throws UsageError otherwise.
JsonColumns parse_json_columns(const std::string& name);

// Settings of the payload formats besides the format itself (docs/payloads-and-names.md).
struct PayloadOptions {
    // Format::payload_template: {column} the raw value (NULL: nothing), {column:json} its JSON, {row} the
    // row's JSON object, {{ and }} literal braces.
    std::string template_text;
    BigNumbers big_numbers = BigNumbers::number;    // json, {column:json} and {row}
    JsonColumns json_columns = JsonColumns::string;  // json, {column:json} and {row}
    CsvNull csv_null = CsvNull::empty;               // csv
};

// Throws UsageError for options that cannot work whatever the table: a template without
// Format::payload_template or the other way round, and a malformed template (bad braces, an empty
// placeholder, an unknown modifier), with its position. Column names are checked by make_encoder.
void check_payload_options(Format format, const PayloadOptions& payload);

class RowEncoder {
public:
    virtual ~RowEncoder() = default;
    // Appends the payload of `row` to `out`, without a line end.
    virtual void encode(const Page& page, std::size_t row, std::string& out) const = 0;
    // The payload of `row` as a task enqueued and due at `times`. Only worker formats use the times.
    virtual void encode_task(const Page& page, std::size_t row, const TaskTimes& times, std::string& out) const {
        (void)times;
        encode(page, row, out);
    }
    // A first line to write before any row (the CSV header); empty when the format has none.
    virtual std::string header() const = 0;
};

// JSON: one object per row keyed by column name. NULL is null; integers, DECIMAL and BIGINT UNSIGNED
// are numbers written exactly as the server sent them; FLOAT/DOUBLE numbers; binary columns base64
// strings; dates and times ISO-8601 strings ("2024-05-01T12:00:00.250000"); text escaped per RFC 8259.
// CSV (RFC 4180): a header line, fields quoted when they hold a comma, quote, CR or LF; NULL is an
// empty field and an empty string is "" (or NULL is \N: PayloadOptions::csv_null).
// Sidekiq: the job Sidekiq::Client.push_bulk writes, with the JSON row as its one argument. Celery: a
// protocol-2 message in kombu's Redis envelope, the JSON row as its one positional argument. ActiveJob:
// the Sidekiq job of ActiveJob's adapter, the row as ActiveJob serializes a Hash (DECIMAL a BigDecimal,
// DATETIME and TIMESTAMP times, DATE a Date) as the job's one argument.
// `columns` describe the page's first columns; any further page columns are ignored. `task` is checked
// with check_task_spec, `payload` with check_payload_options; throws UsageError for a template naming a
// column not in `columns`.
std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns, const TaskSpec& task = {},
                                         const PayloadOptions& payload = {});
std::unique_ptr<RowEncoder> make_encoder(Format format, std::vector<Column> columns, const PayloadOptions& payload);

}  // namespace rowpump
