// Writing batches to the sinks: one batch is 1000 JSON payloads of about 200 bytes; the counter is
// messages per second (wall clock). The naive Redis case (one RPUSH round trip per message) is the
// baseline the pipelined variadic write is measured against.
//
// Needs the local servers (ROWPUMP_REDIS_URL, ROWPUMP_MYSQL_URL); a benchmark whose server is not
// configured is skipped with a hint. Keys are rp_bench:* and the table rp_bench_sink_*, removed after.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "mysql/connection.hpp"
#include "redis/connection.hpp"
#include "rowpump/options.hpp"
#include "rowpump/sink.hpp"

namespace {

using namespace rowpump;

constexpr int batch_size = 1000;

const char* env(const char* name) {
    const char* value = std::getenv(name);
    return value && *value ? value : nullptr;
}

std::vector<Message> sample_batch(std::int64_t due_ms = 0) {
    std::vector<Message> batch;
    for (int i = 0; i < batch_size; ++i) {
        std::string payload = R"({"id":)" + std::to_string(i) + R"(,"k":)" + std::to_string(i * 7919 % 100000) +
                              R"(,"c":")" + std::string(150, 'c') + R"("})";
        batch.push_back({std::move(payload), 0, due_ms > 0 ? due_ms + i : 0});
    }
    return batch;
}

std::string bench_key(const char* name) { return std::string("rp_bench:") + name + ":" + std::to_string(::getpid()); }

void redis_sink(benchmark::State& state, std::int64_t due_ms) {
    const char* url = env("ROWPUMP_REDIS_URL");
    if (!url) return state.SkipWithError("ROWPUMP_REDIS_URL is not set: eval \"$(bash scripts/services.sh env)\"");
    SinkSpec spec;
    spec.uri = url;
    spec.queue = bench_key(due_ms > 0 ? "delayed" : "ready");
    redis::Connection cleanup(RedisOptions::from_url(url));
    auto sink = make_sink(spec);
    const auto batch = sample_batch(due_ms);
    for (auto _ : state) {
        sink->write(batch);
        state.PauseTiming();
        cleanup.command({"DEL", spec.queue, spec.queue + ":delayed"});
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * batch_size);
}

void BM_RedisSinkReady(benchmark::State& state) { redis_sink(state, 0); }
void BM_RedisSinkDelayed(benchmark::State& state) { redis_sink(state, 1'900'000'000'000); }

void BM_RedisOnePushPerMessage(benchmark::State& state) {
    const char* url = env("ROWPUMP_REDIS_URL");
    if (!url) return state.SkipWithError("ROWPUMP_REDIS_URL is not set: eval \"$(bash scripts/services.sh env)\"");
    redis::Connection connection(RedisOptions::from_url(url));
    const std::string key = bench_key("naive");
    const auto batch = sample_batch();
    for (auto _ : state) {
        for (const auto& message : batch) connection.command({"RPUSH", key, message.payload});
        state.PauseTiming();
        connection.command({"DEL", key});
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * batch_size);
}

void BM_MySqlQueueSink(benchmark::State& state) {
    const char* url = env("ROWPUMP_MYSQL_URL");
    if (!url) return state.SkipWithError("ROWPUMP_MYSQL_URL is not set: eval \"$(bash scripts/services.sh env)\"");
    const std::string table = "rp_bench_sink_" + std::to_string(::getpid());
    mysql::Connection cleanup(MySqlOptions::from_url(url));
    cleanup.execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(table));
    {
        SinkSpec spec;
        spec.uri = url;
        spec.queue = table;
        auto sink = make_sink(spec);
        const auto batch = sample_batch();
        for (auto _ : state) sink->write(batch);
        state.SetItemsProcessed(state.iterations() * batch_size);
    }
    cleanup.execute_text("DROP TABLE IF EXISTS " + mysql::quote_identifier(table));
}

void BM_NdjsonSinkDevNull(benchmark::State& state) {
    SinkSpec spec;
    spec.uri = "file:/dev/null";
    auto sink = make_sink(spec);
    const auto batch = sample_batch();
    for (auto _ : state) sink->write(batch);
    state.SetItemsProcessed(state.iterations() * batch_size);
}

BENCHMARK(BM_RedisSinkReady)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RedisSinkDelayed)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RedisOnePushPerMessage)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MySqlQueueSink)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NdjsonSinkDevNull)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
