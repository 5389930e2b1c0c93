// The rowpump command: main only wires subcommands and turns errors into one line and an exit code.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sched.h>
#endif

#include "cli/backfill_command.hpp"
#include "cli/explain_command.hpp"
#include "cli/job_command.hpp"
#include "cli/partition_command.hpp"
#include "cli/queue_command.hpp"
#include "cli/run_command.hpp"
#include "cli/read_command.hpp"
#include "log.hpp"
#include "rowpump/error.hpp"
#include "rowpump/options.hpp"
#include "url.hpp"

namespace {

// A backfill allocates and frees pages of a few MB many times a second. glibc's defaults give such blocks
// back to the kernel (mmap/munmap, heap trimming) and fault them in again for the next page: a quarter
// of the CPU of a 1M-row backfill into Redis. Keeping them costs no RSS beyond the pages in flight.
void keep_freed_page_memory() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

// Every local user can read our arguments (ps, /proc/PID/cmdline) for as long as we run. Once CLI11 has
// copied them, each password in them (scheme://user:PASS@..., user:PASS@...) is overwritten in place,
// as the mysql client does with -pPASS. Returns the passwords it hid.
std::vector<std::string> hide_passwords(int argc, char** argv) {
    std::vector<std::string> hidden;
    for (int i = 1; i < argc; ++i) {
        for (const auto& [start, length] : rowpump::password_spans(argv[i])) {
            if (length == 0) continue;
            hidden.emplace_back(argv[i] + start, length);
            std::memset(argv[i] + start, 'x', length);
        }
    }
    return hidden;
}

void print_line(rowpump::LogLevel level, std::string_view message) {
    std::string line = "rowpump: ";
    line.append(rowpump::to_string(level)).append(": ").append(message).push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stderr);
}

// A warning about how the command was started, said once where it is read: before the run's first line
// (after a run's summary nobody reads it), but after the error when that is the first line, which must say
// what went wrong. Touched only by the log handler, whose calls never overlap, and at the end.
std::string held_warning;

// The library only hands its messages over; the command prints them, one write per line.
void log_to_stderr() {
    rowpump::set_log_handler([](rowpump::LogLevel level, std::string_view message) {
        const bool error = level == rowpump::LogLevel::error;
        if (!held_warning.empty() && !error) print_line(rowpump::LogLevel::warning, std::exchange(held_warning, {}));
        print_line(level, message);
        if (!held_warning.empty() && error) print_line(rowpump::LogLevel::warning, std::exchange(held_warning, {}));
    });
}

void recommend_password_variables() {
    if (rowpump::log_level() > rowpump::LogLevel::warning) return;
    held_warning = "a password was given on the command line, where other local users could read it until rowpump "
                   "hid it at startup: pass it in ROWPUMP_MYSQL_PASSWORD / ROWPUMP_REDIS_PASSWORD, or in a file named "
                   "by ROWPUMP_MYSQL_PASSWORD_FILE / ROWPUMP_REDIS_PASSWORD_FILE";
}

// The commands that move rows (read, backfill, run) are batch work, and say so to the scheduler before
// they start a thread (threads inherit it): a SCHED_BATCH thread that wakes never preempts the one
// running. Where the database shares the host (on this 2-core machine, in every benchmark), a reader woken
// by each 16 KB the server sent used to preempt the server's own thread: in a 1M-row file backfill,
// mariadbd was preempted 6,700-10,600 times (mydumper: 400-1,900); as batch work, 69-151 times, and its
// median CPU went from 0.64 to 0.58 s. The client's CPU moved within the noise (two A/B runs: 0.50 to
// 0.40 s, 0.45 to 0.43 s for a Redis backfill). Consumers (queue) are left as they are: the handlers
// they start would inherit the policy.
void schedule_as_batch_work() {
    const sched_param no_priority{};
    if (::sched_setscheduler(0, SCHED_BATCH, &no_priority) != 0)
        rowpump::log().debug("could not run as batch work (SCHED_BATCH): {}", std::strerror(errno));
}

// A subcommand: the options it parses into (kept while main runs) and what runs it once it is parsed.
struct Subcommand {
    CLI::App* parsed_by = nullptr;
    std::function<int()> run;
    bool batch_work = false;
};

// `run` takes the options, or the subcommand's CLI::App and the options (those with subcommands of their own).
template <class Options, class Run>
Subcommand subcommand(CLI::App& app, CLI::App* (*setup)(CLI::App&, Options&), Run run, bool batch_work = false) {
    auto options = std::make_shared<Options>();
    CLI::App* command = setup(app, *options);
    return {command,
            [command, options, run] {
                if constexpr (std::is_invocable_v<Run, const CLI::App&, Options&>) return run(*command, *options);
                else return run(*options);
            },
            batch_work};
}

}  // namespace

int main(int argc, char** argv) {
    keep_freed_page_memory();
    log_to_stderr();
    CLI::App app{"rowpump: move rows out of very large MySQL tables into queues, fast and without losing any"};
    app.require_subcommand(1);
    // -q and -v belong to the program, yet users put them anywhere ("rowpump backfill ... -q"): the
    // subcommands, which copy this setting, hand the options they do not know to the program.
    app.fallthrough();
    // One line, like every other error, naming the (sub)command whose --help explains the flags. Set before
    // the subcommands exist: they copy it.
    app.failure_message([](const CLI::App* failed, const CLI::Error& error) {
        std::string command = "rowpump";
        for (const CLI::App* at = failed; !at->get_subcommands().empty();) {
            at = at->get_subcommands().front();
            command += " " + at->get_name();
        }
        return "rowpump: error: " + std::string(error.what()) + "; see '" + command + " --help'\n";
    });
    app.set_version_flag("--version", "rowpump " ROWPUMP_VERSION);
    app.footer("Examples:\n"
               "  rowpump read --table orders --limit 10\n"
               "  rowpump backfill --table orders --sink redis://127.0.0.1:6379/0 --queue orders --workers 4\n"
               "  rowpump run jobs/redis_backfill.yaml --resume\n"
               "  rowpump job list --sink redis://127.0.0.1:6379/0\n"
               "Run 'rowpump COMMAND --help' for the flags of each command.\n"
               "Exit codes: 0 done, 1 failure, 2 bad usage/config/input (nothing written), 3 interrupted "
               "(resumable), 4 queue consume --until-empty drained the queue but tasks went dead.");
    bool verbose = false;
    bool quiet = false;
    app.add_flag("-v,--verbose", verbose, "Log debug details to stderr");
    app.add_flag("-q,--quiet", quiet, "Log only errors");

    using namespace rowpump::cli;
    constexpr bool batch_work = true;  // reads the table in bulk (schedule_as_batch_work)
    const std::vector<Subcommand> subcommands = {
        subcommand(app, setup_read, run_read, batch_work),  subcommand(app, setup_backfill, run_backfill, batch_work),
        subcommand(app, setup_partition, run_partition),    subcommand(app, setup_run, run_run, batch_work),
        subcommand(app, setup_explain, run_explain),        subcommand(app, setup_queue, run_queue),
        subcommand(app, setup_job, run_job_command),
    };

    app.parse_complete_callback([&] {
        using rowpump::LogLevel;
        rowpump::set_log_level(verbose ? LogLevel::debug : quiet ? LogLevel::error : LogLevel::info);
    });
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);
        return code == 0 ? 0 : static_cast<int>(rowpump::ExitCode::bad_input);
    }
    const std::vector<std::string> given_passwords = hide_passwords(argc, argv);
    if (!given_passwords.empty()) recommend_password_variables();
    int code = 0;
    try {
        for (const Subcommand& command : subcommands) {
            if (!command.parsed_by->parsed()) continue;
            if (command.batch_work) schedule_as_batch_work();
            code = command.run();
        }
    } catch (const rowpump::Error& error) {
        rowpump::log().error("{}", rowpump::redact_error_line(error.what(), given_passwords));
        code = static_cast<int>(error.exit_code());
    } catch (const std::exception& error) {
        rowpump::log().error("unexpected failure: {}", rowpump::redact_error_line(error.what(), given_passwords));
        code = static_cast<int>(rowpump::ExitCode::failure);
    }
    // A run that logged nothing (a read to stdout) still hears it.
    if (!held_warning.empty()) print_line(rowpump::LogLevel::warning, std::exchange(held_warning, {}));
    return code;
}
