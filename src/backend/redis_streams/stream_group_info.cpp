#include "backend/redis_streams/stream_group_info.hpp"

#include "backend/redis_streams/stream_group.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

namespace {

// A field of an XINFO reply (a flat list of names and values).
const redis::Reply* field(const redis::Reply& reply, std::string_view name) {
    for (std::size_t i = 0; i + 1 < reply.elements.size(); i += 2)
        if (reply.elements[i].text == name) return &reply.elements[i + 1];
    return nullptr;
}

std::uint64_t count_of(const redis::Reply* reply) {
    return reply && reply->type == redis::Reply::Type::integer ? static_cast<std::uint64_t>(reply->integer) : 0;
}

}  // namespace

StreamGroupInfo read_group_info(redis::Connection& connection, const std::string& stream, const std::string& group) {
    StreamGroupInfo info;
    connection.append({"TYPE", stream});
    connection.append({"XLEN", stream_dead_key(stream)});
    const auto head = connection.read_replies(2);
    info.dead = static_cast<std::uint64_t>(head[1].integer);
    if (head[0].text != "stream") return info;
    connection.append({"XINFO", "STREAM", stream});
    connection.append({"XINFO", "GROUPS", stream});
    const auto replies = connection.read_replies(2);
    info.length = count_of(field(replies[0], "length"));
    const redis::Reply* last_id = field(replies[0], "last-generated-id");
    for (const redis::Reply& entry : replies[1].elements) {
        const redis::Reply* name = field(entry, "name");
        if (!name || name->text != group) continue;
        info.group_exists = true;
        info.pending = count_of(field(entry, "pending"));
        const redis::Reply* lag = field(entry, "lag");
        const redis::Reply* delivered = field(entry, "last-delivered-id");
        // No lag when Redis cannot tell (entries deleted in the middle): then whether anything came after the
        // last delivered entry.
        if (lag && lag->type == redis::Reply::Type::integer) info.waiting = static_cast<std::uint64_t>(lag->integer);
        else info.waiting = last_id && delivered && last_id->text != delivered->text ? 1 : 0;
    }
    if (!info.group_exists) info.waiting = info.length;
    return info;
}

std::vector<QueueStats::Holder> read_group_consumers(redis::Connection& connection, const std::string& stream,
                                                     const std::string& group, std::chrono::milliseconds timeout) {
    std::vector<QueueStats::Holder> holders;
    if (connection.command({"TYPE", stream}).text != "stream") return holders;
    redis::Reply consumers;
    try {
        consumers = connection.command({"XINFO", "CONSUMERS", stream, group});
    } catch (const QueueError& error) {
        if (error.is_transient() || std::string_view(error.what()).find("NOGROUP") == std::string_view::npos) throw;
        return holders;
    }
    for (const redis::Reply& consumer : consumers.elements) {
        QueueStats::Holder holder;
        if (const redis::Reply* name = field(consumer, "name")) holder.name = name->text;
        holder.tasks = count_of(field(consumer, "pending"));
        const std::uint64_t idle_ms = count_of(field(consumer, "idle"));
        holder.age_seconds = static_cast<double>(idle_ms) / 1000.0;
        holder.alive = idle_ms <= static_cast<std::uint64_t>(timeout.count());
        holders.push_back(std::move(holder));
    }
    return holders;
}

}  // namespace rowpump
