#pragma once
// Where a page is read: deep pagination without OFFSET. Plan once (introspection and validation, no
// rows read), then let one PageReader per worker walk its key range a page at a time.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rowpump/key.hpp"
#include "rowpump/options.hpp"
#include "rowpump/page.hpp"
#include "rowpump/table.hpp"

namespace ROWPUMP_EXPORT rowpump {

enum class PagingStrategy {
    keyset,         // WHERE key > last ORDER BY key LIMIT n
    deferred_join,  // page the key through a covering index, then join back for the columns
    id_in,          // fetch n keys, then SELECT ... WHERE key IN (...)
    offset,         // LIMIT n OFFSET m: the slow baseline, for benchmarks only
};

// "keyset", "deferred-join", "id-in" or "offset"; throws UsageError otherwise.
PagingStrategy parse_strategy(const std::string& name);
std::string to_string(PagingStrategy strategy);

enum class NullKeys {
    refuse,      // a NULL in the paging key is an error that says how many and what to do
    read_first,  // read those rows first, in a separate pass paged by the primary key
};

// A value the server computes for each row beside the columns, e.g. a routing or due-time input: an SQL
// expression over one column, or the column itself. Rows carry computed values after the columns, in
// this order; encoders do not see them.
struct ComputedColumn {
    std::string name;
    std::string column;
    // SQL with {} wherever the (quoted) column goes, e.g. "UNIX_TIMESTAMP({})"; empty: the plain column.
    std::string expression;
};

struct ReadSpec {
    std::string table;                 // "name" or "schema.name"
    std::vector<std::string> key;      // empty: the primary key, else the smallest unique NOT NULL index
    std::vector<std::string> columns;  // empty: every column, in table order
    std::string where;                 // an SQL condition, by design, parenthesised: one balanced expression
    std::vector<ComputedColumn> computed;
    PagingStrategy strategy = PagingStrategy::keyset;
    NullKeys null_keys = NullKeys::refuse;

    // The first page's size. Each page is a statement the server parses, plans and starts: on a 1M-row
    // table, 5000-row pages cost MariaDB 0.54 s of CPU against 0.64 s for 1000-row pages, and into Redis,
    // 10,000-row pages 0.60 s against 0.76 s for 5000 (medians of 5), while a page still takes only
    // milliseconds.
    std::size_t page_size = 10'000;
    // Adaptive page size: aim for this much time per page, within [min_page_size, max_page_size].
    // A zero target keeps page_size fixed.
    std::chrono::milliseconds target_page_time{0};
    std::size_t min_page_size = 100;
    // Larger pages gain little more per row and cost memory: each page in flight is held as the page and
    // its payloads (a backfill's peak RSS is about 30 MB with 5000-row pages, 45 MB with 10,000, 65 MB
    // with 20,000).
    std::size_t max_page_size = 10'000;
    // While it points at a value above 0, every page has that many rows and adaptive sizing waits (a run's
    // POST /page-size sets it); the run that set it owns it.
    const std::atomic<std::size_t>* page_size_override = nullptr;
    // The server stops a page query that runs longer (max_statement_time): a page is meant to take a
    // fraction of a second, and one that runs for minutes holds an undo snapshot on the server. The
    // reader's socket waits this long plus a margin, so a slow page is not mistaken for a frozen server.
    // 0: no limit.
    std::chrono::seconds page_timeout{60};
};

// Everything resolved before the first row is read.
struct ReadPlan {
    ReadSpec spec;
    TableInfo table;
    PagingKey key;
    std::vector<Column> columns;        // the columns each row carries, in output order
    std::uint64_t null_key_rows = 0;    // rows whose paging key is NULL (read first, or refused)
    std::vector<Column> key_columns() const;
};

// Introspects the table and validates the spec: unknown table or column, a key that cannot be made
// unique, NULL keys when refused, a bad strategy for the key. Throws UsageError; reads no row.
ReadPlan plan_read(const MySqlOptions& mysql, const ReadSpec& spec);

// A reader's connection kept from one range to the next: how a worker reads every range of a
// --consistent-snapshot run in the same snapshot (open_snapshot_sessions). Its definition is private.
class ReaderSession;

// A session for one reader after another, without a snapshot: a worker's ranges (and what is left of a
// range after a split) are read over one connection instead of one each.
std::shared_ptr<ReaderSession> open_reader_session(const MySqlOptions& mysql, const ReadPlan& plan);

// `count` sessions for `plan`, all started on one snapshot of its table at once (docs/tls-and-session.md).
// A lost session fails its reader, since the snapshot cannot be taken again.
std::vector<std::shared_ptr<ReaderSession>> open_snapshot_sessions(const MySqlOptions& mysql, const ReadPlan& plan,
                                                                   std::size_t count);

class PageReader {
public:
    // Reads the rows whose key is in `range`, strictly after `resume_after` when given. Opens its own
    // connection. A lost connection is reopened and the page re-read from the last key delivered.
    PageReader(const MySqlOptions& mysql, std::shared_ptr<const ReadPlan> plan, KeyRange range = {},
               std::optional<KeyValue> resume_after = std::nullopt);
    // The same over `session`, which it shares with the readers before and after it.
    PageReader(std::shared_ptr<ReaderSession> session, std::shared_ptr<const ReadPlan> plan, KeyRange range = {},
               std::optional<KeyValue> resume_after = std::nullopt);
    ~PageReader();
    PageReader(PageReader&&) noexcept;
    PageReader& operator=(PageReader&&) noexcept;

    // The next page in key order; nullopt once the range is exhausted.
    std::optional<Page> next_page();
    // Hands back a page whose rows are no longer needed: the next page is read into its buffers.
    void recycle(Page page);

    // The key of the last row delivered, nullopt before the first page.
    const std::optional<KeyValue>& position() const;
    // The range this reader walks. The upper bound may be lowered while reading (work stealing).
    const KeyRange& range() const;
    void set_upper_bound(std::optional<KeyValue> hi);
    // The SQL the next page will run (the CLI's --dry-run shows it).
    std::string next_page_sql() const;
    // The page size in use now (adapts when a target page time is set).
    std::size_t page_size() const;
    // Pings the reader's connection while it waits between pages (a paused copy).
    void keep_alive();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rowpump
