#pragma once
// How a batch of messages becomes Redis commands, in message order: each run of consecutive messages
// bound for the same key is one variadic RPUSH/LPUSH (a ready list) or ZADD (the delayed set, scored by
// due time in Unix ms, or s with RedisQueueKeys::delay_score), of at most ~1000 values. Delayed messages go in
// as tagged members (queue/redis_delayed_member.hpp), so identical payloads stay separate tasks, unless
// RedisQueueKeys::delayed_members asks for bare payloads. The plain sink pipelines these
// commands; the exactly-once job writer wraps them in a MULTI with the range's checkpoint.
// The sidekiq and celery layouts (RedisQueueKeys::layout) name the keys as those frameworks do: Sidekiq's
// delayed jobs are bare members of `schedule` (each holds its own jid) scored in float seconds, and every
// batch with ready jobs first adds the queue to the set `queues`; Celery has no delayed set.
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_target.hpp"

namespace rowpump::redis {

class Connection;

class PushPlan {
public:
    // Throws UsageError for priority lists that are unnamed or named twice, and for key templates that are
    // malformed, name one key twice, or name priority lists where there are none.
    explicit PushPlan(const RedisQueueKeys& keys);

    // Throws UsageError when a key of the queue already holds another type: pushing would fail with
    // WRONGTYPE mid-run or, worse, mix our tasks into someone else's data.
    void check_key_types(Connection& connection) const;

    // Plans the batch's commands. A delayed message at index i of the batch is tagged with
    // {first_tag.writer, first_tag.sequence + i}: the caller makes these unique (and, to make a repeated write
    // idempotent, the same again). Arguments are views into the batch and into this plan: valid until
    // the next plan() and while the batch lives.
    void plan(const std::vector<Message>& batch, DelayedTag first_tag);
    std::size_t commands() const noexcept { return commands_.size(); }
    std::span<const std::string_view> command(std::size_t index) const;

    // The ready lists, highest priority first (one list without priorities; the celery layout with each
    // message's own priority: Q and the lists of steps 3, 6 and 9).
    const std::vector<std::string>& ready_keys() const noexcept { return ready_keys_; }
    // The delayed set. Celery's layout writes none; the name is a key it never touches (its type checks pass).
    const std::string& delayed_key() const noexcept { return delayed_key_; }

private:
    // Which key a message goes to: a ready key's index, or ready_keys_.size() for the delayed set.
    std::size_t destination(const Message& message) const;

    QueueLayout layout_;
    std::string_view push_command_;
    std::vector<std::string> ready_keys_;
    std::string delayed_key_;
    std::string queue_;  // sidekiq: the member of `queues`
    DelayScore delay_score_;
    bool tagged_;  // rowpump's layout with DelayedMembers::tagged

    // Rebuilt for every batch; kept to reuse their memory.
    std::vector<std::string_view> arguments_;
    std::vector<std::pair<std::size_t, std::size_t>> commands_;  // (first argument, argument count)
    std::string scores_;
    std::string members_;  // the delayed messages' tagged members, back to back
};

}  // namespace rowpump::redis
