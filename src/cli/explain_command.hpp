#pragma once
// `rowpump explain JOB.yaml`: for each range of the job, the SQL its first page runs and the server's
// EXPLAIN of it, so a missing index shows before a 2-billion-row run starts.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace rowpump::cli {

struct ExplainOptions {
    std::string job_file;
    std::vector<std::string> overrides;
};

CLI::App* setup_explain(CLI::App& app, ExplainOptions& options);
int run_explain(const ExplainOptions& options);

}  // namespace rowpump::cli
