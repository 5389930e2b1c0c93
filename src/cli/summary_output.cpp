#include "cli/summary_output.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "cli/json_key.hpp"
#include "config/option_error.hpp"
#include "log.hpp"
#include "rowpump/error.hpp"

namespace rowpump::cli {

namespace {

std::string bound_text(const std::optional<KeyValue>& bound, const char* open) {
    return bound ? to_string(*bound) : open;
}

double rows_per_second(const JobSummary& summary) {
    return summary.seconds > 0 ? static_cast<double>(summary.rows_written) / summary.seconds : 0;
}

}  // namespace

void print_summary(const JobSummary& summary) {
    if (!log().should_log(spdlog::level::info)) return;  // -q: errors only
    if (summary.already_finished) {
        std::fprintf(stderr, "rowpump: the job had already finished (%llu rows written); nothing to do\n",
                     static_cast<unsigned long long>(summary.rows_done_before));
        return;
    }
    if (summary.rows_done_before > 0)
        std::fprintf(stderr, "rowpump: resumed: %llu rows had been written by earlier runs\n",
                     static_cast<unsigned long long>(summary.rows_done_before));
    std::fprintf(stderr, "rowpump: %s: %llu rows read, %llu written in %.2f s (%.0f rows/s), %zu ranges, %zu splits\n",
                 summary.interrupted ? "interrupted" : "done", static_cast<unsigned long long>(summary.rows_read),
                 static_cast<unsigned long long>(summary.rows_written), summary.seconds, rows_per_second(summary),
                 summary.ranges.size(), summary.steals);
    if (!summary.job_id.empty())
        std::fprintf(stderr, "rowpump: job '%s' holds %llu of ~%llu rows, %zu of %zu ranges finished\n",
                     summary.job_id.c_str(), static_cast<unsigned long long>(summary.job_rows_written),
                     static_cast<unsigned long long>(std::max(summary.estimated_rows, summary.job_rows_written)),
                     static_cast<std::size_t>(std::count_if(summary.ranges.begin(), summary.ranges.end(),
                                                            [](const RangeSummary& range) { return range.finished; })),
                     summary.ranges.size());
    const char* written = summary.job_id.empty() ? "written" : "in the job";
    for (std::size_t i = 0; i < summary.ranges.size(); ++i) {
        const auto& range = summary.ranges[i];
        std::fprintf(stderr, "  range %zu [%s, %s): %llu read, %llu %s, %s\n", i,
                     bound_text(range.range.lo, "start").c_str(), bound_text(range.range.hi, "end").c_str(),
                     static_cast<unsigned long long>(range.rows_read),
                     static_cast<unsigned long long>(range.rows_written), written,
                     range.finished ? "finished"
                                    : ("stopped after " + bound_text(range.last_written, "its start")).c_str());
    }
}

namespace {

std::string summary_json(const JobSummary& summary) {
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    const auto count = [&writer](const char* name, std::uint64_t value) {
        writer.Key(name);
        writer.Uint64(value);
    };
    const auto key = [&writer](const char* name, const std::optional<KeyValue>& value) {
        writer.Key(name);
        write_key(writer, value);
    };
    writer.StartObject();
    writer.Key("status");
    writer.String(summary.already_finished ? "already finished" : summary.interrupted ? "interrupted" : "done");
    count("rows_read", summary.rows_read);
    count("rows_written", summary.rows_written);
    count("estimated_rows", summary.estimated_rows);
    writer.Key("seconds");
    writer.Double(summary.seconds);
    writer.Key("rows_per_second");
    writer.Double(rows_per_second(summary));
    count("rows_done_before", summary.rows_done_before);
    writer.Key("already_finished");
    writer.Bool(summary.already_finished);
    count("steals", summary.steals);
    if (!summary.job_id.empty()) {
        writer.Key("job_id");
        writer.String(summary.job_id.c_str(), static_cast<rapidjson::SizeType>(summary.job_id.size()));
        count("job_rows_written", summary.job_rows_written);
    }
    writer.Key("ranges");
    writer.StartArray();
    for (const auto& range : summary.ranges) {
        writer.StartObject();
        key("lo", range.range.lo);
        key("hi", range.range.hi);
        count("rows_read", range.rows_read);
        count("rows_written", range.rows_written);
        count("estimated_rows", range.estimated_rows);
        key("last_written", range.last_written);
        writer.Key("finished");
        writer.Bool(range.finished);
        writer.EndObject();
    }
    writer.EndArray();
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

// Writes all of `text`; false with errno set when a write fails.
bool write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

}  // namespace

SummaryFile::SummaryFile(std::string path) : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    created_ = fd_ >= 0;
    if (fd_ < 0 && errno == EEXIST) fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0)
        throw config::OptionError({config::OptionId::summary_json, ": cannot write '" + path_ + "': " + std::strerror(errno) +
                                   "; give a file in an existing directory that you can write to"});
}

SummaryFile::~SummaryFile() {
    if (fd_ < 0) return;
    ::close(fd_);
    if (created_) ::unlink(path_.c_str());
}

void SummaryFile::write(const JobSummary& summary) {
    const std::string text = summary_json(summary);
    const int fd = std::exchange(fd_, -1);
    struct stat status {};
    // Only a regular file holds an older summary to replace; a device or pipe takes the text as it comes.
    bool written = ::fstat(fd, &status) == 0 && (!S_ISREG(status.st_mode) || ::ftruncate(fd, 0) == 0) &&
                   write_all(fd, text);
    int error = errno;
    if (::close(fd) != 0 && written) {
        written = false;
        error = errno;
    }
    if (written) return;
    if (created_) ::unlink(path_.c_str());
    throw Error("cannot write the summary to '" + path_ + "': " + std::strerror(error));
}

}  // namespace rowpump::cli
