// `rowpump job`: thin callers of the store's JobAdmin (backend/registry), which each backend implements
// beside its job store. Results go to stdout; a missing job, a bad id or a refusal is one line on stderr and
// exit 2, with nothing changed.
#include "cli/job_command.hpp"

#include <cstdio>

#include "backend/registry/registry.hpp"
#include "cli/command_help.hpp"
#include "cli/job_view.hpp"
#include "cli/schema_flags.hpp"
#include "rowpump/error.hpp"
#include "rowpump/job.hpp"
#include "url.hpp"

namespace rowpump::cli {

namespace {

void add_store_options(CLI::App& command, JobCommandOptions& options, bool takes_id) {
    command.add_option("job", options.job_file, "A YAML job file: its sink, queue, job id and state prefix");
    add_schema_options(command, {{OptionId::sink, options.sink}, {OptionId::queue, options.queue},
                                 {OptionId::state_prefix, options.state_prefix}});
    if (takes_id) add_schema_option(command, OptionId::job_id, options.job_id);
}

// A job file gives what the flags did not.
void read_job_file(JobCommandOptions& options, const CLI::App& command) {
    if (options.job_file.empty()) return;
    const JobSpec spec = load_job(options.job_file);
    const auto given = [&](const char* flag) { return command.count(flag) > 0; };
    if (!given("--sink")) options.sink = spec.sink.uri;
    if (!given("--queue")) options.queue = spec.sink.queue;
    if (!given("--state-prefix")) options.state_prefix = spec.state_prefix;
    if (!given("--job-id")) options.job_id = spec.job_id;
}

void check_job_id(const JobCommandOptions& options) {
    if (options.job_id.empty())
        throw UsageError(options.job_file.empty() ? "no job given: pass --job-id ID (or a job file)"
                                                  : options.job_file + " has no job_id: pass --job-id ID");
    if (options.job_id.size() > 191)
        throw UsageError("a job id must be 1 to 191 characters, got " + std::to_string(options.job_id.size()));
}

std::unique_ptr<JobAdmin> open_admin(const JobCommandOptions& options) {
    SinkSpec sink;
    sink.uri = options.sink;
    sink.queue = options.queue;
    return open_job_admin(sink, options.state_prefix);
}

[[noreturn]] void missing(const JobCommandOptions& options, const JobAdmin& admin) {
    throw UsageError("no job '" + options.job_id + "' in " + admin.where() + " (see 'rowpump job list')");
}

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

std::string live_owners(const AdminJob& job, const JobAdmin& admin) {
    std::string owners;
    for (const AdminRange& range : job.ranges)
        if (range.lease_live)
            owners += (owners.empty() ? "" : ", ") + admin.owner_word() + " " + range.owner +
                      (range.owner_address.empty() ? "" : " at " + range.owner_address) + " holds range " +
                      std::to_string(range.number);
    return owners;
}

int remove_job(const JobCommandOptions& options, RemoveRule rule, const char* done_word) {
    check_job_id(options);
    const auto admin = open_admin(options);
    const RemoveResult result = admin->remove(options.job_id, rule);
    const AdminJob& job = result.job;
    switch (result.outcome) {
        case RemoveOutcome::missing: missing(options, *admin);
        case RemoveOutcome::leased:
            throw UsageError("job '" + options.job_id + "' is being run (" + live_owners(job, *admin) +
                             "): stop its runs first, or pass --force (their next page is then refused)");
        case RemoveOutcome::unfinished:
            throw UsageError("job '" + options.job_id + "' has not finished (" + std::to_string(job.ranges_done()) +
                             " of " + std::to_string(job.ranges.size()) +
                             " ranges done): a run continues it; to start it over, pass --force");
        case RemoveOutcome::removed: break;
    }
    std::printf("%s job %s: %llu rows had been written in %zu ranges; the next run with this job id starts from "
                "the beginning (the rows in the queue stay)\n",
                done_word, options.job_id.c_str(), static_cast<unsigned long long>(job.rows_written()),
                job.ranges.size());
    return 0;
}

}  // namespace

CLI::App* setup_job(CLI::App& app, JobCommandOptions& options) {
    auto* job = add_command(
        app, "job", "List, inspect, remove or reset the jobs kept beside a queue (--job-id checkpoints)",
        {"rowpump job list --sink redis://127.0.0.1:6379/0",
         "rowpump job show --sink mysql://app@db:3306/shop --job-id orders-2026 --json",
         "rowpump job show jobs/orders.yaml",
         "rowpump job reset jobs/orders.yaml",
         "rowpump job drop --sink redis://127.0.0.1:6379/0 --job-id orders-2026 --force"},
        "A lease is live while its owner's connection is alive and its lease has not expired. drop and reset are\n"
        "refused while one is (exit 2), unless --force: the run holding it then loses its range at its next page,\n"
        "which writes nothing. reset runs a finished job again from the start; drop removes any job's state.\n"
        "On a Redis Cluster, --queue names the queue whose slot holds the jobs. A missing job or a refusal: exit 2.");
    job->require_subcommand(1);
    // Each subcommand: the store's options (and --job-id where it names one job), plus its one flag.
    const struct {
        const char* name;
        const char* description;
        bool names_a_job;
        const char* flag;
        bool& value;
        const char* flag_help;
    } subcommands[] = {
        {"list", "Every job: table, state, rows written, ranges, leases, last write", false, "--json", options.json,
         "Print the jobs as a JSON array"},
        {"show", "One job's ranges: bounds, checkpoints, owners", true, "--json", options.json, "Print the job as JSON"},
        {"drop", "Remove a job's state (not its rows in the queue)", true, "--force", options.force,
         "Remove it even while a live connection holds a lease"},
        {"reset", "Let a finished job run again from the start", true, "--force", options.force,
         "Reset a job that has not finished (nobody may hold a live lease)"},
    };
    for (const auto& subcommand : subcommands) {
        auto* added = job->add_subcommand(subcommand.name, subcommand.description);
        add_store_options(*added, options, subcommand.names_a_job);
        added->add_flag(subcommand.flag, subcommand.value, subcommand.flag_help);
    }
    return job;
}

int run_job_command(const CLI::App& job_command, JobCommandOptions options) {
    const CLI::App* given = job_command.get_subcommands().front();
    read_job_file(options, *given);
    const std::string name = given->get_name();
    if (name == "list") {
        const auto admin = open_admin(options);
        const auto jobs = admin->list();
        print(options.json ? jobs_json(jobs, *admin) : jobs_table(jobs, *admin));
        return 0;
    }
    if (name == "show") {
        check_job_id(options);
        const auto admin = open_admin(options);
        const auto job = admin->find(options.job_id);
        if (!job) missing(options, *admin);
        print(options.json ? job_json(*job, *admin) : job_text(*job, *admin));
        return 0;
    }
    // reset --force may not take a live lease from a run: only drop --force does.
    if (name == "reset") return remove_job(options, {.only_finished = !options.force, .force = false}, "reset");
    return remove_job(options, {.only_finished = false, .force = options.force}, "dropped");
}

}  // namespace rowpump::cli
