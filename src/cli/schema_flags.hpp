#pragma once
// Command-line flags made from the option schema (config/option_schema.hpp): the flag's name, help,
// choices, bounds and environment variable come from there, and the value lands typed in `target`. A flag
// whose kind does not fit its target's type is a bug, refused as the command is built.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "config/choices.hpp"
#include "config/option_schema.hpp"

namespace rowpump::cli {

using config::OptionId;

// A text option; or a choice that stands for no enum (queue stats --format), stored as the name.
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::string& target);
// A names option (comma-separated), or a text option that may be given more than once.
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::vector<std::string>& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, bool& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::size_t& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::optional<std::size_t>& target);
CLI::Option* add_schema_option(CLI::App& command, OptionId id, double& target);

namespace detail {
const config::OptionSpec& spec_of_kind(OptionId id, config::ValueKind kind);
// The settings every flag takes from its description (its environment variable).
CLI::Option* described(const config::OptionSpec& spec, CLI::Option* option);
}

// An enum-valued option: one of the schema's choices, stored as the enum it names (config/choices.hpp).
template <class E, class Target>
    requires std::is_enum_v<E> && (std::is_same_v<Target, E> || std::is_same_v<Target, std::optional<E>>)
CLI::Option* add_choice_option(CLI::App& command, OptionId id, Target& target) {
    const auto& spec = detail::spec_of_kind(id, config::ValueKind::choice);
    return detail::described(
        spec, command
                  .add_option_function<std::string>(
                      spec.cli, [&target](const std::string& name) { target = *config::parse_choice<E>(name); },
                      spec.help)
                  ->check(CLI::IsMember(spec.choices)));
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

// One flag of a command and where its value lands, for add_schema_options.
class SchemaFlag {
public:
    enum class Need { optional, required };
    template <class T>
    SchemaFlag(OptionId id, T& target, Need need = Need::optional)
        : add_([id, &target](CLI::App& command) { return add_schema_option(command, id, target); }), need_(need) {}
    CLI::Option* add(CLI::App& command) const;

private:
    std::function<CLI::Option*(CLI::App&)> add_;
    Need need_;
};
inline constexpr SchemaFlag::Need required = SchemaFlag::Need::required;

// The flags of a command, in the order --help lists them.
void add_schema_options(CLI::App& command, std::initializer_list<SchemaFlag> flags);

}  // namespace rowpump::cli
