#pragma once
// The hand-over between a range's reader and its writer: a bounded queue whose both ends block instead of
// spinning. oneTBB's pipeline spun and yielded while it waited for a page or a free slot: 69,000
// sched_yield calls and a third of the client's CPU in a 1M-row file backfill.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "rowpump/page.hpp"

namespace rowpump {

class PageQueue {
public:
    explicit PageQueue(std::size_t capacity) : capacity_(capacity) {}

    // Waits for a free slot. False when the writer abandoned the queue: the page is dropped. A wait
    // longer than `patience` calls `waiting` once, on this thread and outside the lock, then waits on.
    template <class Waiting>
    bool push(Page page, std::chrono::milliseconds patience, Waiting&& waiting) {
        std::unique_lock lock(mutex_);
        const auto ready = [&] { return pages_.size() < capacity_ || abandoned_; };
        if (!changed_.wait_for(lock, patience, ready)) {
            lock.unlock();
            waiting();
            lock.lock();
            changed_.wait(lock, ready);
        }
        if (abandoned_) return false;
        pages_.push_back(std::move(page));
        changed_.notify_all();
        return true;
    }

    // Waits for a page. Empty once the reader closed the queue and every page was taken.
    std::optional<Page> pop() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return !pages_.empty() || closed_; });
        if (pages_.empty()) return std::nullopt;
        Page page = std::move(pages_.front());
        pages_.pop_front();
        changed_.notify_all();
        return page;
    }

    // The writer is done with `page`: the reader may refill its buffers (take_back). Kept only while
    // fewer spares wait than pages fit in the queue.
    void give_back(Page page) {
        std::lock_guard lock(mutex_);
        if (spares_.size() < capacity_ + 1) spares_.push_back(std::move(page));
    }

    // A page given back, for the reader to read the next one into; nullopt when none waits.
    std::optional<Page> take_back() {
        std::lock_guard lock(mutex_);
        if (spares_.empty()) return std::nullopt;
        Page page = std::move(spares_.back());
        spares_.pop_back();
        return page;
    }

    // The reader is done: no more pages will come.
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        changed_.notify_all();
    }

    // The writer is done (refused a page, or failed): pages waiting and pages pushed later are dropped.
    void abandon() {
        std::lock_guard lock(mutex_);
        abandoned_ = true;
        pages_.clear();
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Page> pages_;
    std::vector<Page> spares_;
    std::size_t capacity_;
    bool closed_ = false;
    bool abandoned_ = false;
};

}  // namespace rowpump
