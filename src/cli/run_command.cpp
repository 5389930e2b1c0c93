#include "cli/run_command.hpp"

#include "cli/command_help.hpp"
#include "cli/job_runner.hpp"
#include "cli/schema_flags.hpp"
#include "config/option_error.hpp"
#include "rowpump/job.hpp"
#include "rowpump/options.hpp"

namespace rowpump::cli {

void add_override_option(CLI::App& command, std::vector<std::string>& overrides) {
    // One value per --set: the job file that follows is no override.
    add_schema_option(command, OptionId::overrides, overrides)->allow_extra_args(false);
}

CLI::App* setup_run(CLI::App& app, RunOptions& options) {
    auto* command = add_command(
        app, "run", "Run a batch job described in a YAML file",
        {"rowpump run jobs/redis_backfill.yaml",
         "rowpump run jobs/redis_backfill.yaml --set workers=4 --set source.page_size=500 --dry-run",
         "rowpump run jobs/orders.yaml --resume --summary-json summary.json"},
        "Every value is checked before any connection is opened; ${VAR} in the file reads the environment.\n"
        "A lost connection, deadlock or server restart is retried for " +
        std::to_string(MySqlOptions().retry_budget.count()) +
        " s from its first failure (the retry budget) before the run fails.\n"
        "Schema and examples: jobs/README.md. Ctrl-C stops cleanly (exit 3).");
    command->add_option("job", options.job_file, "The YAML job file")->required();
    add_override_option(*command, options.overrides);
    add_schema_options(*command, {{OptionId::dry_run, options.dry_run}, {OptionId::resume, options.resume},
                                  {OptionId::summary_json, options.summary_json}});
    return command;
}

int run_run(const RunOptions& options) {
    JobSpec spec = load_job(options.job_file, options.overrides);
    spec.resume = options.resume;
    try {
        if (options.dry_run) return print_plan(spec);
        return run_with_progress(spec, options.summary_json);
    } catch (const config::OptionError& error) {
        // A job file names its options by their paths (sink.delay_score), not by the flags of backfill.
        throw UsageError(error.render(config::Spelling::yaml));
    } catch (const config::OptionFailure& error) {
        throw Error(error.render(config::Spelling::yaml));
    }
}

}  // namespace rowpump::cli
