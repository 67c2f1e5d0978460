// Threads, started one way (try_start_thread): a pool that lives for the whole run, so each
// chunk of the output costs a wake-up, not a thread start, and lone threads for work that runs
// beside the caller rather than in parts it waits for.
#pragma once

#include <signal.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace tslice {

// While one lives, the calling thread blocks the asynchronous signals (all but the ones a
// fault raises in the faulting thread: SIGBUS, SIGSEGV, SIGFPE, SIGILL, SIGTRAP, SIGABRT,
// SIGSYS). Threads started meanwhile inherit the mask, so a signal sent to the process (Ctrl-C,
// kill) is handled by the thread that owns the output's temporary file, and the handler cannot
// run in another thread in the instant between that file's creation and its registration.
class AsyncSignalsBlocked {
public:
    AsyncSignalsBlocked();
    ~AsyncSignalsBlocked();
    AsyncSignalsBlocked(const AsyncSignalsBlocked&) = delete;
    AsyncSignalsBlocked& operator=(const AsyncSignalsBlocked&) = delete;

private:
    sigset_t previous_;
};

// Every thread tslice starts starts here: with the asynchronous signals blocked (see
// AsyncSignalsBlocked), and as an empty optional where no thread can start (RLIMIT_NPROC, a
// container's pids limit), so that the caller does the work itself instead of failing.
// A thread that runs beside its caller for as long as it likes (the chunk stream's producer,
// the input's page asker) is started here rather than taken from a WorkerPool: run() returns
// only when every part is done, so a pool part cannot run alongside the caller.
std::optional<std::thread> try_start_thread(std::function<void()> body);

class WorkerPool {
public:
    // `threads` workers in all, the calling thread included (1: no extra thread).
    explicit WorkerPool(unsigned threads);
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    ~WorkerPool();

    unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Runs job(0) .. job(parts - 1), spread over the pool, and returns when all are done.
    // The first exception a job throws is rethrown here.
    void run(unsigned parts, const std::function<void(unsigned part)>& job);

private:
    void work();

    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    const std::function<void(unsigned)>* job_ = nullptr;
    unsigned parts_ = 0, next_ = 0, done_ = 0;
    std::uint64_t generation_ = 0;
    bool stopping_ = false;
    std::exception_ptr error_;
};

// The worker threads a run uses by default: the CPUs this process may run on (its affinity
// mask, as `taskset` sets it), fewer where a cgroup CPU quota allows less (cpu.max of cgroup
// v2, rounded up), at least 1.
unsigned default_thread_count();

// The CPUs a cgroup v2 `cpu.max` text ("QUOTA PERIOD" or "max PERIOD") allows, rounded up;
// nullopt where it sets no quota or does not parse.
std::optional<unsigned> cpu_quota_threads(std::string_view cpu_max);

}  // namespace tslice
