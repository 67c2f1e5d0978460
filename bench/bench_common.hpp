// What the parts of tslice_bench (bench_copy.cpp) share: the command line's options, dying with
// a message, where the inputs lie, and the buffers the copies go into. Anything only one part
// uses stays in that part's file.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cases.hpp"

namespace tslice::bench {

[[noreturn]] void die(const std::string& message);

struct Options {
    std::string command;
    std::string dir;
    bool quick = false;
    int reps = 0;  // 0: 7 (full) or 5 (quick)
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::string python = "/usr/bin/python3";
    std::string only;
    bool in_process = false;  // generate: only the inputs of the in-process cases
};

std::int64_t product(const std::vector<std::int64_t>& shape);

const InputSpec& input_spec(const std::string& name);

std::string path_of(const Options& options, const std::string& name);  // DIR/name.npy

// This process's anonymous memory in transparent huge pages, in MiB; -1 if unknown.
std::int64_t huge_pages_mib();

// A buffer for the copies: 2 MiB aligned and marked for transparent huge pages (as numpy
// does for large arrays), every page faulted in before anything is timed.
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(std::size_t size);
    std::byte* data() const { return data_.get(); }
    std::size_t size() const { return size_; }

private:
    struct Free {
        void operator()(std::byte* p) const { std::free(p); }
    };
    std::unique_ptr<std::byte, Free> data_;
    std::size_t size_ = 0;
};

// Here, where it can be inlined: it ends every timed region.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace tslice::bench
