#include "backend/file/file_backend.hpp"

#include "backend/file/ndjson_sink.hpp"
#include "url.hpp"

namespace rowpump {

namespace {

class StdoutBackend final : public Backend {
public:
    StdoutBackend() : Backend({.form = "stdout", .what = "stdout", .traits = {.worker_formats = true}}) {}
    void parse_target(const SinkSpec&) const override {}
    std::unique_ptr<Sink> make_sink(const SinkSpec&) const override { return make_ndjson_sink("", false); }
    void check_sink(const SinkSpec&) const override {}
};

class FileBackend final : public Backend {
public:
    FileBackend()
        : Backend({.form = "file:PATH", .what = "a file", .traits = {.worker_formats = true, .replaces_files = true}}) {}
    void parse_target(const SinkSpec& spec) const override { target_file_path(spec.uri); }
    std::unique_ptr<Sink> make_sink(const SinkSpec& spec) const override {
        return make_ndjson_sink(target_file_path(spec.uri), spec.overwrite);
    }
    // The file is opened (and so truncated) only when the workers start, after every other check.
    void check_sink(const SinkSpec& spec) const override {
        check_ndjson_target(target_file_path(spec.uri), spec.overwrite);
    }
};

}  // namespace

const Backend& stdout_backend() { return the_backend<StdoutBackend>(); }

const Backend& file_backend() { return the_backend<FileBackend>(); }

}  // namespace rowpump
