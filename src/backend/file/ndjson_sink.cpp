// NDJSON: one payload per line, to stdout or a file.
//
// Every worker opens its own sink, but lines from two workers must never interleave, so all sinks of one
// process that name the same target share one stream: a process-wide registry keyed by the file's
// canonical path (or "stdout") hands out the stream, and write() holds the stream's mutex for the whole
// batch. A file is truncated the first time this process writes to it and appended to ever after, even
// when every sink on it has been closed in between: a worker that starts late must not wipe what an early
// one (already finished) wrote. A regular file that was there before is someone's data: it is only
// truncated when the spec says overwrite, and only once a sink is made for writing: the run's early check
// of its target (check_ndjson_target) touches nothing, so that a run refused after it (a bad plan, a bad
// flag: exit 2) leaves the file as it was.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "rowpump/error.hpp"
#include "backend/file/ndjson_sink.hpp"

namespace rowpump {

namespace {

class SharedStream {
public:
    // stdout.
    SharedStream() : file_(stdout), name_("stdout") {}
    // A file, opened by open(): truncated when `truncate_first` says this process has
    // not opened it yet, appended to otherwise.
    SharedStream(std::string path, std::function<bool()> truncate_first)
        : name_("file:" + path), path_(std::move(path)), truncate_first_(std::move(truncate_first)) {}
    ~SharedStream() {
        if (!path_.empty() && file_ != nullptr) std::fclose(file_);
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

    // Opens the file now: a worker's sink truncates it as it starts, not on the writer thread under its
    // first page (a 250 MB file took 48 ms there, and the pipeline stood still meanwhile).
    void open() {
        const std::lock_guard lock(mutex_);
        if (file_ == nullptr) open_file();
    }

    const std::string& name() const { return name_; }

private:
    // An owned file gets a 1 MiB buffer of its own: glibc ignores setvbuf's size when it allocates the
    // buffer itself, and its 4 KiB default made 54,000 write(2) calls for a 1M-row table, a third of the
    // client's CPU spent in the file system's per-call work (mydumper makes 219 for the same bytes).
    void open_file() {
        // Truncated through a descriptor of its own, then appended to: ext4 flushes a file on the close of
        // the descriptor that truncated it (auto_da_alloc, against empty files after a crash), and on
        // an overwritten 250 MB file that made the last close cost a 1M-row backfill 1.2x its wall time.
        // "e": close-on-exec, so child processes do not inherit the file.
        if (truncate_first_()) {
            std::FILE* truncated = std::fopen(path_.c_str(), "wbe");
            if (truncated == nullptr)
                throw QueueError("cannot open NDJSON file '" + path_ + "': " + std::strerror(errno), false);
            std::fclose(truncated);
        }
        file_ = std::fopen(path_.c_str(), "abe");
        if (file_ == nullptr)
            throw QueueError("cannot open NDJSON file '" + path_ + "': " + std::strerror(errno), false);
        buffer_ = std::make_unique<char[]>(buffer_size);
        std::setvbuf(file_, buffer_.get(), _IOFBF, buffer_size);
    }

    [[noreturn]] void fail() {
        const int error = errno;
        std::clearerr(file_);
        throw QueueError("cannot write to " + name_ + ": " + std::strerror(error), false);
    }

    static constexpr std::size_t buffer_size = std::size_t{1} << 20;

    std::mutex mutex_;
    std::FILE* file_ = nullptr;  // a file's, once open() opened it
    std::string name_;
    std::string path_;  // empty for stdout
    std::function<bool()> truncate_first_;
    std::unique_ptr<char[]> buffer_;  // released after fclose, which flushes from it
};

class StreamRegistry {
public:
    // The file's stream, checked as writing will need it: refused when the file exists and the spec does
    // not say overwrite, or when it cannot be written.
    std::shared_ptr<SharedStream> open(const std::string& path, bool overwrite) {
        const std::lock_guard lock(mutex_);
        if (path.empty()) return stdout_stream();
        const std::string key = key_of(path);
        if (auto open = streams_[key].lock()) return open;
        if (!written_.contains(key)) check_writable(path, overwrite);
        auto stream = std::make_shared<SharedStream>(path, [this, key] { return first_open(key); });
        streams_[key] = stream;
        return stream;
    }

    // The same checks, without making a stream: nothing is opened.
    void check(const std::string& path, bool overwrite) {
        const std::lock_guard lock(mutex_);
        if (path.empty()) return;
        const std::string key = key_of(path);
        if (!streams_[key].lock() && !written_.contains(key)) check_writable(path, overwrite);
    }

private:
    static std::string key_of(const std::string& path) {
        std::error_code ignored;
        return std::filesystem::weakly_canonical(std::filesystem::absolute(path), ignored).string();
    }

    static void check_writable(const std::string& path, bool overwrite) {
        std::error_code error;
        const bool exists = std::filesystem::exists(path, error);
        if (exists && !overwrite && std::filesystem::is_regular_file(path, error))
            throw UsageError("NDJSON file '" + path + "' already exists: remove it, or pass --overwrite (in a job "
                             "file, sink.overwrite: true) to replace it");
        if (exists && std::filesystem::is_directory(path, error))
            throw UsageError("cannot open NDJSON file '" + path + "': " + std::strerror(EISDIR));
        const std::filesystem::path parent = std::filesystem::absolute(path).parent_path();
        if (::access(exists ? path.c_str() : parent.c_str(), W_OK) != 0)
            throw UsageError("cannot open NDJSON file '" + path + "': " + std::strerror(errno));
    }

    // Whether this is the process's first opening of the file `key` (which then truncates it).
    bool first_open(const std::string& key) {
        const std::lock_guard lock(mutex_);
        return written_.insert(key).second;
    }

    std::shared_ptr<SharedStream> stdout_stream() {
        static const auto stream = std::make_shared<SharedStream>();
        return stream;
    }

    std::mutex mutex_;
    std::map<std::string, std::weak_ptr<SharedStream>> streams_;
    std::set<std::string> written_;
};

StreamRegistry& registry() {
    static StreamRegistry instance;
    return instance;
}

class NdjsonSink final : public Sink {
public:
    explicit NdjsonSink(std::shared_ptr<SharedStream> stream) : stream_(std::move(stream)) { stream_->open(); }

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

void check_ndjson_target(const std::string& path, bool overwrite) { registry().check(path, overwrite); }

}  // namespace rowpump
