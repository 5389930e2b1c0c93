#pragma once
// The members of a queue's delayed set Q:delayed. A sorted set holds each member once, so a bare payload
// would make identical tasks (a CSV of one low-cardinality column, two equal retries) collapse into one.
// Every member rowpump writes therefore carries a tag that makes it unique:
//
//     rp1:<16 hex digits: writer><16 hex digits: sequence>:<payload, byte for byte>
//
// a fixed 37-byte prefix, lowercase hex. The promote script strips it atomically when it moves the task
// to its ready list, so consumers receive exactly the payload; only code that reads Q:delayed itself
// sees the tag. Its length is fixed, so stripping never looks into the payload (which may be any bytes,
// even another tag). A member without the prefix (written by an older rowpump or by another producer)
// is promoted as it is.
//
// Writers and sequences:
//   - the plain sink: a random writer per sink, sequence = a counter of the messages it planned. A batch
//     retried after a reconnect sends the same members again, so it updates them instead of adding more;
//   - the exactly-once ledger: the writer is derived from (job id, range), the sequence is the row's
//     position in its range (rows the range had written before the page, plus its index in the page),
//     so any retry or takeover of a page writes the very members it would have written the first time;
//   - a failed task's retry (the consumer's fail script): writer 0, sequence = the server's time in
//     microseconds, moved on past any member already there.
#include <cstdint>
#include <string>
#include <string_view>

namespace rowpump::redis {

inline constexpr std::string_view delayed_tag_marker = "rp1:";
inline constexpr std::size_t delayed_tag_size = 37;  // marker, 32 hex digits, ':'

// The identity a tag encodes: unique per task in the delayed set.
struct DelayedTag {
    std::uint64_t writer = 0;  // 0 is the consumers' retries; producers never use it
    std::uint64_t sequence = 0;
};

// Appends the tag's 37 bytes to `out`.
void append_delayed_tag(std::string& out, DelayedTag tag);
// The member for `payload` under `tag`.
std::string delayed_member(DelayedTag tag, std::string_view payload);
// What a consumer receives for the member: the payload after a well-formed tag, or the member itself.
std::string_view delayed_payload(std::string_view member);

// A fresh random writer for a sink (never 0).
std::uint64_t random_delayed_writer();
// The writer of a job's range in the exactly-once ledger: the same in every process (never 0).
std::uint64_t ledger_delayed_writer(std::string_view job_id, std::size_t range);

}  // namespace rowpump::redis
