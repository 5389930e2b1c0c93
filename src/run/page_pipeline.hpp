#pragma once
// Streams one reader's pages through encoding and writing with a bounded number of pages in flight: the
// next page is read on the calling thread while a writer thread encodes and writes the one before. Both
// sides block while they wait; nothing spins.
#include <atomic>
#include <functional>
#include <vector>

#include "route/router.hpp"
#include "rowpump/error.hpp"
#include "rowpump/encode.hpp"
#include "rowpump/sink.hpp"
#include "run/range_reader.hpp"

namespace rowpump {

struct EncodedPage {
    std::vector<Message> messages;
    KeyValue last_key;
};

// Turns a page into messages: payloads from the encoder, destinations from the router.
class PageEncoder {
public:
    PageEncoder(const RowEncoder& encoder, const Router& router) : encoder_(encoder), router_(router) {}
    // Encodes `page` into `into`, whose messages keep their buffers from the page before: a steady stream
    // of pages allocates nothing for payloads.
    void encode(const Page& page, EncodedPage& into) const;

private:
    const RowEncoder& encoder_;
    const Router& router_;
};

struct PipelineHooks {
    // Runs on the reading side before each page is read: the reader is between pages there.
    std::function<void()> between_pages;
    // Called once per page read, with its row count.
    std::function<void(std::size_t)> on_read;
    // Writes a page; false stops the stream (the pages still in flight are dropped unwritten).
    std::function<bool(const EncodedPage&)> write;
};

enum class StreamEnd { exhausted, stopped, refused };

// A sink refused one message of `page` as too large: the same error, saying which row of the table it is.
[[noreturn]] void throw_naming_the_row(const PayloadTooLarge& error, const EncodedPage& page);

StreamEnd stream_pages(RangeReader& reader, const PageEncoder& encoder, const PipelineHooks& hooks,
                       const std::atomic<bool>& stop);

}  // namespace rowpump
