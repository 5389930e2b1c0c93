// NDJSON: one payload per line, to stdout or a file.
//
// Every worker opens its own sink, but lines from two workers must never interleave, so all sinks of one
// process that name the same target share one stream: a process-wide registry keyed by the file's
// canonical path (or "stdout") hands out the stream, and write() holds the stream's mutex for the whole
// batch. A file is truncated the first time this process opens it and appended to ever after, even when
// every sink on it has been closed in between: a worker that starts late must not wipe what an early one
// (already finished) wrote. A regular file that was there before the first open is someone's data: it is
// only truncated when the spec says overwrite.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "rowpump/error.hpp"
#include "sink/sinks.hpp"

namespace rowpump {

namespace {

class SharedStream {
public:
    // An owned file gets a 1 MiB buffer of its own: glibc ignores setvbuf's size when it allocates the
    // buffer itself, and its 4 KiB default made 54,000 write(2) calls for a 1M-row table, a third of the
    // client's CPU spent in the file system's per-call work (mydumper makes 219 for the same bytes).
    SharedStream(std::FILE* file, std::string name, bool owned) : file_(file), name_(std::move(name)), owned_(owned) {
        if (owned_) {
            buffer_ = std::make_unique<char[]>(buffer_size);
            std::setvbuf(file_, buffer_.get(), _IOFBF, buffer_size);
        }
    }
    ~SharedStream() {
        if (owned_) std::fclose(file_);
    }
    SharedStream(const SharedStream&) = delete;
    SharedStream& operator=(const SharedStream&) = delete;

    // Flushing after each batch makes the lines visible to a reader (a pipe, `tail -f`) as they are written
    // and reports a full disk in the write() that caused it, not at exit.
    void write(const std::vector<Message>& batch) {
        const std::lock_guard lock(mutex_);
        // stdio's own lock once per batch, not twice per line (fwrite and fputc each took it): stdio was
        // 5.1% of a one-worker file backfill's client profile, 1.7% this way.
        flockfile(file_);
        bool written = true;
        for (const Message& message : batch) {
            if (fwrite_unlocked(message.payload.data(), 1, message.payload.size(), file_) != message.payload.size() ||
                putc_unlocked('\n', file_) == EOF) {
                written = false;
                break;
            }
        }
        funlockfile(file_);
        if (!written) fail();
        if (std::fflush(file_) != 0) fail();
    }

    const std::string& name() const { return name_; }

private:
    [[noreturn]] void fail() {
        const int error = errno;
        std::clearerr(file_);
        throw QueueError("cannot write to " + name_ + ": " + std::strerror(error), false);
    }

    static constexpr std::size_t buffer_size = std::size_t{1} << 20;

    std::mutex mutex_;
    std::FILE* file_;
    std::string name_;
    bool owned_;
    std::unique_ptr<char[]> buffer_;  // released after fclose, which flushes from it
};

class StreamRegistry {
public:
    std::shared_ptr<SharedStream> open(const std::string& path, bool overwrite) {
        const std::lock_guard lock(mutex_);
        if (path.empty()) return stdout_stream();
        std::error_code ignored;
        const std::string key = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ignored).string();
        if (auto open = streams_[key].lock()) return open;
        const bool first_time = opened_.insert(key).second;
        if (first_time && !overwrite && std::filesystem::is_regular_file(path, ignored)) {
            opened_.erase(key);
            throw UsageError("NDJSON file '" + path + "' already exists: remove it, or pass --overwrite (in a job "
                             "file, sink.overwrite: true) to replace it");
        }
        // "e": close-on-exec, so child processes do not inherit the file.
        std::FILE* file = std::fopen(path.c_str(), first_time ? "wbe" : "abe");
        if (file == nullptr) {
            if (first_time) opened_.erase(key);
            throw UsageError("cannot open NDJSON file '" + path + "': " + std::strerror(errno));
        }
        auto stream = std::make_shared<SharedStream>(file, "file:" + path, true);
        streams_[key] = stream;
        return stream;
    }

private:
    std::shared_ptr<SharedStream> stdout_stream() {
        static const auto stream = std::make_shared<SharedStream>(stdout, "stdout", false);
        return stream;
    }

    std::mutex mutex_;
    std::map<std::string, std::weak_ptr<SharedStream>> streams_;
    std::set<std::string> opened_;
};

StreamRegistry& registry() {
    static StreamRegistry instance;
    return instance;
}

class NdjsonSink final : public Sink {
public:
    explicit NdjsonSink(std::shared_ptr<SharedStream> stream) : stream_(std::move(stream)) {}

    void write(const std::vector<Message>& batch) override { stream_->write(batch); }
    std::optional<std::uint64_t> ready_count() override { return std::nullopt; }
    std::string describe() const override { return stream_->name() + " (NDJSON)"; }

private:
    std::shared_ptr<SharedStream> stream_;
};

}  // namespace

std::unique_ptr<Sink> make_ndjson_sink(const std::string& path, bool overwrite) {
    return std::make_unique<NdjsonSink>(registry().open(path, overwrite));
}

}  // namespace rowpump
