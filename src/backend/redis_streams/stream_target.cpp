#include "backend/redis_streams/stream_target.hpp"

#include "config/option_checks.hpp"
#include "config/option_error.hpp"
#include "rowpump/error.hpp"

namespace rowpump {

using config::OptionId;

void check_stream_spec(const SinkSpec& spec) {
    if (spec.queue.empty()) throw config::OptionError({"--push xadd writes the stream named by ", OptionId::queue, ": pass it"});
    if (!spec.priority_lists.empty())
        throw config::OptionError({"a stream is one sequence of entries and has no priority lists: drop ",
                                   OptionId::priority, " and ", OptionId::priority_column, ", or push to lists (",
                                   OptionId::push, " rpush)"});
    if (spec.layout != QueueLayout::rowpump)
        throw config::OptionError({"Sidekiq and Celery workers read lists, not streams: drop ", OptionId::push, " xadd"});
    const auto names = config::redis_name_options_given(spec);
    if (!names.empty())
        throw config::OptionError({names.front(), " names a key of the Redis lists' layout, and ", OptionId::push,
                                   " xadd writes one stream: drop it"});
}

StreamTarget stream_target(const SinkSpec& spec) {
    check_stream_spec(spec);
    return {.redis = redis_target(spec), .maxlen = spec.redis_only.stream_maxlen};
}

}  // namespace rowpump
