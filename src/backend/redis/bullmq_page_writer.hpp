#pragma once
// The one way a page of BullMQ jobs enters a queue's keys, for the plain sink and for a job's ledger alike
// (as the lists' PageWriter): the script bullmq_scripts::add_jobs, each page added whole or not at all. A
// plain page of at most 1,000 jobs is one call by its SHA1 (EVALSHA, loaded again when the server forgot
// it); a larger page, and a fenced one, go as calls of at most 1,000 jobs in one MULTI/EXEC (fenced, with the
// checkpoint's move: the lists' script, told BullMQ's key types), by the script's source, since a NOSCRIPT
// inside a MULTI would only show at the EXEC.
//
// Keys for queue Q with prefix P (BullMQ's QueueKeys): P:Q:wait, P:Q:paused, P:Q:meta, P:Q:id, P:Q:delayed,
// P:Q:active, P:Q:events, P:Q:marker, and a hash P:Q:<job id> a job. In a Redis Cluster they share a slot
// only when P holds a hash tag, as BullMQ's own docs ask ("{bull}"); this writer serves one server.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/redis/redis_queue_writer.hpp"
#include "backend/redis/redis_script.hpp"
#include "backend/redis/redis_target.hpp"

namespace rowpump::redis {

class BullmqPageWriter final : public QueueWriter {
public:
    explicit BullmqPageWriter(const RedisQueueKeys& keys);

    void check_key_types(Connection& connection) const override;
    // Each message's payload is the bullmq encoder's "<id>\n<name>\n<data>"; due_ms makes it a delayed job.
    // `first_tag` is not used: a job's id is its own.
    bool write(Connection& connection, const std::vector<Message>& batch, DelayedTag first_tag,
               const CheckpointMove* fence) override;
    // The jobs in wait and paused.
    std::uint64_t ready_count(Connection& connection) const override;

    // "bull:orders:", what each job's hash name starts with.
    const std::string& job_prefix() const noexcept { return job_prefix_; }

private:
    std::string job_prefix_;
    std::array<std::string, 8> keys_;  // add_jobs's KEYS
    queue::RedisScript script_;
    // Rebuilt for every page; kept to reuse their memory.
    std::vector<std::string_view> arguments_;
    std::string numbers_;  // the timestamp and each job's delay, back to back
};

}  // namespace rowpump::redis
