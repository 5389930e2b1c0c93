// A reader whose connection is killed, in the middle of a page or between pages, reconnects and resumes
// from the last key it delivered: every row arrives exactly once (docs/DESIGN.md, "Delivery guarantees").
// keyset reads a stretch of pages per statement (docs/DESIGN.md, "Paging"): a kill between two of its
// pages is a kill mid-stretch (stretch_test.cpp), and a page waits in the process list only where a
// stretch starts.
//
// The reader's connection is found by its query text, which names this process's own table: the table is
// write-locked from the fixture's connection so the reader's next page waits in plain sight in the
// process list. Other tests' connections of the same user are never touched.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
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

constexpr std::int64_t row_count = 100000;

std::string strategy_name(const ::testing::TestParamInfo<PagingStrategy>& info) {
    std::string name = to_string(info.param);
    for (char& c : name)
        if (c == '-') c = '_';
    return name;
}

class ConnectionLossTest : public Prepared<MySqlTest>, public ::testing::WithParamInterface<PagingStrategy> {
protected:
    std::optional<SourceTable> source_table() const override {
        return sha1_rows_table("killed", row_count);
    }
    void prepare() override {
        ReadSpec spec;
        spec.table = table_;
        spec.strategy = GetParam();
        spec.page_size = 1000;
        plan_ = std::make_shared<const ReadPlan>(plan_read(options(), spec));
        watcher_ = std::make_unique<mysql::Connection>(options());
    }

    void TearDown() override {
        watcher_.reset();
        MySqlTest::TearDown();
    }

    // Runs reader.next_page() while the table is write-locked, finds the reader's connection waiting with
    // a query on this table, kills it when `kill` is set, unlocks, and returns the page and the id.
    std::pair<std::optional<Page>, std::uint64_t> next_page_while_found(PageReader& reader, bool kill) {
        const auto locker = static_cast<std::int64_t>(tables().connection().connection_id());
        tables().execute(table_, "LOCK TABLES {t} WRITE");
        auto page = std::async(std::launch::async, [&] { return reader.next_page(); });
        std::uint64_t id = 0;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (id == 0 && std::chrono::steady_clock::now() < deadline) {
            // Neither the watcher nor the locker, whose LOCK TABLES may still show for a moment.
            auto found = watcher_->query(
                "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = ? AND DB = DATABASE() AND "
                "ID NOT IN (CONNECTION_ID(), ?) AND INFO LIKE 'SELECT %' AND LOCATE(?, INFO) > 0",
                {options().user, locker, mysql::quote_identifier(table_)});
            if (found.next()) id = found.uint64(1);
            else std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (id != 0 && kill) watcher_->execute_text("KILL CONNECTION " + std::to_string(id));
        tables().connection().execute_text("UNLOCK TABLES");
        EXPECT_NE(id, 0u) << "the reader's query never showed up in the process list";
        return {page.get(), id};
    }

    static void append_ids(const Page& page, std::vector<std::int64_t>& ids) {
        for (std::size_t row = 0; row < page.row_count(); ++row)
            ids.push_back(std::stoll(std::string(*page.value(row, 0))));
    }

    std::shared_ptr<const ReadPlan> plan_;
    std::unique_ptr<mysql::Connection> watcher_;
};

TEST_P(ConnectionLossTest, KilledConnectionIsReopenedAndEveryRowArrivesOnce) {
    PageReader reader(options(), plan_);
    std::vector<std::int64_t> ids;
    // Pages per statement, and the number of the page that opened the statement read now.
    const std::size_t per_statement = GetParam() == PagingStrategy::keyset ? pages_per_stretch : 1;
    std::size_t pages = 0;
    std::size_t opened_at = 1;
    const auto take = [&](const std::optional<Page>& page) {
        ASSERT_TRUE(page);
        append_ids(*page, ids);
        ++pages;
    };
    // Reads on to the last page of the statement open, so that the next page sends a new one.
    const auto to_statement_end = [&] {
        while (pages + 1 < opened_at + per_statement) take(reader.next_page());
    };
    for (int page = 0; page < 3; ++page) take(reader.next_page());
    to_statement_end();

    // Killed while its page query waits: the page is read again on a new connection.
    opened_at = pages + 1;
    auto [during_query, first_id] = next_page_while_found(reader, true);
    take(during_query);
    for (int page = 0; page < 3; ++page) take(reader.next_page());
    to_statement_end();

    // Killed while idle between statements: the next page finds the connection gone. (Killed mid-stretch:
    // stretch_test.cpp.)
    opened_at = pages + 1;
    auto [located, second_id] = next_page_while_found(reader, false);
    EXPECT_NE(second_id, first_id) << "the killed connection is still in use";
    take(located);
    to_statement_end();
    watcher_->execute_text("KILL CONNECTION " + std::to_string(second_id));
    opened_at = pages + 1;  // the reader reopens after its last page
    take(reader.next_page());
    to_statement_end();
    opened_at = pages + 1;
    auto [after_idle_kill, third_id] = next_page_while_found(reader, false);
    EXPECT_NE(third_id, second_id) << "the reader did not reconnect after its idle connection was killed";
    take(after_idle_kill);

    while (auto page = reader.next_page()) append_ids(*page, ids);

    std::vector<std::int64_t> expected(static_cast<std::size_t>(row_count));
    for (std::int64_t id = 1; id <= row_count; ++id) expected[static_cast<std::size_t>(id - 1)] = id;
    ASSERT_EQ(ids.size(), expected.size()) << "rows were lost or delivered twice";
    EXPECT_TRUE(ids == expected) << "rows out of order, lost or repeated";
}

INSTANTIATE_TEST_SUITE_P(Strategies, ConnectionLossTest,
                         ::testing::Values(PagingStrategy::keyset, PagingStrategy::deferred_join,
                                           PagingStrategy::id_in, PagingStrategy::offset),
                         strategy_name);

}  // namespace
}  // namespace rowpump::test
