#include "cli/timeout_flags.hpp"

#include "cli/schema_flags.hpp"

namespace rowpump::cli {

void TimeoutFlags::apply(ServerTimeouts& timeouts) const {
    if (read_timeout_seconds) timeouts.read_timeout = std::chrono::seconds(*read_timeout_seconds);
    if (write_timeout_seconds) timeouts.write_timeout = std::chrono::seconds(*write_timeout_seconds);
    if (retry_budget_seconds) timeouts.retry_budget = std::chrono::seconds(*retry_budget_seconds);
}

void add_timeout_flags(CLI::App& command, TimeoutFlags& flags) {
    add_schema_options(command, {{OptionId::read_timeout, flags.read_timeout_seconds},
                                 {OptionId::write_timeout, flags.write_timeout_seconds},
                                 {OptionId::retry_budget, flags.retry_budget_seconds}});
}

}  // namespace rowpump::cli
