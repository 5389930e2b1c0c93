#pragma once
// `rowpump job list|show|drop|reset`: the jobs kept beside a queue (a job id's checkpoints and leases), named
// by --sink (and --queue on a Redis Cluster), or by the YAML job file that ran them.
#include <CLI/CLI.hpp>

#include <string>

namespace rowpump::cli {

struct JobCommandOptions {
    std::string job_file;  // a YAML job: its sink, queue, job id and state prefix
    std::string sink;
    std::string queue;
    std::string job_id;
    std::string state_prefix = "rowpump:job:";
    bool json = false;
    bool force = false;
};

CLI::App* setup_job(CLI::App& app, JobCommandOptions& options);
int run_job_command(const CLI::App& job_command, JobCommandOptions options);

}  // namespace rowpump::cli
