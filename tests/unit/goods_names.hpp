#pragma once
// The custom Redis names of the names tests, for the push plan (unit) and the bulk enqueuer (against a
// server): a list per priority level from a key template, one delayed set scored in seconds, bare members.
#include <string>
#include <utility>

#include "rowpump/sink.hpp"

namespace rowpump::test {

inline SinkSpec goods_names(std::string queue) {
    SinkSpec spec;
    spec.queue = std::move(queue);
    spec.priority_lists = {"high", "low"};
    spec.redis_only.list_key = "goods:{level}:task";
    spec.redis_only.delayed_key = "goods:delay";
    spec.redis_only.delay_score = DelayScore::seconds;
    spec.redis_only.delayed_members = DelayedMembers::bare;
    return spec;
}

}  // namespace rowpump::test
