#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "rowpump/error.hpp"
#include "error_of.hpp"
#include "rowpump/sink.hpp"

namespace rowpump {
namespace {

void expect_usage_error(const SinkSpec& spec, const std::string& mentions) {
    try {
        make_sink(spec);
        ADD_FAILURE() << "no UsageError for sink '" << spec.uri << "'";
    } catch (const UsageError& error) {
        EXPECT_NE(std::string(error.what()).find(mentions), std::string::npos)
            << "message: " << error.what() << "\nexpected it to mention: " << mentions;
    }
}

TEST(SinkUri, UnknownSchemesListTheAcceptedForms) {
    for (const char* uri : {"", "ftp://host/x", "memcache://127.0.0.1:6379/0", "kafka://broker", "stdout2", "/tmp/x"}) {
        SinkSpec spec;
        spec.uri = uri;
        spec.queue = "q";
        expect_usage_error(spec, "expected stdout, file:PATH, redis://");
    }
}

TEST(SinkUri, ErrorsNeverShowThePassword) {
    SinkSpec spec;
    spec.uri = "postgres://user:hunter2@db/x";
    const std::string message = test::error_of<UsageError>([&] { make_sink(spec); });
    EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
}

TEST(SinkUri, FileWithoutPathIsRefused) {
    SinkSpec spec;
    spec.uri = "file:";
    expect_usage_error(spec, "file:PATH");
}

// The queue is checked before any connection is tried (port 1 never answers).
TEST(SinkUri, RedisAndMySqlNeedAQueue) {
    for (const char* uri : {"redis://127.0.0.1:1/0", "mysql://u:secret@127.0.0.1:1/db", "mariadb://u@127.0.0.1:1/db"}) {
        SinkSpec spec;
        spec.uri = uri;
        expect_usage_error(spec, "--queue");
    }
}

TEST(SinkUri, MySqlQueueTableNameIsChecked) {
    SinkSpec spec;
    spec.uri = "mysql://u:p@127.0.0.1:1/db";
    spec.queue = std::string(65, 'q');
    expect_usage_error(spec, "at most 64");
}

TEST(SinkUri, PriorityListsMustBeDistinct) {
    for (const char* uri : {"redis://127.0.0.1:1/0", "mysql://u:p@127.0.0.1:1/db"}) {
        SinkSpec spec;
        spec.uri = uri;
        spec.queue = "q";
        spec.priority_lists = {"high", "low", "high"};
        expect_usage_error(spec, "named twice");
    }
}

TEST(SinkUri, MalformedRedisUrlIsAUsageError) {
    SinkSpec spec;
    spec.uri = "redis://127.0.0.1:notaport/0";
    spec.queue = "q";
    expect_usage_error(spec, "invalid port");
}

// A temporary file, removed when the test ends.
class TempFile {
public:
    explicit TempFile(const std::string& name)
        : path_(std::filesystem::temp_directory_path() /
                ("rowpump_sink_test_" + std::to_string(::getpid()) + "_" + name + ".ndjson")) {}
    ~TempFile() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    std::string path() const { return path_.string(); }
    std::vector<std::string> lines() const {
        std::ifstream in(path_);
        std::vector<std::string> out;
        for (std::string line; std::getline(in, line);) out.push_back(line);
        return out;
    }

private:
    std::filesystem::path path_;
};

std::vector<Message> batch_of(const std::string& prefix, int count) {
    std::vector<Message> batch;
    for (int i = 0; i < count; ++i) batch.push_back({prefix + std::to_string(i), 0, 0});
    return batch;
}

TEST(NdjsonSink, AnExistingFileIsRefusedAndLeftAsItWas) {
    TempFile file("existing");
    std::ofstream(file.path()) << "someone's data\n";
    SinkSpec spec;
    spec.uri = "file:" + file.path();
    try {
        make_sink(spec);
        ADD_FAILURE() << "an existing file was opened for writing without overwrite";
    } catch (const UsageError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(file.path()), std::string::npos) << message;
        EXPECT_NE(message.find("--overwrite"), std::string::npos) << message;
    }
    EXPECT_EQ(file.lines(), (std::vector<std::string>{"someone's data"}));
}

TEST(NdjsonSink, DevicesNeedNoOverwrite) {
    SinkSpec spec;
    spec.uri = "file:/dev/null";
    EXPECT_NO_THROW(make_sink(spec)->write({{R"({"id":1})", 0, 0}}));
}

TEST(NdjsonSink, WritesOnePayloadPerLineAndWithOverwriteTruncatesOnFirstOpen) {
    TempFile file("lines");
    std::ofstream(file.path()) << "stale line from an earlier run\n";
    SinkSpec spec;
    spec.uri = "file:" + file.path();
    spec.overwrite = true;
    auto sink = make_sink(spec);
    EXPECT_EQ(sink->ready_count(), std::nullopt);
    EXPECT_NE(sink->describe().find(file.path()), std::string::npos);
    sink->write({{R"({"id":1})", 0, 0}, {R"({"id":2,"s":"a b"})", 0, 0}});
    sink->write({});
    sink->write({{R"({"id":3})", 0, 0}});
    EXPECT_EQ(file.lines(), (std::vector<std::string>{R"({"id":1})", R"({"id":2,"s":"a b"})", R"({"id":3})"}));
}

TEST(NdjsonSink, ReopeningInTheSameProcessAppends) {
    TempFile file("reopen");
    SinkSpec spec;
    spec.uri = "file:" + file.path();
    make_sink(spec)->write(batch_of("first-", 2));
    make_sink(spec)->write(batch_of("second-", 1));
    EXPECT_EQ(file.lines(), (std::vector<std::string>{"first-0", "first-1", "second-0"}));
}

TEST(NdjsonSink, WorkersShareTheFileAndBatchesNeverInterleave) {
    TempFile file("workers");
    SinkSpec spec;
    spec.uri = "file:" + file.path();
    constexpr int workers = 8, batches = 50, per_batch = 40;
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
        threads.emplace_back([&, w] {
            auto sink = make_sink(spec);
            for (int b = 0; b < batches; ++b)
                sink->write(batch_of("w" + std::to_string(w) + "b" + std::to_string(b) + "-", per_batch));
        });
    }
    for (auto& thread : threads) thread.join();

    const auto lines = file.lines();
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(workers * batches * per_batch));
    std::map<std::string, int> batches_seen;
    for (std::size_t i = 0; i < lines.size(); i += per_batch) {
        const std::string prefix = lines[i].substr(0, lines[i].find('-') + 1);
        for (int k = 0; k < per_batch; ++k) ASSERT_EQ(lines[i + k], prefix + std::to_string(k)) << "line " << i + k;
        ++batches_seen[prefix];
    }
    EXPECT_EQ(batches_seen.size(), static_cast<std::size_t>(workers * batches));
}

TEST(NdjsonSink, UnwritableFileIsAUsageError) {
    SinkSpec spec;
    spec.uri = "file:/nonexistent-dir-rowpump/x.ndjson";
    expect_usage_error(spec, "cannot open");
}

}  // namespace
}  // namespace rowpump
