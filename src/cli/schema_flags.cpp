#include "cli/schema_flags.hpp"

#include <stdexcept>

#include "cli/number_flags.hpp"

namespace rowpump::cli {

namespace detail {

const config::OptionSpec& spec_of_kind(OptionId id, config::ValueKind kind) {
    const auto& spec = config::option(id);
    if (spec.kind != kind || spec.cli.empty())
        throw std::logic_error("option " + spec.cli + spec.yaml + " is bound to a flag of another kind");
    return spec;
}

}  // namespace detail

using config::ValueKind;
using detail::spec_of_kind;

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::string& target) {
    const auto& spec = spec_of_kind(id, ValueKind::text);
    return command.add_option(spec.cli, target, spec.help);
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::vector<std::string>& target) {
    // A list of names is comma-separated; a text option given again and again (--replica URL) is not split.
    if (config::option(id).kind == ValueKind::text) return command.add_option(config::option(id).cli, target, config::option(id).help);
    const auto& spec = spec_of_kind(id, ValueKind::names);
    return command.add_option(spec.cli, target, spec.help)->delimiter(',');
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, bool& target) {
    const auto& spec = spec_of_kind(id, ValueKind::flag);
    return command.add_flag(spec.cli, target, spec.help);
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::size_t& target) {
    const auto& spec = spec_of_kind(id, ValueKind::whole);
    return command.add_option(spec.cli, target, spec.help)->check(whole_number(spec.whole.min, spec.whole.max));
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::optional<std::size_t>& target) {
    const auto& spec = spec_of_kind(id, ValueKind::whole);
    return command.add_option(spec.cli, target, spec.help)->check(whole_number(spec.whole.min, spec.whole.max));
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, double& target) {
    const auto& spec = spec_of_kind(id, ValueKind::real);
    return command.add_option(spec.cli, target, spec.help)->check(real_number(spec.real));
}

}  // namespace rowpump::cli
