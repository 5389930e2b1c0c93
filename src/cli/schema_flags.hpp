#pragma once
// Command-line flags made from the option schema (config/option_schema.hpp): the flag's name, help,
// choices and bounds come from there, and the value lands typed in `target`. A flag whose kind does not
// fit its target's type is a bug, refused as the command is built.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "config/choices.hpp"
#include "config/option_schema.hpp"

namespace rowpump::cli {

using config::OptionId;

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::string& target);
// A names option (comma-separated), or a text option that may be given more than once.
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::vector<std::string>& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, bool& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::size_t& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::optional<std::size_t>& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, double& target);

namespace detail {
const config::OptionSpec& spec_of_kind(OptionId id, config::ValueKind kind);
}

// An enum-valued option: one of the schema's choices, stored as the enum it names (config/choices.hpp).
template <class E, class Target>
    requires std::is_enum_v<E> && (std::is_same_v<Target, E> || std::is_same_v<Target, std::optional<E>>)
CLI::Option* add_choice_option(CLI::App& command, OptionId id, Target& target) {
    const auto& spec = detail::spec_of_kind(id, config::ValueKind::choice);
    return command
        .add_option_function<std::string>(
            spec.cli, [&target](const std::string& name) { target = *config::parse_choice<E>(name); }, spec.help)
        ->check(CLI::IsMember(spec.choices));
}

template <class E>
    requires std::is_enum_v<E>
CLI::Option* add_schema_option(CLI::App& command, OptionId id, E& target) {
    return add_choice_option<E>(command, id, target);
}

template <class E>
    requires std::is_enum_v<E>
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::optional<E>& target) {
    return add_choice_option<E>(command, id, target);
}

}  // namespace rowpump::cli
