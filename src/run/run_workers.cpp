#include "run/run_workers.hpp"

#include <oneapi/tbb/task_arena.h>

#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rowpump {

void run_workers(std::size_t workers, std::atomic<bool>& halt, const std::function<void()>& wake,
                 const std::function<void()>& work) {
    std::mutex mutex;
    std::exception_ptr failure;
    const auto one_worker = [&] {
        try {
            work();
        } catch (...) {
            const std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
            halt.store(true);
            if (wake) wake();
        }
    };
    // oneTBB fills an arena from its pool, which holds one thread per core unless a tbb::global_control
    // raises the limit, and that control is process-wide: it would also bound the embedding program's own
    // TBB work, and the smallest of two jobs' controls would bound both jobs. So every slot of the job's
    // arena is reserved for a thread the job starts itself, and no pool thread is asked for (on 2 cores an
    // arena of 8 ran only 2 workers at once).
    tbb::task_arena arena(static_cast<int>(workers), static_cast<unsigned>(workers));
    std::vector<std::thread> threads;
    for (std::size_t i = 1; i < workers; ++i) threads.emplace_back([&] { arena.execute(one_worker); });
    arena.execute(one_worker);
    for (auto& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace rowpump
