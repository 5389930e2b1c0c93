#pragma once
// Progress on stderr: a bar redrawn in place on a terminal, a plain line every few seconds otherwise
// (logs and CI keep a readable history).
#include <chrono>
#include <string>

#include "rowpump/job.hpp"

namespace rowpump::cli {

class ProgressBar {
public:
    // A plain line every `interval_seconds` (0: none) when stderr is not a terminal.
    explicit ProgressBar(double interval_seconds = 10);
    void update(const JobProgress& progress);
    void finish();

private:
    bool terminal_;
    std::chrono::duration<double> interval_;
    bool drawn_ = false;
    std::chrono::steady_clock::time_point last_line_{};
    std::string last_throttle_;
};

}  // namespace rowpump::cli
