#pragma once
// Reading back what a sink received, for tests that check every row arrived: NDJSON lines, Redis lists
// and sorted sets, MySQL queue tables; and comparing the keys found there with the table's keys as
// multisets, so a duplicate shows up as clearly as a missing row.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "redis/connection.hpp"

namespace rowpump::test {

// The values of `fields` in a JSON object payload, joined by '|': numbers exactly as written in the
// payload, strings unescaped. A payload that is not a JSON object, or lacks a field, gives a text
// starting with "<bad payload" so the comparison fails and shows it.
std::string payload_key(const std::string& payload, const std::vector<std::string>& fields);
std::vector<std::string> payload_keys(const std::vector<std::string>& payloads, const std::vector<std::string>& fields);

// What several consumers received (one list each), in one sorted list: a task delivered twice shows up
// as two equal neighbours.
template <class Item>
std::vector<Item> merged_sorted(const std::vector<std::vector<Item>>& received) {
    std::vector<Item> all;
    for (const auto& items : received) all.insert(all.end(), items.begin(), items.end());
    std::sort(all.begin(), all.end());
    return all;
}

// Every line of a file, without line ends (an empty vector when the file does not exist).
std::vector<std::string> file_lines(const std::string& path);

struct ScoredMember {
    std::string member;
    std::int64_t score = 0;
};
// Every member of a sorted set with its score, lowest score first.
std::vector<ScoredMember> zset_members(redis::Connection& connection, const std::string& key);
// The tasks in the delayed set of `queue` as consumers will receive them (tags stripped), with due times.
std::vector<ScoredMember> delayed_tasks(redis::Connection& connection, const std::string& queue);

// One row of a MySQL queue table, in id order.
struct QueueRow {
    std::int64_t priority = 0;
    std::string payload;
    std::string status;
    std::int64_t available_ms = 0;  // available_at as Unix milliseconds, in the session time zone
};
std::vector<QueueRow> queue_rows(mysql::Connection& connection, const std::string& table);
std::vector<std::string> queue_payloads(mysql::Connection& connection, const std::string& table);

// "" when both hold the same values the same number of times; otherwise the sizes and the first few
// values that are duplicated, missing or unexpected in `actual`.
std::string multiset_difference(std::vector<std::string> actual, std::vector<std::string> expected);

// The wall clock as Unix milliseconds, as due times and available_at are written.
std::int64_t unix_ms_now();

// A path under the test temp dir that does not exist yet; unique within this process.
std::string fresh_temp_path(const std::string& name);

}  // namespace rowpump::test
