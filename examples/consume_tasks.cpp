// A program that runs its own consumers: it enqueues tasks, then consumes them with a handler until the
// queue is drained, and checks that each task was done exactly once.
//
//   consume_tasks QUEUE
// Pushes 100 tasks {"task":N} into the Redis queue QUEUE (ROWPUMP_REDIS_URL), then consumes them on 3
// workers. The handler asks for a retry of every tenth task on its first delivery, gives task 7 up as
// dead, and does the rest. Prints one line with the counts; exits 1 when a task was not done exactly once.
#include <rowpump/consumer.hpp>
#include <rowpump/enqueue.hpp>
#include <rowpump/error.hpp>
#include <rowpump/log.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int task_count = 100;

// {"task":N} -> N; -1 when the payload is not one of ours.
int task_number(std::string_view payload) {
    const std::string_view prefix = "{\"task\":";
    if (payload.substr(0, prefix.size()) != prefix) return -1;
    return std::atoi(std::string(payload.substr(prefix.size())).c_str());
}

}  // namespace

int main(int argc, char** argv) {
    const char* redis_url = std::getenv("ROWPUMP_REDIS_URL");
    if (argc != 2 || !redis_url) {
        std::fprintf(stderr, "usage: ROWPUMP_REDIS_URL=redis://HOST:PORT/DB consume_tasks QUEUE\n");
        return 2;
    }
    // rowpump writes nothing by itself: its warnings and errors go where the program says.
    rowpump::set_log_level(rowpump::LogLevel::warning);
    rowpump::set_log_handler([](rowpump::LogLevel level, std::string_view message) {
        std::fprintf(stderr, "rowpump: %s: %.*s\n", rowpump::to_string(level).data(), static_cast<int>(message.size()),
                     message.data());
    });
    try {
        rowpump::BulkEnqueuer enqueuer(rowpump::SinkSpec::redis(rowpump::RedisOptions::from_url(redis_url), argv[1]));
        for (int i = 0; i < task_count; ++i) enqueuer.push("{\"task\":" + std::to_string(i) + "}");
        enqueuer.flush();

        rowpump::ConsumerOptions options;
        options.source = rowpump::QueueSource::from_url(redis_url, argv[1]);  // the URL's scheme picks the backend
        options.workers = 3;
        options.batch = 5;
        options.until_empty = true;  // stop once every task has been run (retries included)

        std::mutex mutex;
        std::vector<int> done(task_count, 0);
        const auto handler = [&](const rowpump::TaskContext& task) {
            const int n = task_number(task.payload);
            if (n < 0 || n >= task_count) return rowpump::TaskResult::dead("not a task of this example");
            if (n == 7) return rowpump::TaskResult::dead("task 7 is given up on purpose");
            if (n % 10 == 0 && task.attempt == 1) return rowpump::TaskResult::retry(std::chrono::milliseconds(50));
            const std::lock_guard lock(mutex);
            ++done[static_cast<std::size_t>(n)];
            return rowpump::TaskResult::ok();
        };
        const rowpump::ConsumerReport report = rowpump::run_consumers(options, handler);

        int done_once = 0;
        for (int i = 0; i < task_count; ++i) done_once += (done[static_cast<std::size_t>(i)] == 1);
        std::printf("consumed %d tasks: %llu done, %llu retried, %llu dead, %d done exactly once, %s\n", task_count,
                    static_cast<unsigned long long>(report.done), static_cast<unsigned long long>(report.retried),
                    static_cast<unsigned long long>(report.dead), done_once,
                    report.drained ? "queue drained" : "queue not drained");
        return done_once == task_count - 1 && done[7] == 0 && report.drained ? 0 : 1;
    } catch (const rowpump::Error& error) {
        std::fprintf(stderr, "consume_tasks: %s\n", error.what());
        return static_cast<int>(error.exit_code());
    }
}
