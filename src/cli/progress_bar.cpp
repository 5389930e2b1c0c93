#include "cli/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "log.hpp"

namespace rowpump::cli {

namespace {

std::string duration_text(double seconds) {
    const auto total = static_cast<long>(seconds);
    char text[32];
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
    return text;
}

}  // namespace

ProgressBar::ProgressBar(double interval_seconds)
    : terminal_(isatty(STDERR_FILENO) == 1), interval_(interval_seconds), last_line_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(const JobProgress& progress) {
    if (!log().should_log(spdlog::level::info)) return;  // -q: errors only
    const std::uint64_t this_run = progress.rows_written - std::min(progress.rows_written, progress.rows_done_before);
    const double rate = progress.seconds > 0 ? static_cast<double>(this_run) / progress.seconds : 0;
    const double estimated = static_cast<double>(std::max(progress.estimated_rows, progress.rows_written));
    const double fraction = estimated > 0 ? static_cast<double>(progress.rows_written) / estimated : 1.0;
    const std::string eta =
        rate > 0 ? duration_text((estimated - static_cast<double>(progress.rows_written)) / rate) : "?";
    if (terminal_) {
        constexpr int width = 30;
        const int filled = static_cast<int>(fraction * width);
        // \033[K clears what a longer line before (a throttle's reason) left behind.
        std::fprintf(stderr, "\r[%s%s] %5.1f%% %llu rows %.0f rows/s ETA %s%s%s\033[K", std::string(filled, '#').c_str(),
                     std::string(width - filled, '.').c_str(), fraction * 100,
                     static_cast<unsigned long long>(progress.rows_written), rate, eta.c_str(),
                     progress.throttle.empty() ? "" : " | ", progress.throttle.c_str());
        drawn_ = true;
    } else {
        // A line every interval (--progress-interval, 10 s by default), and one at once when the throttle
        // starts or stops holding the copy; none at all with an interval of 0.
        if (interval_.count() <= 0) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - last_line_ < interval_ && progress.throttle == last_throttle_) return;
        last_line_ = now;
        last_throttle_ = progress.throttle;
        std::fprintf(stderr, "rowpump: progress: %llu of ~%llu rows (%.1f%%), %.0f rows/s, ETA %s%s%s\n",
                     static_cast<unsigned long long>(progress.rows_written),
                     static_cast<unsigned long long>(estimated), fraction * 100, rate, eta.c_str(),
                     progress.throttle.empty() ? "" : "; ", progress.throttle.c_str());
    }
    std::fflush(stderr);
}

void ProgressBar::finish() {
    if (terminal_ && drawn_) std::fputc('\n', stderr);
}

}  // namespace rowpump::cli
