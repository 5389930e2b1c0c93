#include "run/page_pipeline.hpp"

#include <chrono>
#include <exception>
#include <string>
#include <thread>

#include "metrics/run_counters.hpp"
#include "run/page_queue.hpp"

#include "rowpump/error.hpp"

namespace rowpump {

namespace {
// Pages in flight per reader: one being read, one waiting, one being encoded and written.
constexpr std::size_t pages_in_flight = 3;
// A reader waiting longer than this for the writer (a rate, a high-water mark, a slow sink) ends the
// statement it streams from (PageReader::keep_alive): the server would otherwise sit on a full socket,
// and drop the session after net_write_timeout (60 s by default).
constexpr std::chrono::milliseconds reader_patience{1000};
}  // namespace

void throw_naming_the_row(const PayloadTooLarge& error, const EncodedPage& page) {
    // The page keeps no key per row; its last key and the row's place in it find the row in the table.
    throw PayloadTooLarge("row " + std::to_string(error.index() + 1) + " of " + std::to_string(page.messages.size()) +
                              " in the page that ends at key " + to_string(page.last_key) + ": " + error.what() +
                              " (the pages before it are in the queue)",
                          error.index());
}

void PageEncoder::encode(const Page& page, EncodedPage& into) const {
    into.messages.resize(page.row_count());
    const auto now = std::chrono::system_clock::now();
    TaskTimes times;
    times.now_us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
    for (std::size_t row = 0; row < page.row_count(); ++row) {
        Message& message = into.messages[row];
        message.payload.clear();
        // Routed first: a worker format writes the due time into the job.
        router_.route(page, row, message, now);
        times.due_ms = message.due_ms;
        if (router_.routes_celery_priority()) times.priority = static_cast<unsigned>(message.priority_level);
        encoder_.encode_task(page, row, times, message.payload);
    }
    into.last_key = page.last_key();
}

StreamEnd stream_pages(RangeReader& reader, const PageEncoder& encoder, const PipelineHooks& hooks,
                       const std::atomic<bool>& stop) {
    // One page being read (here), one waiting, one being encoded and written (the writer thread).
    PageQueue queue(pages_in_flight - 2);
    std::atomic<bool> refused{false};
    std::exception_ptr write_failure;
    std::thread writer([&] {
        try {
            EncodedPage encoded;
            while (auto page = queue.pop()) {
                encoder.encode(*page, encoded);
                queue.give_back(std::move(*page));
                try {
                    if (hooks.write(encoded)) {
                        metrics::run_counters().page_written(encoded.messages.size());
                    } else {
                        refused.store(true);
                        queue.abandon();
                    }
                } catch (const PayloadTooLarge& error) {
                    throw_naming_the_row(error, encoded);
                }
            }
        } catch (...) {
            write_failure = std::current_exception();
            refused.store(true);
            queue.abandon();
        }
    });
    StreamEnd end = StreamEnd::stopped;
    std::exception_ptr read_failure;
    try {
        while (!stop.load() && !refused.load()) {
            if (hooks.between_pages) hooks.between_pages();
            if (stop.load()) break;  // the stop came while the worker waited there (a throttled copy)
            if (auto spare = queue.take_back()) reader.recycle(std::move(*spare));
            auto page = reader.next_page();
            if (!page) {
                end = StreamEnd::exhausted;
                break;
            }
            if (hooks.on_read) hooks.on_read(page->row_count());
            metrics::run_counters().page_read(page->row_count());
            if (!queue.push(std::move(*page), reader_patience, [&] { reader.keep_alive(); })) break;
        }
    } catch (...) {
        read_failure = std::current_exception();
    }
    // After a stop request or a read failure, the pages already read are still written: only reading stops.
    queue.close();
    writer.join();
    if (write_failure) std::rethrow_exception(write_failure);
    if (read_failure) std::rethrow_exception(read_failure);
    return refused.load() ? StreamEnd::refused : end;
}

}  // namespace rowpump
