#include "rowpump/enqueue.hpp"

#include "rowpump/error.hpp"

namespace rowpump {

BulkEnqueuer::BulkEnqueuer(const SinkSpec& spec, std::size_t batch_size)
    : sink_(make_sink(spec)), batch_size_(batch_size) {
    if (batch_size_ == 0) throw UsageError("bulk enqueue batch size must be at least 1");
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
