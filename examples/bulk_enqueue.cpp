// Two ways a program uses rowpump: bulk-enqueue its own tasks, and run a backfill job built in code.
//
//   bulk_enqueue QUEUE [TABLE]
// Pushes 1000 tasks into the Redis list QUEUE (ROWPUMP_REDIS_URL); with TABLE, also streams that table
// (ROWPUMP_MYSQL_URL) into QUEUE:rows with a progress callback. Prints what it did, one line each.
#include <rowpump/enqueue.hpp>
#include <rowpump/error.hpp>
#include <rowpump/job.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    const char* redis_url = std::getenv("ROWPUMP_REDIS_URL");
    if (argc < 2 || !redis_url) {
        std::fprintf(stderr, "usage: ROWPUMP_REDIS_URL=redis://HOST:PORT/DB bulk_enqueue QUEUE [TABLE]\n");
        return 2;
    }
    try {
        rowpump::SinkSpec sink;
        sink.uri = redis_url;
        sink.queue = argv[1];
        rowpump::BulkEnqueuer enqueuer(sink, 250);
        for (int i = 0; i < 1000; ++i) enqueuer.push("{\"task\":" + std::to_string(i) + "}");
        enqueuer.flush();
        std::printf("enqueued %llu tasks\n", static_cast<unsigned long long>(enqueuer.written()));

        if (argc > 2) {
            rowpump::JobSpec job;
            job.mysql = rowpump::MySqlOptions::from_env();
            job.read.table = argv[2];
            job.workers = 2;
            job.sink.uri = redis_url;
            job.sink.queue = std::string(argv[1]) + ":rows";
            rowpump::JobControl control;
            control.on_progress = [](const rowpump::JobProgress& progress) {
                std::fprintf(stderr, "progress: %llu rows\n", static_cast<unsigned long long>(progress.rows_written));
            };
            const rowpump::JobSummary summary = rowpump::run_job(job, control);
            std::printf("job wrote %llu rows\n", static_cast<unsigned long long>(summary.rows_written));
        }
    } catch (const rowpump::Error& error) {
        std::fprintf(stderr, "bulk_enqueue: %s\n", error.what());
        return static_cast<int>(error.exit_code());
    }
    return 0;
}
