#include "backend/mysql_queue/mysql_queue_insert.hpp"

#include <algorithm>
#include <bit>

#include "log.hpp"
#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

// Rows per INSERT. Chunks are powers of two (1024, 512, ..., 1), so a connection prepares at most eleven
// statements per row shape whatever the batch sizes: the server caps prepared statements across all
// sessions (max_prepared_stmt_count), and a statement per distinct row count would run into it.
constexpr std::size_t max_rows_per_insert = 1024;
constexpr std::size_t statement_shapes = std::bit_width(max_rows_per_insert);
constexpr std::size_t row_shapes = 2;
constexpr std::size_t params_per_row[row_shapes] = {2, 4};  // ready: priority, payload; due: + 2 due values
// Rows per bulk execution, and what each adds to its packet besides the payload (its other values,
// their null indicators and lengths).
constexpr std::size_t max_rows_per_bulk = 16384;
constexpr std::size_t bulk_row_overhead_bytes = 48;
// A server that cannot execute this INSERT in bulk: under binlog_format=STATEMENT (4033, "only row based
// replication supported for bulk operations"), a statement it does not execute in bulk (1295), or a
// proxy in front of it that does not know the command (1047).
constexpr int bulk_needs_row_binlog = 4033;
constexpr int unsupported_in_bulk = 1295;
constexpr int unknown_command = 1047;

// FROM_UNIXTIME stops at 2038-01-19 (MariaDB before 11.5): a later due time is bound as microseconds
// after this instant (2038-01-01 00:00:00 UTC) and added to it with TIMESTAMPADD.
constexpr std::int64_t late_due_anchor_s = 2145916800;
constexpr std::int64_t from_unixtime_max_ms = std::int64_t{2147483647} * 1000;
// What a one-row INSERT adds to its payload in the packet: the statement text and the other values.
constexpr std::uint64_t statement_overhead_bytes = 1024;
constexpr std::int64_t datetime_max_ms = std::int64_t{253402300799} * 1000;  // 9999-12-31 23:59:59 UTC

}  // namespace

QueueInserter::QueueInserter(Connection& connection, std::string table, std::size_t priority_levels)
    : connection_(connection),
      table_(std::move(table)),
      levels_(priority_levels),
      insert_sql_(row_shapes * statement_shapes),
      params_(row_shapes * statement_shapes),
      bulk_(connection.supports_bulk()),
      columns_(row_shapes) {
    // One prepared statement carries all its rows in one packet, which must fit max_allowed_packet.
    auto result = connection_.retrying([&] { return connection_.query("SELECT @@max_allowed_packet"); });
    result.next();
    max_packet_ = result.uint64(1);
    max_chunk_bytes_ = std::max<std::size_t>(max_packet_ / 2, 1);
}

void check_payload_sizes(const std::vector<Message>& batch, std::uint64_t max_packet) {
    const std::uint64_t limit = max_packet > statement_overhead_bytes ? max_packet - statement_overhead_bytes : 0;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        if (batch[i].payload.size() <= limit) continue;
        throw PayloadTooLarge("a payload of " + std::to_string(batch[i].payload.size()) +
                                  " bytes is larger than the queue server's max_allowed_packet (" +
                                  std::to_string(max_packet) + " bytes): raise max_allowed_packet on the server, "
                                  "or leave the large columns out with --columns",
                              i);
    }
}

void QueueInserter::insert(const std::vector<Message>& batch) {
    check_payload_sizes(batch, max_packet_);
    for (const Message& message : batch) priority_of(message);  // refuse a bad level before writing
    for (std::size_t first = 0; first < batch.size();)
        first += bulk_ ? insert_bulk(batch, first) : insert_rows(batch, first);
}

// One statement with a row's placeholders, executed with an array of values for each: the server parses
// it once and binds each row without writing its values into the statement's text for the binary log,
// which it does for every placeholder of a prepared multi-row INSERT (docs/DESIGN.md, "Layout").
// Returns the rows inserted, or 0 when the server refused bulk execution: the caller goes on without it.
std::size_t QueueInserter::insert_bulk(const std::vector<Message>& batch, std::size_t first) {
    const std::size_t rows = chunk_rows(batch, first, max_rows_per_bulk, bulk_row_overhead_bytes);
    const RowShape shape = shape_of(batch, first, rows);
    try {
        connection_.execute_bulk(insert_sql(shape, 1), fill_columns(shape, batch, first, rows));
    } catch (const DbError& error) {
        if (error.code() != bulk_needs_row_binlog && error.code() != unsupported_in_bulk &&
            error.code() != unknown_command)
            throw;
        // Refused before it ran: nothing of this chunk is in the table, and the transaction goes on.
        log().info("the queue server refused bulk inserts ({}); inserting {} with multi-row INSERTs instead",
                   error.what(), quote_identifier(table_));
        bulk_ = false;
        return 0;
    }
    return rows;
}

// A multi-row INSERT of the largest power of two rows that fits.
std::size_t QueueInserter::insert_rows(const std::vector<Message>& batch, std::size_t first) {
    const std::size_t rows = std::bit_floor(chunk_rows(batch, first, max_rows_per_insert, 0));
    const RowShape shape = shape_of(batch, first, rows);
    connection_.execute(insert_sql(shape, rows), fill_params(shape, batch, first, rows));
    return rows;
}

// Priority lists are highest first, and consumers take the highest priority column value first.
std::int64_t QueueInserter::priority_of(const Message& message) const {
    if (levels_ == 0) return 0;
    if (message.priority_level < 0 || static_cast<std::size_t>(message.priority_level) >= levels_)
        throw UsageError("priority level " + std::to_string(message.priority_level) + " is out of range: " +
                         std::to_string(levels_) + " priority lists are configured");
    return static_cast<std::int64_t>(levels_) - message.priority_level;
}

// The most rows, starting at `first` (at least one), that stay within `max_rows` and the byte limit, each
// row counted as its payload and `row_overhead` bytes.
std::size_t QueueInserter::chunk_rows(const std::vector<Message>& batch, std::size_t first, std::size_t max_rows,
                                      std::size_t row_overhead) const {
    const std::size_t limit = std::min(max_rows, batch.size() - first);
    std::size_t rows = 1;
    std::size_t bytes = batch[first].payload.size() + row_overhead;
    while (rows < limit && bytes + batch[first + rows].payload.size() + row_overhead <= max_chunk_bytes_) {
        bytes += batch[first + rows].payload.size() + row_overhead;
        ++rows;
    }
    return rows;
}

QueueInserter::RowShape QueueInserter::shape_of(const std::vector<Message>& batch, std::size_t first,
                                                std::size_t rows) {
    for (std::size_t row = first; row < first + rows; ++row)
        if (batch[row].due_ms > 0) return RowShape::due;
    return RowShape::ready;
}

const std::string& QueueInserter::insert_sql(RowShape shape, std::size_t rows) {
    std::string& sql = insert_sql_[static_cast<std::size_t>(shape) * statement_shapes + std::bit_width(rows) - 1];
    if (!sql.empty()) return sql;
    // A due row is available at FROM_UNIXTIME(due_ms / 1000) or, past 2038, at the anchor plus its offset;
    // a row without a due time (both values 0) at NOW(6). All in the session time zone, like NOW().
    const std::string row_sql =
        shape == RowShape::ready
            ? std::string("(?, ?, NOW(6))")
            : "(?, ?, COALESCE(FROM_UNIXTIME(NULLIF(?, 0) / 1000), TIMESTAMPADD(MICROSECOND, NULLIF(?, 0), "
              "FROM_UNIXTIME(" + std::to_string(late_due_anchor_s) + ")), NOW(6)))";
    sql = "INSERT INTO " + quote_identifier(table_) + " (priority, payload, available_at) VALUES ";
    for (std::size_t row = 0; row < rows; ++row) sql += (row == 0 ? "" : ", ") + row_sql;
    return sql;
}

// The parameter vectors are kept per statement shape, so their payload strings keep their capacity
// and a steady stream of batches copies payloads without allocating.
const std::vector<Param>& QueueInserter::fill_params(RowShape shape, const std::vector<Message>& batch,
                                                     std::size_t first, std::size_t rows) {
    const std::size_t per_row = params_per_row[static_cast<std::size_t>(shape)];
    std::vector<Param>& params = params_[static_cast<std::size_t>(shape) * statement_shapes + std::bit_width(rows) - 1];
    if (params.empty()) {
        for (std::size_t row = 0; row < rows; ++row) {
            params.emplace_back(std::int64_t{0});
            params.emplace_back(std::string());
            for (std::size_t due = 2; due < per_row; ++due) params.emplace_back(std::int64_t{0});
        }
    }
    for (std::size_t row = 0; row < rows; ++row) {
        const Message& message = batch[first + row];
        Param* values = &params[row * per_row];
        values[0] = priority_of(message);
        std::get<std::string>(values[1]).assign(message.payload);
        if (shape == RowShape::ready) continue;
        const DueValues due = due_values(message);
        values[2] = due.ms_before_2038;
        values[3] = due.us_after_anchor;
    }
    return params;
}

// The same values as fill_params, a column each: the payloads are not copied.
const std::vector<BulkColumn>& QueueInserter::fill_columns(RowShape shape, const std::vector<Message>& batch,
                                                          std::size_t first, std::size_t rows) {
    std::vector<BulkColumn>& columns = columns_[static_cast<std::size_t>(shape)];
    if (columns.empty()) {
        columns.emplace_back(std::vector<std::int64_t>());
        columns.emplace_back(std::vector<std::string_view>());
        for (std::size_t due = 2; due < params_per_row[static_cast<std::size_t>(shape)]; ++due)
            columns.emplace_back(std::vector<std::int64_t>());
    }
    auto& priorities = std::get<std::vector<std::int64_t>>(columns[0]);
    auto& payloads = std::get<std::vector<std::string_view>>(columns[1]);
    priorities.clear();
    payloads.clear();
    for (std::size_t row = first; row < first + rows; ++row) {
        priorities.push_back(priority_of(batch[row]));
        payloads.push_back(batch[row].payload);
    }
    if (shape == RowShape::ready) return columns;
    auto& before_2038 = std::get<std::vector<std::int64_t>>(columns[2]);
    auto& after_anchor = std::get<std::vector<std::int64_t>>(columns[3]);
    before_2038.clear();
    after_anchor.clear();
    for (std::size_t row = first; row < first + rows; ++row) {
        const DueValues due = due_values(batch[row]);
        before_2038.push_back(due.ms_before_2038);
        after_anchor.push_back(due.us_after_anchor);
    }
    return columns;
}

QueueInserter::DueValues QueueInserter::due_values(const Message& message) {
    // DATETIME ends with year 9999; the clamp also keeps the microsecond offset from overflowing.
    const std::int64_t due_ms = std::clamp<std::int64_t>(message.due_ms, 0, datetime_max_ms);
    const bool late = due_ms > from_unixtime_max_ms;
    return {late ? 0 : due_ms, late ? (due_ms - late_due_anchor_s * 1000) * 1000 : 0};
}

}  // namespace rowpump::mysql
