#include <algorithm>
#include <chrono>
#include <span>

#include "log.hpp"
#include "mysql/consistent_snapshot.hpp"
#include "mysql/stream_connection.hpp"
#include "paging/page_sql.hpp"
#include "paging/page_size.hpp"
#include "rowpump/error.hpp"
#include "rowpump/reader.hpp"

namespace rowpump {

namespace {

MySqlOptions with_page_timeout(MySqlOptions options, const ReadSpec& spec) {
    options.statement_timeout = spec.page_timeout;
    if (spec.page_timeout.count() > 0 && options.read_timeout.count() > 0)
        options.read_timeout = std::max(options.read_timeout, spec.page_timeout + std::chrono::seconds(5));
    return options;
}

}  // namespace

class ReaderSession {
public:
    explicit ReaderSession(MySqlOptions options) : connection(std::move(options)) {}
    mysql::StreamConnection connection;
};

std::shared_ptr<ReaderSession> open_reader_session(const MySqlOptions& mysql, const ReadPlan& plan) {
    return std::make_shared<ReaderSession>(with_page_timeout(mysql, plan.spec));
}

std::vector<std::shared_ptr<ReaderSession>> open_snapshot_sessions(const MySqlOptions& mysql, const ReadPlan& plan,
                                                                   std::size_t count) {
    // Connected first, so that the lock is held only while the transactions start.
    std::vector<std::shared_ptr<ReaderSession>> sessions;
    std::vector<mysql::StreamConnection*> readers;
    for (std::size_t i = 0; i < count; ++i) {
        sessions.push_back(std::make_shared<ReaderSession>(with_page_timeout(mysql, plan.spec)));
        readers.push_back(&sessions.back()->connection);
    }
    mysql::start_snapshots_together(mysql, plan.table.quoted_name(), readers);
    return sessions;
}

struct PageReader::Impl {
    std::shared_ptr<const ReadPlan> plan;
    std::shared_ptr<ReaderSession> session;
    mysql::StreamConnection& connection;
    PageSql sql;
    KeyRange range;
    std::optional<KeyValue> position;        // last key delivered by the main pass
    std::optional<KeyValue> null_position;   // last primary key delivered by the null pass
    std::optional<KeyValue> offset_after;    // the offset strategy counts from here (exclusive) when set
    Pass pass;
    bool finished = false;
    std::uint64_t rows_skipped = 0;          // the offset strategy's OFFSET
    PageSizer sizer;
    std::size_t last_page_bytes = 0;
    std::size_t last_page_cells = 0;
    std::optional<Page> spare;               // a page handed back (recycle), read into next
    // The keyset main pass reads a stretch of pages with one statement and cuts the pages from it
    // (docs/DESIGN.md, "Paging"). Open while stretch_limit > 0.
    std::size_t stretch_limit = 0;           // its LIMIT
    std::size_t stretch_rows = 0;            // rows read from it, handed out or in the page being cut
    std::chrono::steady_clock::time_point stretch_opened;
    bool streams;                            // false once a wait ended a stretch: a page per statement

    Impl(std::shared_ptr<ReaderSession> reader_session, std::shared_ptr<const ReadPlan> read_plan, KeyRange key_range,
         std::optional<KeyValue> resume_after)
        : plan(std::move(read_plan)),
          session(std::move(reader_session)),
          connection(session->connection),
          sql(*plan),
          range(std::move(key_range)),
          position(resume_after),
          offset_after(std::move(resume_after)),
          pass(has_null_key_pass(*plan, range) && !position ? Pass::null_keys : Pass::main),
          sizer(plan->spec),
          streams(plan->spec.strategy == PagingStrategy::keyset) {}

    // A reader that stops (done, split, refused or failed) leaves the shared session ready for the next.
    ~Impl() { end_stretch(); }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    bool stretch_open() const { return stretch_limit > 0 && connection.rows_open(); }

    // Ends the open stretch: the rows past the last page handed out stay unread, and the next page opens
    // a new stretch after that page. A rest of at most a page is drained; a longer one is cut off with
    // its session (a reconnect costs the server less than reading it), except on a snapshot's session.
    void end_stretch() {
        if (stretch_open()) {
            const bool short_rest = stretch_limit - stretch_rows <= sizer.size();
            connection.end_rows(short_rest ? mysql::StreamConnection::EndRows::drain
                                           : mysql::StreamConnection::EndRows::drop);
        }
        stretch_limit = 0;
    }

    // A stretch must not outlive the page timeout it runs under: the statement timeout is the page
    // timeout, and it counts the time the server waits for the reader too.
    bool stretch_too_old() const {
        const auto timeout = plan->spec.page_timeout;
        return timeout.count() > 0 && std::chrono::steady_clock::now() - stretch_opened > timeout / 2;
    }

    bool streaming_now() const { return streams && pass == Pass::main; }

    // The next page cut from the open stretch, opening one (after the last page handed out) when none is.
    // `pass_ended`: the stretch ended short, so the pass has no more rows.
    Page fetch_stretch_page(std::size_t limit, bool& pass_ended) {
        return read_page([&](Page& page, std::size_t width) {
            pass_ended = false;
            try {
                if (!stretch_open()) {
                    stretch_limit = std::max(limit, limit * pages_per_stretch);
                    stretch_rows = 0;
                    stretch_opened = std::chrono::steady_clock::now();
                    const SqlFragment query = sql.keyset(Pass::main, bounds(), stretch_limit);
                    connection.begin_rows(query.sql, query.params);
                }
                while (page.row_count() < limit) {
                    const auto row = connection.next_row();
                    if (!row) {
                        pass_ended = stretch_rows < stretch_limit;
                        stretch_limit = 0;
                        break;
                    }
                    append_row(*row, width, page);
                    if (++stretch_rows == stretch_limit) {
                        // Its last row: the end of the result follows, and reading it ends the statement.
                        if (connection.next_row()) throw Error("bug: a stretch returned more rows than its LIMIT");
                        stretch_limit = 0;
                        break;
                    }
                }
            } catch (...) {
                // A failed stretch is gone with its session: the retry opens a new one after the last
                // page handed out, and this partial page is read again from there.
                stretch_limit = 0;
                throw;
            }
        });
    }

    // One page, filled by `fill(page, width)`; after a lost connection the page is emptied and filled again.
    template <class Fill>
    Page read_page(Fill&& fill) {
        const std::size_t width = sql.select_columns().size();
        // A recycled page keeps its buffers: no allocation, and no fresh memory for the kernel to fault in.
        Page page = spare ? std::move(*spare) : Page(width);
        spare.reset();
        return connection.retrying([&] {
            page.reset(width);
            // Sized like the previous page, with room for a few longer values: one allocation instead of
            // a series of regrowths (each a copy of all the page holds so far).
            page.reserve(last_page_bytes + last_page_bytes / 8, last_page_cells);
            fill(page, width);
            if (!page.empty()) page.set_last_key(last_key_of(page));
            last_page_bytes = page.byte_size();
            last_page_cells = page.row_count() * width;
            return std::move(page);
        });
    }

    static void append_row(const mysql::RowCells& row, std::size_t width, Page& page) {
        if (row.size() != width)
            throw Error("bug: a page query returned " + std::to_string(row.size()) + " columns for " +
                        std::to_string(width));
        for (std::size_t column = 0; column < width; ++column) {
            if (row.is_null(column)) page.append_null();
            else page.append(row[column]);
        }
    }

    void set_upper_bound(std::optional<KeyValue> hi) {
        // The open stretch was sent with the old bound: it may hold rows at or past the new one.
        if (hi != range.hi) end_stretch();
        range.hi = std::move(hi);
    }

    void keep_alive() {
        // The server would wait on a full socket while the reader waits: past net_write_timeout it drops
        // the session. A reader that waits once may wait again (a rate, a held pipeline): from here on
        // it reads a page per statement.
        if (stretch_open()) streams = false;
        end_stretch();
        connection.keep_alive();
    }

    PageBounds bounds() const {
        PageBounds out = first_page_bounds(pass, range);
        // Later pages start after the last key read; OFFSET pages count from where the reader began.
        const auto& after = pass == Pass::null_keys                          ? null_position
                            : plan->spec.strategy == PagingStrategy::offset ? offset_after
                                                                            : position;
        if (after) {
            out.after = after;
            out.after_inclusive = false;
        }
        return out;
    }

    SqlFragment page_query(std::size_t limit) const { return sql.page(pass, bounds(), limit, rows_skipped); }

    Page fetch_rows(const SqlFragment& query) { return fetch_rows(std::span<const SqlFragment>(&query, 1)); }

    // One page from the rows of `queries`, in their order: all of them again after a lost connection.
    Page fetch_rows(std::span<const SqlFragment> queries) {
        return read_page([&](Page& page, std::size_t width) {
            for (const SqlFragment& query : queries)
                connection.for_each_row(query.sql, query.params,
                                        [&](const mysql::RowCells& row) { append_row(row, width, page); });
        });
    }

    // The key of the page's last row, from the values the page holds.
    KeyValue last_key_of(const Page& page) const {
        const auto& positions = sql.key_positions(pass);
        const auto& key_columns = sql.key_columns(pass);
        KeyValue key;
        for (std::size_t i = 0; i < positions.size(); ++i)
            key.push_back(key_part_from_text(key_columns[i], *page.value(page.row_count() - 1, positions[i])));
        return key;
    }

    // id-in: the keys of the page first, then its rows by those keys.
    Page fetch_by_keys(const SqlFragment& keys_query, std::size_t& keys_found) {
        std::vector<KeyValue> keys;
        const auto& key_columns = sql.key_columns(pass);
        connection.retrying([&] {
            keys.clear();
            connection.for_each_row(keys_query.sql, keys_query.params, [&](const mysql::RowCells& row) {
                KeyValue key;
                for (std::size_t i = 0; i < key_columns.size(); ++i) {
                    if (row.is_null(i)) throw Error("bug: a NULL in the paging key of phase 1");
                    key.push_back(key_part_from_text(key_columns[i], row[i]));
                }
                keys.push_back(std::move(key));
            });
        });
        keys_found = keys.size();
        if (keys.empty()) return Page(sql.select_columns().size());
        Page page = fetch_rows(sql.rows_with_keys_in_statements(pass, keys));
        // Rows deleted between the phases leave the page shorter; paging still resumes after the last key.
        page.set_last_key(keys.back());
        return page;
    }

    std::optional<Page> next_page() {
        while (!finished) {
            const std::size_t limit = sizer.size();
            const auto started = std::chrono::steady_clock::now();
            std::size_t fetched = 0;
            bool pass_ended = false;
            // A stretch that lived half the page timeout is read by a slow reader (a --rate, a slow sink):
            // streaming gains it nothing, and reopening stretches would cost a session each time.
            if (stretch_open() && stretch_too_old()) {
                streams = false;
                end_stretch();
            }
            const bool streamed = streaming_now();
            Page page;
            if (streamed) {
                page = fetch_stretch_page(limit, pass_ended);
                fetched = page.row_count();
            } else if (pass == Pass::main && plan->spec.strategy == PagingStrategy::id_in) {
                page = fetch_by_keys(page_query(limit), fetched);
            } else {
                page = fetch_rows(page_query(limit));
                fetched = page.row_count();
            }
            sizer.observe(fetched, std::chrono::steady_clock::now() - started);
            if (fetched > 0) {
                if (pass == Pass::null_keys) null_position = page.last_key();
                else position = page.last_key();
                if (pass == Pass::main) rows_skipped += fetched;
            }
            if (streamed ? pass_ended : fetched < limit) {
                // A short page ends the pass: no extra empty round trip to find out.
                if (pass == Pass::null_keys) pass = Pass::main;
                else finished = true;
            }
            if (!page.empty()) return page;
            spare = std::move(page);
        }
        return std::nullopt;
    }
};

PageReader::PageReader(const MySqlOptions& mysql, std::shared_ptr<const ReadPlan> plan, KeyRange range,
                       std::optional<KeyValue> resume_after)
    : impl_(std::make_unique<Impl>(std::make_shared<ReaderSession>(with_page_timeout(mysql, plan->spec)), plan,
                                   std::move(range), std::move(resume_after))) {}
PageReader::PageReader(std::shared_ptr<ReaderSession> session, std::shared_ptr<const ReadPlan> plan, KeyRange range,
                       std::optional<KeyValue> resume_after)
    : impl_(std::make_unique<Impl>(std::move(session), std::move(plan), std::move(range), std::move(resume_after))) {}
PageReader::~PageReader() = default;
PageReader::PageReader(PageReader&&) noexcept = default;
PageReader& PageReader::operator=(PageReader&&) noexcept = default;

std::optional<Page> PageReader::next_page() { return impl_->next_page(); }
void PageReader::recycle(Page page) { impl_->spare = std::move(page); }
const std::optional<KeyValue>& PageReader::position() const { return impl_->position; }
const KeyRange& PageReader::range() const { return impl_->range; }
void PageReader::set_upper_bound(std::optional<KeyValue> hi) { impl_->set_upper_bound(std::move(hi)); }
std::string PageReader::next_page_sql() const { return impl_->page_query(impl_->sizer.size()).sql; }
void PageReader::keep_alive() { impl_->keep_alive(); }

std::size_t PageReader::page_size() const { return impl_->sizer.size(); }

}  // namespace rowpump
