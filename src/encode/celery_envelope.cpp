// A Celery task message (protocol 2, docs/internals/protocol.rst in Celery) in the envelope kombu's Redis
// transport keeps in a list (kombu/transport/redis.py: the producer LPUSHes it, workers BRPOP):
//
//   {"body": base64([[ROW], {}, {"callbacks": null, "errbacks": null, "chain": null, "chord": null}]),
//    "content-encoding": "utf-8", "content-type": "application/json",
//    "headers": {"lang": "py", "task": T, "id": ID, "shadow": null, "eta": ETA, "expires": null, "group": null,
//                "group_index": null, "retries": 0, "timelimit": [null, null], "root_id": ID, "parent_id": null,
//                "argsrepr": ..., "kwargsrepr": "{}", "origin": ..., "ignore_result": false},
//    "properties": {"correlation_id": ID, "reply_to": ..., "delivery_mode": 2,
//                   "delivery_info": {"exchange": "", "routing_key": Q}, "priority": 0,
//                   "body_encoding": "base64", "delivery_tag": TAG}}
//
// the keys, order and spacing that Celery 5.2's send_task and kombu write. Differences, on purpose:
// argsrepr (shown by logs and monitors, never evaluated) is the argument's JSON rather than Python's
// repr, cut like Celery's at 1024 bytes (kwargsrepr likewise); eta and expires are written as Python's
// isoformat() of a UTC time. With --celery-kwargs, the columns it names are the kwargs dict and the row
// argument holds the others (no argument when none is left); --celery-expires sets "expires" (Celery then
// revokes a task that had not started by then), --routing-key delivery_info's routing key,
// --celery-priority or --celery-priority-column (TaskTimes::priority, each row's) properties.priority.
#include <unistd.h>

#include <cstdio>

#include "encode/base64.hpp"
#include "encode/json_string.hpp"
#include "encode/task_envelope.hpp"
#include "encode/unique_ids.hpp"
#include "encode/utc_text.hpp"

namespace rowpump {

namespace {

constexpr std::size_t argsrepr_max_bytes = 1024;    // Celery's argsrepr_maxsize
constexpr std::size_t kwargsrepr_max_bytes = 1024;  // and kwargsrepr_maxsize

std::string origin_name() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return "rowpump" + std::to_string(::getpid()) + "@" + host;
}

// "2030-01-01T00:00:00.250000+00:00", or without the fraction on a whole second, as isoformat() does.
void append_iso_utc(std::string& out, std::int64_t unix_ms) {
    if (const int micros = append_utc_seconds(unix_ms * 1000, out); micros != 0) {
        char fraction[16];
        const int length = std::snprintf(fraction, sizeof fraction, ".%06d", micros);
        out.append(fraction, static_cast<std::size_t>(length));
    }
    out.append("+00:00", 6);
}

// The first `limit` bytes of `text`, not cutting a UTF-8 character.
std::string_view cut_utf8(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) return text;
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
    return text.substr(0, end);
}

std::string& scratch(int which) {
    thread_local std::string buffers[3];
    return buffers[which];
}

class CeleryEnvelope final : public TaskEnvelope {
public:
    explicit CeleryEnvelope(const TaskSpec& task) {
        task_ = "\"headers\": {\"lang\": \"py\", \"task\": ";
        append_json_string(task.task, task_);
        task_ += ", \"id\": \"";
        origin_ = "\"origin\": ";
        append_json_string(origin_name(), origin_);
        origin_ += ", \"ignore_result\": false}, \"properties\": {\"correlation_id\": \"";
        std::string reply_to;
        ids_.append_uuid4(reply_to);
        routing_ = "\", \"reply_to\": \"" + reply_to +
                   "\", \"delivery_mode\": 2, \"delivery_info\": {\"exchange\": \"\", \"routing_key\": ";
        append_json_string(task.celery.routing_key.empty() ? task.queue : task.celery.routing_key, routing_);
        expires_us_ = static_cast<std::int64_t>(task.celery.expires_seconds * 1e6);
        routing_ += "}, \"priority\": ";
        priority_ = std::to_string(task.celery.priority.value_or(0));
        tag_ = ", \"body_encoding\": \"base64\", \"delivery_tag\": \"";
    }

    void wrap(std::string_view argument_json, const TaskTimes& times, std::string& out) const override {
        std::string& args = scratch(2);
        args.assign("[", 1);
        args.append(argument_json);
        args.push_back(']');
        wrap_call(args, "{}", times, out);
    }

    void wrap_call(std::string_view args, std::string_view kwargs, const TaskTimes& times,
                   std::string& out) const override {
        std::string& body = scratch(0);
        body.assign("[", 1);
        body.append(args);
        body.append(", ", 2);
        body.append(kwargs);
        body.append(", {\"callbacks\": null, \"errbacks\": null, \"chain\": null, \"chord\": null}]");
        out.append("{\"body\": \"", 10);
        base64_append(body, out);
        out.append("\", \"content-encoding\": \"utf-8\", \"content-type\": \"application/json\", ");
        out.append(task_);
        const std::size_t id_start = out.size();
        ids_.append_uuid4(out);
        const std::string_view id_view(out.data() + id_start, out.size() - id_start);
        std::string& id = scratch(1);
        id.assign(id_view);
        out.append("\", \"shadow\": null, \"eta\": ");
        if (times.due_ms > 0) {
            out.push_back('"');
            append_iso_utc(out, times.due_ms);
            out.push_back('"');
        } else {
            out.append("null", 4);
        }
        out.append(", \"expires\": ", 13);
        if (expires_us_ > 0) {
            out.push_back('"');
            append_iso_utc(out, (times.now_us + expires_us_) / 1000);
            out.push_back('"');
        } else {
            out.append("null", 4);
        }
        out.append(", \"group\": null, \"group_index\": null, \"retries\": 0, "
                   "\"timelimit\": [null, null], \"root_id\": \"");
        out.append(id);
        out.append("\", \"parent_id\": null, \"argsrepr\": ");
        append_json_string(cut_utf8(args, argsrepr_max_bytes), out);
        out.append(", \"kwargsrepr\": ", 16);
        append_json_string(cut_utf8(kwargs, kwargsrepr_max_bytes), out);
        out.append(", ", 2);
        out.append(origin_);
        out.append(id);
        out.append(routing_);
        if (times.priority) out.append(std::to_string(*times.priority));  // the row's own (a priority column)
        else out.append(priority_);
        out.append(tag_);
        ids_.append_uuid4(out);
        out.append("\"}}", 3);
    }

private:
    std::string task_;     // from "headers" to the task id
    std::string origin_;   // from "origin" to the correlation id
    std::string routing_;  // from after the correlation id to the priority
    std::string priority_;  // the task's priority, where a row has none of its own
    std::string tag_;       // from after the priority to the delivery tag
    std::int64_t expires_us_ = 0;  // 0: no expiry
    UniqueIds ids_;
};

}  // namespace

std::unique_ptr<TaskEnvelope> make_celery_envelope(const TaskSpec& task) {
    return std::make_unique<CeleryEnvelope>(task);
}

}  // namespace rowpump
