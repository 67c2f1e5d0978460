#include "tslice/parallel.hpp"

#include <algorithm>
#include <utility>

#include "tslice/copy.hpp"

namespace tslice {

WorkerPool::WorkerPool(unsigned threads) {
    for (unsigned i = 1; i < std::max(1u, threads); ++i) workers_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
}

void WorkerPool::run(unsigned parts, const std::function<void(unsigned)>& job) {
    if (parts == 0) return;
    if (workers_.empty() || parts == 1) {
        for (unsigned part = 0; part < parts; ++part) job(part);
        return;
    }
    std::unique_lock lock(mutex_);
    job_ = &job;
    parts_ = parts;
    next_ = done_ = 0;
    error_ = nullptr;
    ++generation_;
    wake_.notify_all();
    // The calling thread takes parts too.
    while (next_ < parts_) {
        const unsigned part = next_++;
        lock.unlock();
        try {
            job(part);
        } catch (...) {
            lock.lock();
            if (!error_) error_ = std::current_exception();
            lock.unlock();
        }
        lock.lock();
        ++done_;
    }
    finished_.wait(lock, [&] { return done_ == parts_; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void WorkerPool::work() {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && next_ < parts_); });
        if (stopping_) return;
        seen = generation_;
        while (next_ < parts_) {
            const unsigned part = next_++;
            const auto* job = job_;
            lock.unlock();
            try {
                (*job)(part);
            } catch (...) {
                lock.lock();
                if (!error_) error_ = std::current_exception();
                lock.unlock();
            }
            lock.lock();
            if (++done_ == parts_) finished_.notify_all();
        }
    }
}

void copy_view_parallel(WorkerPool& pool, const std::byte* src, const View& view, std::byte* dst,
                        std::int64_t first, std::int64_t count) {
    constexpr std::int64_t kMinBytesPerPart = std::int64_t{1} << 20;
    const auto itemsize = static_cast<std::int64_t>(view.itemsize);
    const std::int64_t by_size = std::max<std::int64_t>(1, count * itemsize / kMinBytesPerPart);
    const auto parts = static_cast<unsigned>(std::min<std::int64_t>(pool.size(), by_size));
    if (parts <= 1) {
        copy_view(src, view, dst, first, count);
        return;
    }
    const std::int64_t share = count / parts;
    pool.run(parts, [&](unsigned part) {
        const std::int64_t begin = part * share;
        const std::int64_t length = part + 1 == parts ? count - begin : share;
        copy_view(src, view, dst + begin * itemsize, first + begin, length);
    });
}

}  // namespace tslice
