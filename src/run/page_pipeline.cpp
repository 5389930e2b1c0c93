#include "run/page_pipeline.hpp"

#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/task_arena.h>

#include <memory>
#include <string>

#include "rowpump/error.hpp"

namespace rowpump {

namespace {
// Pages in flight per reader: one being read, one being encoded, one being written.
constexpr std::size_t pages_in_flight = 3;
}  // namespace

void throw_naming_the_row(const PayloadTooLarge& error, const EncodedPage& page) {
    // The page keeps no key per row; its last key and the row's place in it find the row in the table.
    throw PayloadTooLarge("row " + std::to_string(error.index() + 1) + " of " + std::to_string(page.messages.size()) +
                              " in the page that ends at key " + to_string(page.last_key) + ": " + error.what() +
                              " (the pages before it are in the queue)",
                          error.index());
}

EncodedPage PageEncoder::encode(const Page& page) const {
    EncodedPage encoded;
    encoded.messages.resize(page.row_count());
    const auto now = std::chrono::system_clock::now();
    for (std::size_t row = 0; row < page.row_count(); ++row) {
        Message& message = encoded.messages[row];
        encoder_.encode(page, row, message.payload);
        router_.route(page, row, message, now);
    }
    encoded.last_key = page.last_key();
    return encoded;
}

StreamEnd stream_pages(PageReader& reader, const PageEncoder& encoder, const PipelineHooks& hooks,
                       const std::atomic<bool>& stop) {
    StreamEnd end = StreamEnd::stopped;
    std::atomic<bool> refused{false};
    const auto filters =
        tbb::make_filter<void, std::shared_ptr<Page>>(
            tbb::filter_mode::serial_in_order,
            [&](tbb::flow_control& flow) -> std::shared_ptr<Page> {
                if (stop.load() || refused.load()) {
                    flow.stop();
                    return nullptr;
                }
                if (hooks.between_pages) hooks.between_pages();
                auto page = reader.next_page();
                if (!page) {
                    end = StreamEnd::exhausted;
                    flow.stop();
                    return nullptr;
                }
                if (hooks.on_read) hooks.on_read(page->row_count());
                return std::make_shared<Page>(std::move(*page));
            }) &
        tbb::make_filter<std::shared_ptr<Page>, std::shared_ptr<EncodedPage>>(
            tbb::filter_mode::parallel,
            [&](const std::shared_ptr<Page>& page) { return std::make_shared<EncodedPage>(encoder.encode(*page)); }) &
        tbb::make_filter<std::shared_ptr<EncodedPage>, void>(
            tbb::filter_mode::serial_in_order, [&](const std::shared_ptr<EncodedPage>& page) {
                if (refused.load()) return;
                try {
                    if (!hooks.write(*page)) refused.store(true);
                } catch (const PayloadTooLarge& error) {
                    throw_naming_the_row(error, *page);
                }
            });
    // Isolated: while this thread waits for the pipeline's tasks, oneTBB would otherwise let it run any
    // task of the arena, such as a worker that has not started yet. That worker waits for ranges to come
    // free, and the range this pipeline reads never does: a backfill hung that way once in CI.
    tbb::this_task_arena::isolate([&] { tbb::parallel_pipeline(pages_in_flight, filters); });
    // After a stop request the pages already read are still written: only reading stops.
    return refused.load() ? StreamEnd::refused : end;
}

}  // namespace rowpump
