// keyset reads a stretch of pages with one statement and cuts the pages on the client (docs/DESIGN.md,
// "Paging"). What happens to that statement between two of its pages must not lose or repeat a row:
// KILL QUERY and KILL CONNECTION cut it off, and a split lowers the range's bound below rows it already
// selected. Each case reads the whole range and checks every id once, in order.
//
// The rows are wide (800 bytes), so that a stretch (16 pages of 1000 rows, 12.8 MB) is far more than the
// socket buffers hold: after one page the server is still sending, and its statement is in the process
// list to be found and killed.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "integration/mysql_fixture.hpp"
#include "integration/prepared_fixture.hpp"
#include "paging/page_size.hpp"
#include "rowpump/reader.hpp"

namespace rowpump::test {
namespace {

constexpr std::int64_t row_count = 40000;
constexpr std::size_t page_rows = 1000;

class StretchTest : public Prepared<MySqlTest> {
protected:
    std::optional<SourceTable> source_table() const override {
        return SourceTable{"stretch", "(id BIGINT PRIMARY KEY, v VARCHAR(800))",
                           "INSERT INTO {t} SELECT seq, REPEAT(SHA1(seq), 20) FROM seq_1_to_" +
                               std::to_string(row_count)};
    }
    void prepare() override {
        ReadSpec spec;
        spec.table = table_;
        spec.page_size = page_rows;
        plan_ = std::make_shared<const ReadPlan>(plan_read(options(), spec));
        watcher_ = std::make_unique<mysql::Connection>(options());
    }
    void TearDown() override {
        watcher_.reset();
        MySqlTest::TearDown();
    }

    // The session whose SELECT of this test's table is running now (a stretch the reader has not read to
    // its end), or 0 when none shows up within 20 s.
    std::uint64_t running_select() {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < deadline) {
            auto found = watcher_->query(
                "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ? AND DB = DATABASE() AND "
                "ID <> CONNECTION_ID() AND INFO LIKE 'SELECT %' AND LOCATE(?, INFO) > 0",
                {options().user, mysql::quote_identifier(table_)});
            if (found.next()) return found.uint64(1);
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return 0;
    }

    // Whether session `id` is gone from the server within 20 s (a session the client closed or the
    // server killed is removed a moment later, not at once).
    bool session_gone(std::uint64_t id) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < deadline) {
            auto found = watcher_->query("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?",
                                         {static_cast<std::int64_t>(id)});
            if (found.next() && found.uint64(1) == 0) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }

    // Reads the reader's first page into `ids`; returns the session whose stretch still runs after it (0
    // when there was no page or no such session).
    std::uint64_t first_page_then_running_select(PageReader& reader, std::vector<std::int64_t>& ids) {
        auto first = reader.next_page();
        if (!first) return 0;
        append_ids(*first, ids);
        return running_select();
    }

    static void append_ids(const Page& page, std::vector<std::int64_t>& ids) {
        for (std::size_t row = 0; row < page.row_count(); ++row)
            ids.push_back(std::stoll(std::string(*page.value(row, 0))));
    }

    static std::vector<std::int64_t> ids_before(std::int64_t end) {
        std::vector<std::int64_t> ids;
        for (std::int64_t id = 1; id < end; ++id) ids.push_back(id);
        return ids;
    }

    std::shared_ptr<const ReadPlan> plan_;
    std::unique_ptr<mysql::Connection> watcher_;
};

// The server stops the stretch (KILL QUERY) or the session (KILL CONNECTION) after the reader took one
// page of it: the reader reads the rows the socket still held, meets the error, drops the partial page and
// reads on after its last page on a new session.
class StretchKillTest : public StretchTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(StretchKillTest, ReadsOnAfterItsLastPageOnANewSession) {
    PageReader reader(options(), plan_);
    std::vector<std::int64_t> ids;
    const std::uint64_t stretch_session = first_page_then_running_select(reader, ids);
    ASSERT_NE(stretch_session, 0u) << "no first page, or its stretch was not running after it";
    watcher_->execute_text(std::string(GetParam()) + " " + std::to_string(stretch_session));

    while (auto page = reader.next_page()) {
        EXPECT_LE(page->row_count(), page_rows);
        append_ids(*page, ids);
    }
    ASSERT_EQ(ids.size(), static_cast<std::size_t>(row_count)) << "rows were lost or delivered twice";
    EXPECT_TRUE(ids == ids_before(row_count + 1)) << "rows out of order, lost or repeated";
    // The kill reached the stretch (rather than a statement already done): the reader left that session.
    EXPECT_TRUE(session_gone(stretch_session)) << "the reader still holds the session of the killed stretch";
}

INSTANTIATE_TEST_SUITE_P(Kills, StretchKillTest, ::testing::Values("KILL QUERY", "KILL CONNECTION"),
                         [](const ::testing::TestParamInfo<const char*>& kill) {
                             return std::string(kill.param) == "KILL QUERY" ? "kill_query" : "kill_connection";
                         });

// A split lowers the upper bound while a stretch selected under the old one is open: no row at or past
// the new bound is handed out, the stretch is ended, and the rows below the bound arrive once.
TEST_F(StretchTest, SplitMidStretchStopsAtTheNewBound) {
    PageReader reader(options(), plan_);
    std::vector<std::int64_t> ids;
    const std::uint64_t stretch_session = first_page_then_running_select(reader, ids);
    ASSERT_NE(stretch_session, 0u) << "no first page, or its stretch was not running after it";

    const std::int64_t bound = 2500;  // inside the open stretch (ids 1..16000), past the next page
    reader.set_upper_bound(KeyValue{bound});
    // Most of the stretch was left: it is cut off with its session rather than read to its end.
    EXPECT_TRUE(session_gone(stretch_session)) << "the stretch of the old bound is still running";
    while (auto page = reader.next_page()) append_ids(*page, ids);
    EXPECT_TRUE(ids == ids_before(bound)) << "rows at or past the new bound, or rows lost or repeated ("
                                          << ids.size() << " rows)";
}

// The same when at most a page of the stretch is left: that rest is drained and the session kept.
TEST_F(StretchTest, SplitNearTheStretchEndDrainsItsRest) {
    PageReader reader(options(), plan_);
    std::vector<std::int64_t> ids;
    for (std::size_t page = 0; page + 1 < pages_per_stretch; ++page) {
        auto read = reader.next_page();
        ASSERT_TRUE(read);
        append_ids(*read, ids);
    }
    const auto last = static_cast<std::int64_t>(ids.back());
    reader.set_upper_bound(KeyValue{last + 300});
    while (auto page = reader.next_page()) append_ids(*page, ids);
    EXPECT_TRUE(ids == ids_before(last + 300)) << "rows at or past the new bound, or rows lost or repeated ("
                                               << ids.size() << " rows)";
}

}  // namespace
}  // namespace rowpump::test
