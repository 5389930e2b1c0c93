#include "mysql/queue_insert.hpp"

#include <algorithm>
#include <bit>

#include "rowpump/error.hpp"

namespace rowpump::mysql {

namespace {

// Rows per INSERT. Chunks are powers of two (512, 256, ..., 1), so a connection prepares at most ten
// statements whatever the batch sizes: the server caps prepared statements across all sessions
// (max_prepared_stmt_count), and a statement per distinct row count would run into it.
constexpr std::size_t max_rows_per_insert = 512;
constexpr std::size_t statement_shapes = std::bit_width(max_rows_per_insert);
constexpr std::size_t params_per_row = 4;

// FROM_UNIXTIME stops at 2038-01-19 (MariaDB before 11.5): a later due time is bound as microseconds
// after this instant (2038-01-01 00:00:00 UTC) and added to it with TIMESTAMPADD.
constexpr std::int64_t late_due_anchor_s = 2145916800;
constexpr std::int64_t from_unixtime_max_ms = std::int64_t{2147483647} * 1000;
constexpr std::int64_t datetime_max_ms = std::int64_t{253402300799} * 1000;  // 9999-12-31 23:59:59 UTC

}  // namespace

QueueInserter::QueueInserter(Connection& connection, std::string table, std::size_t priority_levels)
    : connection_(connection),
      table_(std::move(table)),
      levels_(priority_levels),
      insert_sql_(statement_shapes),
      params_(statement_shapes) {
    // One prepared statement carries all its rows in one packet, which must fit max_allowed_packet.
    auto result = connection_.retrying([&] { return connection_.query("SELECT @@max_allowed_packet"); });
    result->next();
    max_chunk_bytes_ = std::max<std::size_t>(result->getUInt64(1) / 2, 1);
}

void QueueInserter::insert(const std::vector<Message>& batch) {
    for (const Message& message : batch) priority_of(message);  // refuse a bad level before writing
    for (std::size_t first = 0; first < batch.size();) {
        const std::size_t rows = chunk_rows(batch, first);
        connection_.execute(insert_sql(rows), fill_params(batch, first, rows));
        first += rows;
    }
}

// Priority lists are highest first, and consumers take the highest priority column value first.
std::int64_t QueueInserter::priority_of(const Message& message) const {
    if (levels_ == 0) return 0;
    if (message.priority_level < 0 || static_cast<std::size_t>(message.priority_level) >= levels_)
        throw UsageError("priority level " + std::to_string(message.priority_level) + " is out of range: " +
                         std::to_string(levels_) + " priority lists are configured");
    return static_cast<std::int64_t>(levels_) - message.priority_level;
}

// The largest power of two rows, starting at `first`, that stays within the row and byte limits.
std::size_t QueueInserter::chunk_rows(const std::vector<Message>& batch, std::size_t first) const {
    const std::size_t limit = std::min(max_rows_per_insert, batch.size() - first);
    std::size_t rows = 1;
    std::size_t bytes = batch[first].payload.size();
    while (rows < limit && bytes + batch[first + rows].payload.size() <= max_chunk_bytes_) {
        bytes += batch[first + rows].payload.size();
        ++rows;
    }
    return std::bit_floor(rows);
}

const std::string& QueueInserter::insert_sql(std::size_t rows) {
    std::string& sql = insert_sql_[std::bit_width(rows) - 1];
    if (!sql.empty()) return sql;
    // A row is due now (NOW(6)) when both due values are 0, else at FROM_UNIXTIME(due_ms / 1000) or,
    // past 2038, at the anchor plus its offset; in the session time zone like NOW(). One row shape serves
    // all three, so one statement serves any mix.
    sql = "INSERT INTO " + quote_identifier(table_) + " (priority, payload, available_at) VALUES ";
    const std::string row_sql = "(?, ?, COALESCE(FROM_UNIXTIME(NULLIF(?, 0) / 1000), TIMESTAMPADD(MICROSECOND, "
                                "NULLIF(?, 0), FROM_UNIXTIME(" + std::to_string(late_due_anchor_s) + ")), NOW(6)))";
    for (std::size_t row = 0; row < rows; ++row) sql += (row == 0 ? "" : ", ") + row_sql;
    return sql;
}

// The parameter vectors are kept per statement shape, so their payload strings keep their capacity
// and a steady stream of batches copies payloads without allocating.
const std::vector<Param>& QueueInserter::fill_params(const std::vector<Message>& batch, std::size_t first,
                                                     std::size_t rows) {
    std::vector<Param>& params = params_[std::bit_width(rows) - 1];
    if (params.empty()) {
        for (std::size_t row = 0; row < rows; ++row) {
            params.emplace_back(std::int64_t{0});
            params.emplace_back(std::string());
            params.emplace_back(std::int64_t{0});
            params.emplace_back(std::int64_t{0});
        }
    }
    for (std::size_t row = 0; row < rows; ++row) {
        const Message& message = batch[first + row];
        Param* values = &params[row * params_per_row];
        values[0] = priority_of(message);
        std::get<std::string>(values[1]).assign(message.payload);
        // DATETIME ends with year 9999; the clamp also keeps the microsecond offset from overflowing.
        const std::int64_t due_ms = std::clamp<std::int64_t>(message.due_ms, 0, datetime_max_ms);
        const bool late = due_ms > from_unixtime_max_ms;
        values[2] = late ? 0 : due_ms;
        values[3] = late ? (due_ms - late_due_anchor_s * 1000) * 1000 : 0;
    }
    return params;
}

}  // namespace rowpump::mysql
