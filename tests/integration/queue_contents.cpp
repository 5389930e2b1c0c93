#include "integration/queue_contents.hpp"

#include <rapidjson/document.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

#include "backend/redis/redis_delayed_member.hpp"
#include "backend/redis/redis_queue_keys.hpp"

namespace rowpump::test {

std::string payload_key(const std::string& payload, const std::vector<std::string>& fields) {
    rapidjson::Document document;
    // Numbers as strings: the key text stays exactly what the encoder wrote (no double rounding).
    document.Parse<rapidjson::kParseNumbersAsStringsFlag>(payload.data(), payload.size());
    if (document.HasParseError() || !document.IsObject()) return "<bad payload: not a JSON object: " + payload + ">";
    std::string key;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto member = document.FindMember(fields[i].c_str());
        if (member == document.MemberEnd() || !member->value.IsString())
            return "<bad payload: no field " + fields[i] + ": " + payload + ">";
        if (i > 0) key += '|';
        key.append(member->value.GetString(), member->value.GetStringLength());
    }
    return key;
}

std::vector<std::string> payload_keys(const std::vector<std::string>& payloads, const std::vector<std::string>& fields) {
    std::vector<std::string> keys;
    keys.reserve(payloads.size());
    for (const auto& payload : payloads) keys.push_back(payload_key(payload, fields));
    return keys;
}

std::vector<std::string> file_lines(const std::string& path) {
    std::vector<std::string> lines;
    std::ifstream in(path, std::ios::binary);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::vector<ScoredMember> zset_members(redis::Connection& connection, const std::string& key) {
    const auto reply = connection.command({"ZRANGE", key, "0", "-1", "WITHSCORES"});
    std::vector<ScoredMember> members;
    for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2)
        members.push_back({reply.elements[i].text, std::stoll(reply.elements[i + 1].text)});
    return members;
}

std::vector<ScoredMember> delayed_tasks(redis::Connection& connection, const std::string& queue) {
    auto members = zset_members(connection, redis::delayed_set(queue));
    for (ScoredMember& member : members) member.member = std::string(redis::delayed_payload(member.member));
    return members;
}

std::vector<QueueRow> queue_rows(mysql::Connection& connection, const std::string& table) {
    auto result = connection.query(
        "SELECT priority, payload, status, COALESCE(CAST(ROUND(UNIX_TIMESTAMP(available_at) * 1000) AS SIGNED), -1) "
        "FROM " + mysql::quote_identifier(table) + " ORDER BY id");
    std::vector<QueueRow> rows;
    while (result.next())
        rows.push_back({result.int64(1), result.text(2), result.text(3),
                        result.int64(4)});
    return rows;
}

std::vector<std::string> queue_payloads(mysql::Connection& connection, const std::string& table) {
    std::vector<std::string> payloads;
    for (auto& row : queue_rows(connection, table)) payloads.push_back(std::move(row.payload));
    return payloads;
}

std::string multiset_difference(std::vector<std::string> actual, std::vector<std::string> expected) {
    std::map<std::string, long> balance;  // > 0: more in actual than expected
    for (const auto& value : actual) ++balance[value];
    for (const auto& value : expected) --balance[value];
    std::vector<std::string> duplicated, missing, unexpected;
    std::map<std::string, long> expected_count;
    for (const auto& value : expected) ++expected_count[value];
    for (const auto& [value, difference] : balance) {
        if (difference > 0 && expected_count.count(value)) duplicated.push_back(value);
        else if (difference > 0) unexpected.push_back(value);
        else if (difference < 0) missing.push_back(value);
    }
    if (duplicated.empty() && missing.empty() && unexpected.empty()) return {};
    std::ostringstream out;
    out << actual.size() << " values, expected " << expected.size() << ": " << duplicated.size() << " duplicated, "
        << missing.size() << " missing, " << unexpected.size() << " unexpected";
    const auto show = [&out](const char* what, const std::vector<std::string>& values) {
        if (values.empty()) return;
        out << "; " << what << ":";
        for (std::size_t i = 0; i < std::min<std::size_t>(values.size(), 8); ++i) out << " '" << values[i] << "'";
        if (values.size() > 8) out << " ...";
    };
    show("duplicated", duplicated);
    show("missing", missing);
    show("unexpected", unexpected);
    return out.str();
}

std::int64_t unix_ms_now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string fresh_temp_path(const std::string& name) {
    static std::atomic<int> counter{0};
    std::string path = ::testing::TempDir() + "rowpump_" + name + "_" + std::to_string(::getpid()) + "_" +
                       std::to_string(counter++);
    std::remove(path.c_str());
    return path;
}

}  // namespace rowpump::test
