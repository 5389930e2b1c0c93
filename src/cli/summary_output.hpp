#pragma once
// The end of a run: a text summary on stderr (stdout may be the sink) and, when asked, the same as JSON.
#include <string>

#include "rowpump/job.hpp"

namespace rowpump::cli {

void print_summary(const JobSummary& summary);

// The --summary-json file, opened before the run: a path that cannot be written is a usage error before
// the first row, not a failure after the last one (which would invite a rerun that writes every row
// again). An existing file keeps its content until the summary replaces it; a file opened here and
// never written (the run failed) is removed again.
class SummaryFile {
public:
    // Throws UsageError naming --summary-json when `path` cannot be opened for writing.
    explicit SummaryFile(std::string path);
    ~SummaryFile();
    SummaryFile(const SummaryFile&) = delete;
    SummaryFile& operator=(const SummaryFile&) = delete;

    // Replaces the file's content with the summary as JSON; throws Error when any write or the close
    // fails (a full disk, /dev/full).
    void write(const JobSummary& summary);
    const std::string& path() const { return path_; }

private:
    std::string path_;
    int fd_ = -1;
    bool created_ = false;  // the file did not exist before
};

}  // namespace rowpump::cli
