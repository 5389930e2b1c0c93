#pragma once
// What a worker reads a key range with, a page at a time: in a run, PageReader over the worker's MySQL
// session (run/worker_connections.cpp); in the unit tests, an in-memory table. The pipeline calls it once
// per page, never per row, so the indirection costs nothing measurable.
#include <memory>
#include <optional>

#include "rowpump/key.hpp"
#include "rowpump/page.hpp"

namespace rowpump {

class RangeReader {
public:
    virtual ~RangeReader() = default;
    // The next page in key order; nullopt once the range is exhausted.
    virtual std::optional<Page> next_page() = 0;
    // Hands back a page whose rows are no longer needed: the next page is read into its buffers.
    virtual void recycle(Page page) = 0;
    // The key of the last row delivered, nullopt before the first page.
    virtual const std::optional<KeyValue>& position() const = 0;
    // The range read; its upper bound drops when the range is split.
    virtual const KeyRange& range() const = 0;
    virtual void set_upper_bound(std::optional<KeyValue> hi) = 0;
    // Pings the reader's connection while it waits between pages (a paused copy).
    virtual void keep_alive() = 0;
};

// A worker's readers, one range after another, over the worker's own session.
class WorkerReaders {
public:
    virtual ~WorkerReaders() = default;
    // Reads the rows whose key is in `range`, strictly after `resume_after` when given.
    virtual std::unique_ptr<RangeReader> open(const KeyRange& range, const std::optional<KeyValue>& resume_after) = 0;
};

}  // namespace rowpump
