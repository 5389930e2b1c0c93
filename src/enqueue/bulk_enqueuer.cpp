#include "rowpump/enqueue.hpp"

#include <chrono>

#include "backend/derived_fields.hpp"
#include "encode/task_envelope.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

SinkSpec with_worker_layout(SinkSpec spec, Format format, const TaskSpec& task) {
    spec.layout = queue_layout(format);
    if (spec.queue.empty()) spec.queue = default_queue(format);
    spec.redis_only.celery_priority = task.celery.priority.value_or(0);
    return spec;
}

TaskSpec with_queue(TaskSpec task, const SinkSpec& spec) {
    task.queue = spec.queue;
    return task;
}

}  // namespace

BulkEnqueuer::BulkEnqueuer(const SinkSpec& spec, std::size_t batch_size)
    : sink_(make_sink(spec)), batch_size_(batch_size) {
    if (batch_size_ == 0) throw UsageError("bulk enqueue batch size must be at least 1");
    buffer_.reserve(batch_size_);
}

BulkEnqueuer::BulkEnqueuer(const SinkSpec& spec, Format format, const TaskSpec& task, std::size_t batch_size)
    : batch_size_(batch_size) {
    if (queue_layout(format) == QueueLayout::rowpump)
        throw UsageError("format " + format_name(format) + " is not a worker format: expected sidekiq, activejob or "
                         "celery, or use the constructor without a format");
    if (!task.celery.kwargs.empty() || !task.celery.priority_column.empty())
        throw UsageError("TaskSpec::celery.kwargs and celery.priority_column name columns of a table's rows; a pushed "
                         "argument has none: leave them empty (celery.priority sets one priority for every task)");
    if (batch_size_ == 0) throw UsageError("bulk enqueue batch size must be at least 1");
    check_derived_fields(spec, format, task, nullptr);
    const SinkSpec worker_spec = with_worker_layout(spec, format, task);
    envelope_ = make_task_envelope(format, with_queue(task, worker_spec));  // a bad task fails before connecting
    sink_ = make_sink(worker_spec);
    buffer_.reserve(batch_size_);
}

BulkEnqueuer::~BulkEnqueuer() = default;
BulkEnqueuer::BulkEnqueuer(BulkEnqueuer&&) noexcept = default;
BulkEnqueuer& BulkEnqueuer::operator=(BulkEnqueuer&&) noexcept = default;

void BulkEnqueuer::push(std::string payload) {
    Message message;
    message.payload = std::move(payload);
    push(std::move(message));
}

void BulkEnqueuer::push(Message message) {
    if (envelope_) {
        TaskTimes times;
        times.now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
        times.due_ms = message.due_ms;
        std::string job;
        job.reserve(message.payload.size() + 256);
        envelope_->wrap(message.payload, times, job);
        message.payload = std::move(job);
    }
    buffer_.push_back(std::move(message));
    if (buffer_.size() >= batch_size_) flush();
}

void BulkEnqueuer::flush() {
    if (buffer_.empty()) return;
    sink_->write(buffer_);
    written_ += buffer_.size();
    buffer_.clear();
}

std::uint64_t BulkEnqueuer::written() const { return written_; }
std::size_t BulkEnqueuer::buffered() const { return buffer_.size(); }

}  // namespace rowpump
