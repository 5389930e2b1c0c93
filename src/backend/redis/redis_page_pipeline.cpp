#include "backend/redis/redis_page_pipeline.hpp"

namespace rowpump::redis {

namespace {

// Reading replies after this many buffered bytes bounds the client's copy of a page in memory.
constexpr std::size_t max_buffered_bytes = 16u << 20;

}  // namespace

PagePipeline::PagePipeline(Connection& connection, bool fenced) : connection_(connection), fenced_(fenced) {
    if (!fenced_) return;
    connection_.append({"MULTI"});
    ++unread_;
}

void PagePipeline::send(std::span<const std::string_view> command) {
    connection_.append(command);
    ++unread_;
    for (std::string_view argument : command) buffered_ += argument.size();
    if (fenced_ || buffered_ < max_buffered_bytes) return;
    connection_.read_replies(unread_);
    unread_ = 0;
    buffered_ = 0;
}

void PagePipeline::finish() {
    connection_.read_replies(unread_);
    unread_ = 0;
    buffered_ = 0;
}

Reply PagePipeline::commit(std::span<const std::string_view> move) {
    send(move);
    connection_.append({"EXEC"});
    ++unread_;
    auto replies = connection_.read_replies(unread_);
    unread_ = 0;
    buffered_ = 0;
    return std::move(replies.back());
}

}  // namespace rowpump::redis
