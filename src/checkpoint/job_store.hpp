#pragma once
// A job's state lives beside its queue (MySQL tables or Redis keys) so that a page's rows and the
// checkpoint that covers them are written in one atomic step. A range is leased by one worker's own
// sink connection: the lease dies with that connection, and a live owner that stops making progress
// loses it after the lease timeout.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rowpump/job.hpp"

namespace rowpump {

// What identifies a job's definition: a resume must read the same rows into the same queue.
struct JobDefinition {
    std::string job_id;
    std::string description;  // "table `db`.`t` key (id) where ... -> redis://host:6379/0 queue q (json)"
    std::string fingerprint;  // a stable hash of the description
    std::vector<Column> key_columns;
    std::chrono::seconds lease_timeout{60};
    std::string state_prefix = "rowpump:job:";  // Redis: where the job's keys live (not part of the definition)
};

JobDefinition define_job(const JobSpec& spec, const ReadPlan& plan);

struct StoredRange {
    std::uint32_t number = 0;
    KeyRange range;
    std::optional<KeyValue> last_key;  // the checkpoint: rows up to here are in the queue
    std::uint64_t rows_written = 0;
    std::uint64_t estimated_rows = 0;
    // Who held the lease when the range was read by pending_ranges(): a MySQL connection or Redis client id.
    std::uint64_t owner = 0;

    // What the plan expects is still unread (the estimate less what is written); 0 when it is exceeded.
    std::uint64_t remaining_estimate() const { return estimated_rows > rows_written ? estimated_rows - rows_written : 0; }
};

// One range as the store holds it, whoever wrote it: this process, an earlier run or another process.
struct StoredRangeState {
    StoredRange stored;
    bool done = false;
};

struct JobState {
    bool exists = false;
    std::string fingerprint;
    std::string description;
    std::size_t ranges = 0;
    std::size_t ranges_done = 0;
    std::uint64_t rows_written = 0;    // by every run and process, as committed
    std::uint64_t estimated_rows = 0;  // the plan's estimate for the whole job
    std::vector<StoredRangeState> range_states;  // by range number
    bool finished() const { return exists && ranges > 0 && ranges_done == ranges; }
};

// What became of a page handed to JobLedger::write.
enum class PageWrite {
    written,  // the rows and the checkpoint, together
    shrunk,   // nothing written: another worker split the range since its upper bound was read
    lost,     // nothing written: the lease is gone (taken over, or this connection died)
};

// One per worker; owns that worker's sink connection.
class JobLedger {
public:
    virtual ~JobLedger() = default;
    // A pending range that no live owner holds, now leased to this ledger's connection.
    virtual std::optional<StoredRange> lease() = 0;
    // Writes the messages and moves the range's checkpoint to `last_key` in one atomic step, fenced on the
    // lease and on the range's upper bound as `range` holds it: a split by another worker since then
    // refuses the page. Then (shrunk) `range` is given the stored upper bound and checkpoint, and the rows
    // after that checkpoint are to be read again up to the new bound.
    virtual PageWrite write(StoredRange& range, const std::vector<Message>& batch, const KeyValue& last_key) = 0;
    // Marks the range done; false when the lease was lost.
    virtual bool complete(const StoredRange& range) = 0;

    // The ready tasks in the job's queue, read through this ledger's connection (--high-water).
    virtual std::optional<std::uint64_t> ready_count() = 0;

    // Work stealing. The pending ranges other connections hold now, or nobody does (owner 0), each with its
    // owner and checkpoint.
    virtual std::vector<StoredRange> pending_ranges() = 0;
    // In one atomic step with the owner's page writes: when `victim` is still held by the same owner under
    // the same upper bound, its upper bound becomes `split` and a new range [split, old upper bound) of
    // about `moved_rows` rows is added to the job, leased to this ledger's connection. `split` must lie
    // strictly after the victim's checkpoint: when that has moved since it was read, a store that can wait
    // for the owner's page to commit (MySQL) asks `before_split` about the newer checkpoint under the
    // range's lock; Redis refuses. nullopt when the victim moved on meanwhile (read it again).
    virtual std::optional<StoredRange> split(const StoredRange& victim, const KeyValue& split, std::uint64_t moved_rows,
                                             const std::function<bool(const KeyValue&)>& before_split) = 0;
};

class JobStore {
public:
    virtual ~JobStore() = default;
    virtual JobState state() = 0;
    // Creates the job with these ranges unless it exists (another process may win the race; then its
    // state is what counts). Returns the state after the call.
    virtual JobState create(const std::vector<Partition>& partitions) = 0;
    virtual std::unique_ptr<JobLedger> open_ledger() = 0;
};

}  // namespace rowpump
