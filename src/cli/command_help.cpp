#include "cli/command_help.hpp"

namespace rowpump::cli {

CLI::App* add_command(CLI::App& parent, const std::string& name, const std::string& description,
                      std::initializer_list<std::string> examples, const std::string& notes) {
    auto* command = parent.add_subcommand(name, description);
    std::string footer = "Examples:";
    for (const std::string& example : examples) footer += "\n  " + example;
    if (!notes.empty()) footer += "\n" + notes;
    command->footer(footer);
    return command;
}

}  // namespace rowpump::cli
