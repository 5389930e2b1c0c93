#pragma once
// Bulk enqueue for programs that produce their own tasks: the same batched, pipelined writes as a
// backfill, into a Redis list or a MySQL queue table. At-least-once: a failed flush may have written part
// of its batch and says so by throwing QueueError; the messages it held stay buffered for another try.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rowpump/encode.hpp"
#include "rowpump/sink.hpp"

namespace ROWPUMP_EXPORT rowpump {

class TaskEnvelope;

class BulkEnqueuer {
public:
    // Opens the sink at once (so a bad URI or an unreachable queue fails here). `batch_size` messages are
    // buffered before they are written together.
    explicit BulkEnqueuer(const SinkSpec& spec, std::size_t batch_size = 1000);
    // Jobs for existing workers (Format::sidekiq, activejob or celery, docs/worker-formats.md): each payload
    // pushed is the JSON of the job's one argument (an object, as a backfill's row), written as that
    // framework's client writes a job, into its keys; a Message's due_ms schedules it. The spec's queue
    // defaults to the framework's ("default", "celery"). Throws UsageError for a bad `task`.
    BulkEnqueuer(const SinkSpec& spec, Format format, const TaskSpec& task, std::size_t batch_size = 1000);
    // Does not flush: a destructor could not report a failure. Call flush() before letting it go.
    ~BulkEnqueuer();
    BulkEnqueuer(BulkEnqueuer&&) noexcept;
    BulkEnqueuer& operator=(BulkEnqueuer&&) noexcept;

    void push(std::string payload);
    void push(Message message);
    // Writes every buffered message; throws QueueError (or DbError) when the queue refused them.
    void flush();

    std::uint64_t written() const;   // messages the queue accepted so far
    std::size_t buffered() const;    // messages waiting for the next flush

private:
    std::unique_ptr<TaskEnvelope> envelope_;  // worker formats only
    std::unique_ptr<Sink> sink_;
    std::size_t batch_size_;
    std::vector<Message> buffer_;
    std::uint64_t written_ = 0;
};

}  // namespace rowpump
