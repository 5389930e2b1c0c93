#pragma once
// What a worker reads, whatever the mode: a source hands it ranges one at a time, and each range in its
// hands (a lease) commits the pages read from it. Without a job id the source is the in-memory range board
// (run/board_source.hpp); with one, the job store's leases (run/job_source.hpp). One worker loop
// (run/range_worker.hpp) serves both, and both steal: an idle worker splits the largest remainder.
#include <cstdint>
#include <memory>
#include <optional>

#include "checkpoint/job_store.hpp"
#include "run/page_pipeline.hpp"
#include "run/range_reader.hpp"

namespace rowpump {

// One range held by one worker.
class RangeLease {
public:
    virtual ~RangeLease() = default;
    // Where to read: the range as it stands now (its upper bound drops when it is split), after this key.
    virtual const KeyRange& range() const = 0;
    virtual const std::optional<KeyValue>& resume_after() const = 0;
    // On the reading side, before each page: the reader stands between two pages there.
    virtual void between_pages(RangeReader& reader) = 0;
    virtual void on_read(std::size_t rows) = 0;
    // Writes a page with its checkpoint. shrunk: nothing written, the range was split meanwhile: read
    // again from resume_after() up to the new range().hi. lost: nothing written, the range is another's.
    virtual PageWrite write(const EncodedPage& page) = 0;
    // The worker is done with the range: read to its end (true), or stopped, refused or failed (false).
    virtual void finish(bool exhausted) = 0;
};

// One per worker, with that worker's own connections.
class RangeSource {
public:
    virtual ~RangeSource() = default;
    // The next range to read, taken or split off another worker's, waiting while one may still come;
    // nullptr once there is nothing left, or the run stops.
    virtual std::unique_ptr<RangeLease> next() = 0;
    // The ready tasks in the queue, through the connection that writes it (--high-water); nullopt: unknown.
    virtual std::optional<std::uint64_t> ready_count() = 0;
    // Pings the source's own connections while a throttled worker waits, so no idle timeout closes them.
    virtual void keep_alive() {}
};

}  // namespace rowpump
