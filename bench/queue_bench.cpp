// Consumer throughput: tasks per second claimed and acknowledged by 1, 4 and 8 consumer threads (each with
// its own connection) draining a prefilled queue. MySQL: both claim modes at batch 1 and batch 100, with
// the InnoDB deadlock count of each run; Redis: reliable pop + batched ack at batch 1 and 100.
//
// Not a Google Benchmark: each run drains a fixed queue once, timed from the start barrier until the last
// task is acknowledged (enqueueing is not timed), which is what "tasks/s" means to an operator. Prints a
// markdown table; bench/results/queue.md has the figures and the machine note.
//
//   queue_bench [--tasks N] [--tasks-batch1 N] [--only mysql|redis] [--batch 1|100] [--consumers 1|4|8] [--runs R]
//               [--processes]
// --processes runs each consumer in a process of its own, as consumers on several machines would be (a
// MySQL queue's consumers share their claim cursor only within a process), instead of a thread each.
// Needs ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL (scripts/services.sh env); uses the table rp_bench_queue
// and the key prefix rp_bench:queue, both removed at the end. The table goes to stdout; retried deadlocks
// and lock waits are logged on stderr as they happen.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mysql/connection.hpp"
#include "backend/mysql_queue/mysql_queue_table.hpp"
#include "redis/connection.hpp"
#include "rowpump/queue.hpp"
#include "rowpump/sink.hpp"

namespace {

using namespace rowpump;
using Clock = std::chrono::steady_clock;

constexpr const char* bench_table = "rp_bench_queue";
constexpr const char* bench_queue = "rp_bench:queue";

struct Settings {
    int tasks = 50'000;         // per run at batch 100
    int tasks_batch1 = 5'000;   // per run at batch 1 (a round trip or three per task)
    int runs = 1;               // repetitions; the median is reported
    std::string only;
    std::size_t batch = 0;      // 0: both 1 and 100
    std::size_t consumers = 0;  // 0: 1, 4 and 8
    bool processes = false;     // a process per consumer instead of a thread

    bool wants(std::size_t batch_size, std::size_t consumer_count) const {
        return (batch == 0 || batch == batch_size) && (consumers == 0 || consumers == consumer_count);
    }
};

struct Run {
    double seconds = 0;
    double server_cpu = 0;  // seconds of CPU the server used meanwhile
    double client_cpu = 0;  // seconds of CPU this process used meanwhile (all consumer threads)
    std::uint64_t deadlocks = 0;
    std::uint64_t stale = 0;
};

// CPU time is what a loaded, shared machine does not distort much: wall time there mostly measures how
// much CPU the run was given, CPU per task measures what the work costs.
double process_cpu_seconds() {
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    double total = 0;
    for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {  // children: the consumer processes, once reaped
        rusage usage{};
        ::getrusage(who, &usage);
        total += seconds(usage.ru_utime) + seconds(usage.ru_stime);
    }
    return total;
}

// Acks refused, counted in memory that consumer processes share with this one.
std::atomic<std::uint64_t>& stale_acks() {
    static auto* counter = [] {
        void* page = ::mmap(nullptr, sizeof(std::atomic<std::uint64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) {
            std::perror("mmap");
            std::exit(1);
        }
        return new (page) std::atomic<std::uint64_t>(0);
    }();
    return *counter;
}

// utime + stime of a process from /proc (the server runs on this machine: scripts/services.sh).
double proc_cpu_seconds(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i)
        if (i == 14 || i == 15) ticks += std::stod(field);
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

long mariadb_pid(mysql::Connection& connection) {
    auto row = connection.query("SELECT @@pid_file");
    row.next();
    std::ifstream in(row.text(1));
    long pid = 0;
    in >> pid;
    return pid;
}

double redis_cpu_seconds(redis::Connection& connection) {
    const std::string info = connection.command({"INFO", "cpu"}).text;
    double total = 0;
    for (const char* name : {"used_cpu_sys:", "used_cpu_user:"}) {
        const auto at = info.find(name);
        if (at != std::string::npos) total += std::stod(info.substr(at + std::strlen(name)));
    }
    return total;
}

std::vector<Message> messages(int count) {
    std::vector<Message> batch;
    batch.reserve(count);
    for (int i = 0; i < count; ++i) batch.push_back({"{\"id\":" + std::to_string(i) + ",\"kind\":\"bench\"}", 0, 0});
    return batch;
}

std::uint64_t innodb_deadlocks(mysql::Connection& connection) {
    auto row = connection.query("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'");
    return row.next() ? std::stoull(row.text(2)) : 0;
}

// Starts `consumers` threads together and returns the time until all have drained the queue.
template <class Open, class Drain>
double drain_in_threads(std::size_t consumers, Open open, Drain drain_one) {
    std::vector<std::thread> threads;
    std::barrier start(static_cast<std::ptrdiff_t>(consumers + 1));
    for (std::size_t c = 0; c < consumers; ++c) {
        threads.emplace_back([&] {
            auto queue = open();  // connecting is not timed
            start.arrive_and_wait();
            drain_one(queue);
        });
    }
    start.arrive_and_wait();
    const auto began = Clock::now();
    for (auto& thread : threads) thread.join();
    return std::chrono::duration<double>(Clock::now() - began).count();
}

// The same with a process per consumer: each connects, says so on `ready`, and waits for a byte on `go`.
template <class Open, class Drain>
double drain_in_processes(std::size_t consumers, Open open, Drain drain_one) {
    int ready[2];
    int go[2];
    if (::pipe(ready) != 0 || ::pipe(go) != 0) {
        std::perror("pipe");
        std::exit(1);
    }
    std::fflush(nullptr);
    std::vector<pid_t> children;
    for (std::size_t c = 0; c < consumers; ++c) {
        const pid_t pid = ::fork();
        if (pid < 0) {
            std::perror("fork");
            std::exit(1);
        }
        if (pid == 0) {
            int code = 0;
            try {
                auto queue = open();
                char byte = 1;
                if (::write(ready[1], &byte, 1) != 1 || ::read(go[0], &byte, 1) != 1) throw std::runtime_error("start pipe");
                drain_one(queue);
            } catch (const std::exception& error) {
                std::fprintf(stderr, "consumer process: %s\n", error.what());
                code = 1;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    char byte = 1;
    for (std::size_t c = 0; c < consumers; ++c)
        if (::read(ready[0], &byte, 1) != 1) std::perror("read");
    const auto began = Clock::now();
    for (std::size_t c = 0; c < consumers; ++c)
        if (::write(go[1], &byte, 1) != 1) std::perror("write");
    for (const pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::fprintf(stderr, "warning: a consumer process failed\n");
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
    for (const int fd : {ready[0], ready[1], go[0], go[1]}) ::close(fd);
    return seconds;
}

template <class Open, class Drain>
double drain(std::size_t consumers, bool processes, Open open, Drain drain_one) {
    return processes ? drain_in_processes(consumers, open, drain_one) : drain_in_threads(consumers, open, drain_one);
}

// Writes `tasks` tasks into `queue` through the producer's own sink, at the server ROWPUMP_MYSQL_URL or
// ROWPUMP_REDIS_URL (`url_variable`) names.
void fill_queue(const char* url_variable, const std::string& queue, int tasks) {
    SinkSpec spec;
    spec.uri = std::getenv(url_variable);
    spec.queue = queue;
    make_sink(spec)->write(messages(tasks));
}

// A consumer's whole work here, either backend: claim a batch and ack it until the queue is empty; acks
// that found their claim gone are counted in stale_acks().
template <class Queue>
void claim_and_ack_until_empty(Queue& queue, std::size_t batch) {
    for (auto claimed = queue.claim(batch); !claimed.empty(); claimed = queue.claim(batch))
        stale_acks() += queue.ack(claimed).size();
}

// One timed drain of the queue, either backend: wall seconds, the server's CPU seconds (`server_cpu` reads
// its total) and this process's, and the acks that found their claim gone. `drain_one` counts those in
// stale_acks(), which consumer processes share.
template <class ServerCpu, class Open, class Drain>
Run measured_drain(ServerCpu server_cpu, std::size_t consumers, bool processes, Open open, Drain drain_one) {
    std::atomic<std::uint64_t>& stale = stale_acks();
    stale = 0;
    const double server_before = server_cpu();
    const double client_before = process_cpu_seconds();
    Run run;
    run.seconds = drain(consumers, processes, open, drain_one);
    run.server_cpu = server_cpu() - server_before;
    run.client_cpu = process_cpu_seconds() - client_before;
    run.stale = stale;
    return run;
}

Run mysql_run(const MySqlOptions& options, ClaimMode mode, std::size_t batch, std::size_t consumers, int tasks,
              bool processes) {
    mysql::Connection admin(options);
    admin.execute_text("TRUNCATE TABLE " + mysql::quote_identifier(bench_table));
    fill_queue("ROWPUMP_MYSQL_URL", bench_table, tasks);

    MySqlQueueOptions queue_options;
    queue_options.table = bench_table;
    queue_options.claim_mode = mode;
    const auto before = innodb_deadlocks(admin);
    const long server = mariadb_pid(admin);
    Run run = measured_drain(
        [&] { return proc_cpu_seconds(server); }, consumers, processes,
        [&] { return MySqlQueue(options, queue_options); },
        [&](MySqlQueue& queue) { claim_and_ack_until_empty(queue, batch); });
    run.deadlocks = innodb_deadlocks(admin) - before;
    auto left = admin.query("SELECT COUNT(*) FROM " + mysql::quote_identifier(bench_table) + " WHERE status <> 'done'");
    left.next();
    if (left.uint64(1) != 0) std::fprintf(stderr, "warning: %llu tasks not done after a run\n",
                                              static_cast<unsigned long long>(left.uint64(1)));
    return run;
}

Run redis_run(const RedisOptions& options, std::size_t batch, std::size_t consumers, int tasks, bool processes) {
    redis::Connection admin(options);
    admin.command({"DEL", bench_queue});
    fill_queue("ROWPUMP_REDIS_URL", bench_queue, tasks);

    RedisQueueOptions queue_options;
    queue_options.queue = bench_queue;
    return measured_drain(
        [&] { return redis_cpu_seconds(admin); }, consumers, processes,
        [&] { return RedisQueue(options, queue_options); },
        [&](RedisQueue& queue) {
            claim_and_ack_until_empty(queue, batch);
            queue.leave();  // a clean goodbye: the maintenance finds no silent consumer to recover
        });
}

Run median(std::vector<Run> runs) {
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
    return runs[runs.size() / 2];
}

void print_row(const char* backend, const char* mode, std::size_t batch, std::size_t consumers, bool processes, int tasks,
               const Run& run, bool mysql) {
    const double per_thousand = 1000.0 / tasks * 1000.0;  // CPU seconds per task -> ms per 1000 tasks
    const std::string who = std::to_string(consumers) + (processes ? " processes" : "");
    std::printf("| %s | %s | %zu | %s | %d | %.2f | %.0f | %.0f | %.0f | %s | %llu |\n", backend, mode, batch, who.c_str(),
                tasks, run.seconds, tasks / run.seconds, run.server_cpu * per_thousand, run.client_cpu * per_thousand,
                mysql ? std::to_string(run.deadlocks).c_str() : "-", static_cast<unsigned long long>(run.stale));
    std::fflush(stdout);
}

Settings parse(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--processes") {
            settings.processes = true;
            --i;  // takes no value
            continue;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s needs a value\n", flag.c_str());
            std::exit(2);
        }
        if (flag == "--tasks") settings.tasks = std::atoi(argv[i + 1]);
        else if (flag == "--tasks-batch1") settings.tasks_batch1 = std::atoi(argv[i + 1]);
        else if (flag == "--runs") settings.runs = std::max(1, std::atoi(argv[i + 1]));
        else if (flag == "--only") settings.only = argv[i + 1];
        else if (flag == "--batch") settings.batch = static_cast<std::size_t>(std::atoi(argv[i + 1]));
        else if (flag == "--consumers") settings.consumers = static_cast<std::size_t>(std::atoi(argv[i + 1]));
        else {
            std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
            std::exit(2);
        }
    }
    return settings;
}

}  // namespace

int main(int argc, char** argv) {
    const Settings settings = parse(argc, argv);
    const char* mysql_url = std::getenv("ROWPUMP_MYSQL_URL");
    const char* redis_url = std::getenv("ROWPUMP_REDIS_URL");
    if (!mysql_url || !redis_url) {
        std::fprintf(stderr, "set ROWPUMP_MYSQL_URL and ROWPUMP_REDIS_URL: eval \"$(scripts/services.sh env)\"\n");
        return 2;
    }
    std::printf("| backend | claim | batch | consumers | tasks | seconds | tasks/s | server CPU ms/1k tasks | "
                "client CPU ms/1k tasks | deadlocks | stale acks |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");

    if (settings.only.empty() || settings.only == "mysql") {
        const auto options = MySqlOptions::from_url(mysql_url);
        mysql::Connection admin(options);
        admin.execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(bench_table));
        mysql::create_queue_table(admin, bench_table);
        for (const ClaimMode mode : {ClaimMode::update_then_select, ClaimMode::skip_locked}) {
            for (const std::size_t batch : {std::size_t{1}, std::size_t{100}}) {
                for (const std::size_t consumers : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
                    if (!settings.wants(batch, consumers)) continue;
                    const int tasks = batch == 1 ? settings.tasks_batch1 : settings.tasks;
                    std::vector<Run> runs;
                    for (int r = 0; r < settings.runs; ++r) runs.push_back(mysql_run(options, mode, batch, consumers, tasks, settings.processes));
                    print_row("MySQL", mode == ClaimMode::skip_locked ? "skip locked" : "update then select", batch,
                              consumers, settings.processes, tasks, median(runs), true);
                }
            }
        }
        admin.execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(bench_table));
    }
    if (settings.only.empty() || settings.only == "redis") {
        const auto options = RedisOptions::from_url(redis_url);
        for (const std::size_t batch : {std::size_t{1}, std::size_t{100}}) {
            for (const std::size_t consumers : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
                if (!settings.wants(batch, consumers)) continue;
                const int tasks = batch == 1 ? settings.tasks_batch1 * 4 : settings.tasks * 4;
                std::vector<Run> runs;
                for (int r = 0; r < settings.runs; ++r) runs.push_back(redis_run(options, batch, consumers, tasks, settings.processes));
                print_row("Redis", "reliable pop", batch, consumers, settings.processes, tasks, median(runs), false);
            }
        }
        redis::Connection admin(options);
        admin.command({"DEL", bench_queue, std::string(bench_queue) + ":consumers"});
    }
    return 0;
}
