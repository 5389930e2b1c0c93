#include "backend/derived_fields.hpp"

#include "rowpump/error.hpp"

namespace rowpump {

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
    return text.empty() ? "none" : text;
}

}  // namespace

void check_derived_fields(const SinkSpec& sink, Format format, const TaskSpec& task,
                          const std::vector<std::string>* route_levels) {
    const QueueLayout layout = queue_layout(format);
    if (sink.layout != QueueLayout::rowpump && sink.layout != layout)
        throw UsageError("SinkSpec::layout comes from the format (" + format_name(format) +
                         "): leave it at QueueLayout::rowpump");
    if (route_levels && !sink.priority_lists.empty() && sink.priority_lists != *route_levels)
        throw UsageError("SinkSpec::priority_lists (" + joined(sink.priority_lists) +
                         ") come from the route's levels (" + joined(*route_levels) + "): leave them empty");
    const std::string queue = sink.queue.empty() ? default_queue(format) : sink.queue;
    if (!task.queue.empty() && task.queue != queue)
        throw UsageError("TaskSpec::queue ('" + task.queue + "') is the sink's queue ('" + queue +
                         "'): leave it empty, or name the queue in SinkSpec::queue");
}

}  // namespace rowpump
