// The worker pool and the parallel copy: every split gives the bytes of the plain copy.
#include <doctest/doctest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>

#include "tslice/copy.hpp"
#include "tslice/expr.hpp"
#include "tslice/threads.hpp"
#include "tslice/plan.hpp"

using namespace tslice;

TEST_CASE("parallel: every part runs once, on any pool size, many times over") {
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
        WorkerPool pool(threads);
        CHECK(pool.size() == threads);
        for (int round = 0; round < 200; ++round) {
            const unsigned parts = 1 + static_cast<unsigned>(round % 11);
            std::vector<std::atomic<int>> runs(parts);
            pool.run(parts, [&](unsigned part) { runs[part]++; });
            for (auto& count : runs) CHECK(count.load() == 1);
        }
    }
}

TEST_CASE("parallel: an exception in a part reaches the caller, and the pool goes on") {
    WorkerPool pool(3);
    CHECK_THROWS_WITH(pool.run(6, [](unsigned part) {
        if (part == 4) throw std::runtime_error("part 4 failed");
    }),
                      "part 4 failed");
    std::atomic<int> total = 0;
    pool.run(5, [&](unsigned part) { total += static_cast<int>(part); });
    CHECK(total == 10);
}

TEST_CASE("parallel: the parallel copy equals the plain copy") {
    const std::vector<std::int64_t> shape = {8, 300, 257};
    const View input = View::contiguous(shape, 4);
    std::vector<std::byte> data(static_cast<std::size_t>(input.element_count()) * 4);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 + i / 1000);
    WorkerPool pool(4);
    for (const char* text : {"[...]", "[::-1, :, ::-1]", "[:, ::2, 1::3]", "[..., 5]", "[1:-1, None, ::-7]"}) {
        CAPTURE(text);
        const View view = apply_plan(plan_index(parse_index_expr(text), shape), input);
        const std::int64_t count = view.element_count();
        std::vector<std::byte> plain(static_cast<std::size_t>(count) * 4), parallel(plain.size());
        copy_view(data.data(), view, plain.data(), 0, count);
        // Ranges that do not start at 0 are what the writer's chunks ask for.
        const std::int64_t half = count / 3;
        copy_view_parallel(pool, data.data(), view, parallel.data(), 0, half);
        copy_view_parallel(pool, data.data(), view, parallel.data() + half * 4, half, count - half);
        CHECK(plain == parallel);
    }
}

TEST_CASE("a cgroup CPU quota, rounded up, bounds the default thread count") {
    using tslice::cpu_quota_threads;
    CHECK(cpu_quota_threads("max 100000\n") == std::nullopt);
    CHECK(cpu_quota_threads("200000 100000\n") == 2u);
    CHECK(cpu_quota_threads("150000 100000") == 2u);
    CHECK(cpu_quota_threads("50000 100000\n") == 1u);
    CHECK(cpu_quota_threads("") == std::nullopt);
    CHECK(cpu_quota_threads("junk") == std::nullopt);
    CHECK(cpu_quota_threads("-5 100000") == std::nullopt);
    CHECK(cpu_quota_threads("100000 0") == std::nullopt);
    CHECK(tslice::default_thread_count() >= 1u);
}

TEST_CASE("a pool asked for more threads than can start still runs every part") {
    tslice::WorkerPool pool(64);
    std::atomic<int> ran{0};
    pool.run(100, [&](unsigned) { ++ran; });
    CHECK(ran == 100);
}
