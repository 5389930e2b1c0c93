#pragma once
// `rowpump run JOB.yaml`: a batch job described in a YAML file (schema: jobs/README.md).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace rowpump::cli {

struct RunOptions {
    std::string job_file;
    std::vector<std::string> overrides;  // "path=value", applied to the file before it is checked
    bool dry_run = false;
    bool resume = false;
    std::string summary_json;
};

CLI::App* setup_run(CLI::App& app, RunOptions& options);
int run_run(const RunOptions& options);

// Adds --set path=value (repeatable), shared by run and explain.
void add_override_option(CLI::App& command, std::vector<std::string>& overrides);

}  // namespace rowpump::cli
