// The one way tslice starts threads: try_start_thread, which every thread goes through (the
// pool's workers, and the lone threads that run beside the caller: the chunk stream's
// producer, the input's page asker), and the pool built on it. In the ground floor, since
// sources (GGUF blocks, Zarr chunks), reads, copies, values and writes all use it.
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <utility>

#include "tslice/threads.hpp"

namespace tslice {

AsyncSignalsBlocked::AsyncSignalsBlocked() {
    sigset_t blocked;
    ::sigfillset(&blocked);
    for (const int synchronous : {SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS})
        ::sigdelset(&blocked, synchronous);
    ::pthread_sigmask(SIG_BLOCK, &blocked, &previous_);
}

AsyncSignalsBlocked::~AsyncSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

std::optional<std::thread> try_start_thread(std::function<void()> body) {
    const AsyncSignalsBlocked the_thread_leaves_signals_to_the_caller;
    try {
        return std::thread(std::move(body));
    } catch (const std::system_error&) {
        return std::nullopt;
    }
}

WorkerPool::WorkerPool(unsigned threads) {
    // A thread that cannot start leaves the pool smaller, down to the calling thread alone:
    // the copy still completes.
    for (unsigned i = 1; i < std::max(1u, threads); ++i) {
        std::optional<std::thread> worker = try_start_thread([this] { work(); });
        if (!worker) break;
        workers_.push_back(std::move(*worker));
    }
}

unsigned default_thread_count() {
    unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t allowed;
    if (::sched_getaffinity(0, sizeof allowed, &allowed) == 0) cpus = std::max(1, CPU_COUNT(&allowed));
    std::ifstream cgroup("/sys/fs/cgroup/cpu.max");
    std::string text((std::istreambuf_iterator<char>(cgroup)), std::istreambuf_iterator<char>());
    if (const auto quota = cpu_quota_threads(text)) cpus = std::min(cpus, *quota);
    return cpus;
}

std::optional<unsigned> cpu_quota_threads(std::string_view cpu_max) {
    // "max 100000" (no quota) or "QUOTA PERIOD" in microseconds: QUOTA/PERIOD CPUs, rounded up.
    long long quota = 0, period = 0;
    char rest = 0;
    const std::string text(cpu_max);
    if (std::sscanf(text.c_str(), "%lld %lld %c", &quota, &period, &rest) != 2 || quota <= 0 || period <= 0)
        return std::nullopt;
    const long long cpus = (quota + period - 1) / period;
    return static_cast<unsigned>(std::clamp<long long>(cpus, 1, 1 << 20));
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

}  // namespace tslice
