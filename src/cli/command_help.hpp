#pragma once
// A subcommand as its --help shows it: the one-line description, then a footer of example command lines
// and, after them, what the examples do not say (retry budget, where the schema is documented, ...).
#include <CLI/CLI.hpp>

#include <initializer_list>
#include <string>

namespace rowpump::cli {

// Adds `name` to `parent` with the footer "Examples:", one indented line per example, then `notes`
// (its own lines, if any) on the lines after.
CLI::App* add_command(CLI::App& parent, const std::string& name, const std::string& description,
                      std::initializer_list<std::string> examples, const std::string& notes = {});

}  // namespace rowpump::cli
