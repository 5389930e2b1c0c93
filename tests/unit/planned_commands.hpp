#pragma once
// The Redis commands a PushPlan plans for a batch, copied out of the plan's views.
#include <string>
#include <vector>

#include "backend/redis/redis_push_plan.hpp"

namespace rowpump::test {

using Command = std::vector<std::string>;

inline std::vector<Command> commands_of(const redis::PushPlan& plan) {
    std::vector<Command> commands;
    for (std::size_t c = 0; c < plan.commands(); ++c) {
        const auto command = plan.command(c);
        commands.emplace_back(command.begin(), command.end());
    }
    return commands;
}

inline std::vector<Command> planned(const SinkSpec& spec, const std::vector<Message>& batch,
                                    redis::DelayedTag first_tag = {7, 0}) {
    redis::PushPlan plan(redis_queue_keys(spec));
    plan.plan(batch, first_tag);
    return commands_of(plan);
}

}  // namespace rowpump::test
