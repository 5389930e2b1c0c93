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

CLI::Option* described(const config::OptionSpec& spec, CLI::Option* option) {
    if (!spec.env.empty()) option->envname(spec.env);
    return option;
}

}  // namespace detail

using config::ValueKind;
using detail::described;
using detail::spec_of_kind;

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::string& target) {
    const auto& spec = config::option(id);
    if (spec.kind == ValueKind::choice)  // the name itself is the value
        return described(spec, command.add_option(spec.cli, target, spec.help)->check(CLI::IsMember(spec.choices)));
    spec_of_kind(id, ValueKind::text);
    return described(spec, command.add_option(spec.cli, target, spec.help));
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::vector<std::string>& target) {
    // A list of names is comma-separated; a text option given again and again (--replica URL) is not split.
    const auto& spec = config::option(id);
    if (spec.kind == ValueKind::text) return described(spec, command.add_option(spec.cli, target, spec.help));
    spec_of_kind(id, ValueKind::names);
    return described(spec, command.add_option(spec.cli, target, spec.help)->delimiter(','));
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, bool& target) {
    const auto& spec = spec_of_kind(id, ValueKind::flag);
    return described(spec, command.add_flag(spec.cli, target, spec.help));
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::size_t& target) {
    const auto& spec = spec_of_kind(id, ValueKind::whole);
    return described(spec,
                     command.add_option(spec.cli, target, spec.help)->check(whole_number(spec.whole.min, spec.whole.max)));
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, std::optional<std::size_t>& target) {
    const auto& spec = spec_of_kind(id, ValueKind::whole);
    return described(spec,
                     command.add_option(spec.cli, target, spec.help)->check(whole_number(spec.whole.min, spec.whole.max)));
}

CLI::Option* add_schema_option(CLI::App& command, OptionId id, double& target) {
    const auto& spec = spec_of_kind(id, ValueKind::real);
    return described(spec, command.add_option(spec.cli, target, spec.help)->check(real_number(spec.real)));
}

CLI::Option* SchemaFlag::add(CLI::App& command) const {
    CLI::Option* option = add_(command);
    if (need_ == Need::required) option->required();
    return option;
}

void add_schema_options(CLI::App& command, std::initializer_list<SchemaFlag> flags) {
    for (const auto& flag : flags) flag.add(command);
}

}  // namespace rowpump::cli
