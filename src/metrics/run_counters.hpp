#pragma once
// Counters of the whole process since it started, as Prometheus counters are: /metrics reads them, the
// page pipeline moves them (the retry loop counts its own, retries_total() in retry.hpp). Atomics, so
// that counting costs a worker next to nothing.
#include <atomic>
#include <cstdint>

namespace rowpump::metrics {

struct RunCounters {
    std::atomic<std::uint64_t> rows_read{0};
    std::atomic<std::uint64_t> rows_written{0};
    std::atomic<std::uint64_t> pages_read{0};
    std::atomic<std::uint64_t> pages_written{0};

    void page_read(std::uint64_t rows) {
        pages_read.fetch_add(1, std::memory_order_relaxed);
        rows_read.fetch_add(rows, std::memory_order_relaxed);
    }
    void page_written(std::uint64_t rows) {
        pages_written.fetch_add(1, std::memory_order_relaxed);
        rows_written.fetch_add(rows, std::memory_order_relaxed);
    }
};

// The process's one set, in the library (a copy per binary would split the counts).
RunCounters& run_counters();

}  // namespace rowpump::metrics
