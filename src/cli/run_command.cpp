#include "cli/run_command.hpp"

#include "cli/job_runner.hpp"
#include "config/option_error.hpp"
#include "rowpump/job.hpp"
#include "rowpump/options.hpp"

namespace rowpump::cli {

void add_override_option(CLI::App& command, std::vector<std::string>& overrides) {
    command
        .add_option("--set", overrides,
                    "Override a value of the file: path=value, e.g. --set source.page_size=500 --set workers=4 "
                    "(repeatable; [a, b] or {k: v} for a list or map; an empty value unsets)")
        ->allow_extra_args(false);
}

CLI::App* setup_run(CLI::App& app, RunOptions& options) {
    auto* command = app.add_subcommand("run", "Run a batch job described in a YAML file");
    command->footer(
        "Examples:\n"
        "  rowpump run jobs/redis_backfill.yaml\n"
        "  rowpump run jobs/redis_backfill.yaml --set workers=4 --set source.page_size=500 --dry-run\n"
        "  rowpump run jobs/orders.yaml --resume --summary-json summary.json\n"
        "Every value is checked before any connection is opened; ${VAR} in the file reads the environment.\n"
        "A lost connection, deadlock or server restart is retried for " +
        std::to_string(MySqlOptions().retry_budget.count()) +
        " s from its first failure (the retry budget) before the run fails.\n"
        "Schema and examples: jobs/README.md. Ctrl-C stops cleanly (exit 3).");
    command->add_option("job", options.job_file, "The YAML job file")->required();
    add_override_option(*command, options.overrides);
    command->add_flag("--dry-run", options.dry_run, "Print the plan (ranges and their first SQL); write nothing");
    command->add_flag("--resume", options.resume, "Refuse to start a new job: run only if the job of job_id exists. A rerun with the same job_id resumes where the job stopped, with or without --resume");
    command->add_option("--summary-json", options.summary_json,
                        "Also write the summary as JSON to this file (checked before the run starts; if it cannot be "
                        "written at the end, the run exits 1 and says that the rows were written)");
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
