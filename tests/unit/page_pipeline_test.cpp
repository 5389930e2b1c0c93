// The page pipeline (src/run/page_pipeline.cpp) over a fake reader: a reader held by its writer past its
// patience ends the statement it streams from (keep_alive), so the server does not sit on a full socket,
// and then reads on; every page arrives once and in order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "route/router.hpp"
#include "rowpump/encode.hpp"
#include "run/page_pipeline.hpp"
#include "run_fakes/fake_table.hpp"
#include "test_columns.hpp"

namespace rowpump {
namespace {

TEST(PagePipeline, AReaderHeldByItsWriterEndsItsStatementThenReadsOn) {
    constexpr std::size_t rows = 50;
    constexpr std::size_t page_size = 5;
    std::vector<std::int64_t> keys(rows);
    std::iota(keys.begin(), keys.end(), 1);
    const test::FakeTable table(keys);
    test::FakeRangeReader reader(table, KeyRange{}, std::nullopt, page_size);

    auto plan = std::make_shared<ReadPlan>();
    plan->spec.page_size = page_size;
    plan->columns = {test::column("id", ColumnKind::signed_integer)};
    const auto row_encoder = make_encoder(Format::json, plan->columns);
    const Router router(RouteSpec{}, "", *plan);
    const PageEncoder encoder(*row_encoder, router);

    // The first write waits until the reader, which has read the pages the pipeline holds, says it
    // waits (keep_alive): the event under test, with a deadline far past the pipeline's patience.
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t keep_alives = 0;
    reader.on_keep_alive = [&] {
        const std::lock_guard lock(mutex);
        ++keep_alives;
        changed.notify_all();
    };
    std::vector<std::string> written;
    PipelineHooks hooks;
    hooks.write = [&](const EncodedPage& page) {
        std::unique_lock lock(mutex);
        if (written.empty())
            changed.wait_for(lock, std::chrono::seconds(30), [&] { return keep_alives > 0; });
        for (const Message& message : page.messages) written.push_back(message.payload);
        return true;
    };
    const std::atomic<bool> stop{false};

    EXPECT_EQ(stream_pages(reader, encoder, hooks, stop), StreamEnd::exhausted);
    EXPECT_GE(keep_alives, 1u) << "a reader held past its patience ends its statement";
    ASSERT_EQ(written.size(), rows) << "pages lost or written twice";
    for (std::size_t row = 0; row < rows; ++row)
        EXPECT_EQ(written[row], "{\"id\":" + std::to_string(row + 1) + "}") << "row " << row;
}

}  // namespace
}  // namespace rowpump
