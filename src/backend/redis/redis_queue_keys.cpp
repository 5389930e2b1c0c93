#include "backend/redis/redis_queue_keys.hpp"

#include "brace_template.hpp"
#include "rowpump/error.hpp"

namespace rowpump::redis {

namespace {

// `level` empty: a template where {level} has no meaning.
std::string expand(std::string_view what, std::string_view key_template, std::string_view queue,
                   std::string_view level) {
    std::string key;
    bool has_level = false;
    for (const BracePart& part : split_braces(key_template, what)) {
        if (!part.placeholder) key += part.text;
        else if (part.text == "queue") key += queue;
        else if (part.text == "level" && !level.empty()) {
            key += level;
            has_level = true;
        } else {
            throw UsageError(template_error(what, key_template, "unknown placeholder {" + part.text + "}",
                                            part.position, level.empty() ? "expected {queue}" : "expected {queue} or {level}"));
        }
    }
    if (!level.empty() && !has_level)
        throw UsageError(std::string(what) + " '" + std::string(key_template) +
                         "' has no {level}: every priority list would be the same key; add {level}, "
                         "e.g. goods:{level}:task");
    if (key.empty()) throw UsageError(std::string(what) + " '" + std::string(key_template) + "' names an empty key");
    return key;
}

}  // namespace

std::string list_key(std::string_view key_template, std::string_view queue, std::string_view level) {
    return expand("list key", key_template, queue, level);
}

std::string delayed_key(std::string_view key_template, std::string_view queue) {
    return expand("delayed key", key_template, queue, {});
}

std::vector<std::string> consumer_ready_lists(const RedisQueueOptions& queue) {
    std::vector<std::string> lists;
    for (const std::string& name : queue.priority_lists) lists.push_back(list_key(queue.list_key, queue.queue, name));
    lists.push_back(ready_list(queue.queue));
    return lists;
}

void check_state_prefix(std::string_view prefix) {
    const auto refuse = [&](const std::string& problem) {
        throw UsageError("state prefix '" + std::string(prefix) + "' " + problem +
                         ": give 1 to 128 visible characters, e.g. --state-prefix app:rowpump:");
    };
    if (prefix.empty() || prefix.size() > 128) refuse("is " + std::to_string(prefix.size()) + " bytes long");
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        const auto c = static_cast<unsigned char>(prefix[i]);
        if (c <= ' ' || c == 0x7f)
            refuse("holds a space or control character at position " + std::to_string(i + 1));
        if (std::string_view("*?[]\\").find(static_cast<char>(c)) != std::string_view::npos)
            refuse("holds the glob character '" + std::string(1, static_cast<char>(c)) + "' at position " +
                   std::to_string(i + 1) + ", which a key pattern cannot match exactly");
    }
}

}  // namespace rowpump::redis
