// Where the copy loop (copy.cpp) puts its output: in place, or streamed with non-temporal
// stores, through a small stage or, for a row kernel that streams its own stores, straight.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "copy/copy_plan.hpp"
#include "copy/kernels.hpp"

namespace tslice {

// The output of one copy, in order: written in place, or staged and streamed.
class Sink {
public:
    // `count`: the elements the copy writes from dst, all of them, in order.
    // `memcpy_from`: streaming, runs of this many bytes or more go to memcpy, which streams
    // them itself (memcpy_run_bytes, copy_plan.hpp).
    Sink(std::byte* dst, std::int64_t count, std::size_t itemsize, const kernels::KernelSet& set, bool stream,
         std::size_t memcpy_from = ~std::size_t{0})
        : dst_(dst), end_(dst + count * static_cast<std::int64_t>(itemsize)),
          itemsize_(static_cast<std::int64_t>(itemsize)), set_(set), stream_(stream),
          memcpy_from_(static_cast<std::int64_t>(std::min<std::size_t>(memcpy_from, INT64_MAX))) {
        // Each fill ends on a cache-line boundary, so that flushes stream whole lines.
        limit_ = static_cast<std::int64_t>(kStageBytes - (reinterpret_cast<std::uintptr_t>(dst) & 63));
    }
    Sink(const Sink&) = delete;
    Sink& operator=(const Sink&) = delete;

    // Appends n elements; produce(out, from, m, slack) writes elements [from, from + m) of them
    // to out, and may overwrite the `slack` bytes after them: output still to come, or stage
    // that is never streamed.
    template <class Produce>
    void put(std::int64_t n, Produce&& produce) {
        if (!stream_) {
            produce(dst_, 0, n, end_ - (dst_ + n * itemsize_));
            dst_ += n * itemsize_;
            return;
        }
        for (std::int64_t from = 0; from < n;) {
            const std::int64_t m = std::min((limit_ - fill_) / itemsize_, n - from);
            if (m == 0) {
                flush();
                continue;
            }
            produce(stage_ + fill_, from, m, static_cast<std::int64_t>(sizeof(stage_)) - fill_ - m * itemsize_);
            fill_ += m * itemsize_;
            from += m;
        }
    }

    // Appends a row. Streaming, a row kernel that streams its own stores writes the row's whole
    // output lines straight to the output; the part lines at either end go through the stage.
    void put_row(const kernels::RowKernel& row, const std::byte* src, std::int64_t n) {
        if (row.stride == itemsize_) {
            put_bytes(src, n * itemsize_);
            return;
        }
        const std::int64_t stride = row.stride;
        const auto staged = [&](const std::byte* from_src, std::int64_t m) {
            put(m, [&](std::byte* out, std::int64_t from, std::int64_t k, std::int64_t slack) {
                row(from_src + from * stride, out, k, slack);
            });
        };
        if (!stream_ || !row.streamed) {
            staged(src, n);
            return;
        }
        const auto at = reinterpret_cast<std::uintptr_t>(dst_ + fill_);
        const auto gap = static_cast<std::int64_t>((64 - (at & 63)) & 63);
        if (gap % itemsize_ != 0 || n * itemsize_ < gap + 64) {
            staged(src, n);
            return;
        }
        const std::int64_t head = gap / itemsize_;
        staged(src, head);
        const std::int64_t lines = ((n - head) * itemsize_) & ~std::int64_t{63};
        flush();  // the stage ends on a line boundary
        row.streamed(row, src + head * stride, dst_, lines / itemsize_, 0);
        dst_ += lines;
        const std::int64_t done = head + lines / itemsize_;
        staged(src + done * stride, n - done);
    }

    // Appends bytes as they are. Streaming, the whole output lines among them go straight from
    // the input; the part lines at either end through the stage, so that every line is
    // streamed whole.
    void put_bytes(const std::byte* src, std::int64_t bytes) {
        if (!stream_) {
            std::memcpy(dst_, src, static_cast<std::size_t>(bytes));
            dst_ += bytes;
            return;
        }
        if (bytes >= memcpy_from_) {
            flush();
            std::memcpy(dst_, src, static_cast<std::size_t>(bytes));
            dst_ += bytes;
            limit_ = static_cast<std::int64_t>(kStageBytes - (reinterpret_cast<std::uintptr_t>(dst_) & 63));
            return;
        }
        const auto at = reinterpret_cast<std::uintptr_t>(dst_ + fill_);
        const std::int64_t head = std::min<std::int64_t>(bytes, static_cast<std::int64_t>((64 - (at & 63)) & 63));
        stage(src, head);
        src += head;
        bytes -= head;
        if (bytes >= 64) {
            flush();  // ends on a line boundary
            const std::int64_t lines = bytes & ~std::int64_t{63};
            set_.stream_copy(dst_, src, static_cast<std::size_t>(lines));
            dst_ += lines;
            src += lines;
            bytes -= lines;
        }
        stage(src, bytes);
    }

    void put_zeros(std::int64_t n) {
        put(n, [&](std::byte* out, std::int64_t, std::int64_t m, std::int64_t) {
            std::memset(out, 0, static_cast<std::size_t>(m * itemsize_));
        });
    }

    // The bytes of the copy's output from `at` (in room direct() gave) to its end: what a
    // kernel writing there may overwrite, since the rest is written afterwards.
    std::int64_t bytes_after(const std::byte* at) const { return end_ - at; }

    // Room for `bytes` written in place, by a kernel that writes them in its own order.
    std::byte* direct(std::int64_t bytes) {
        flush();
        std::byte* at = dst_;
        dst_ += bytes;
        return at;
    }

    void finish() {
        if (!stream_) return;
        flush();
        set_.stream_fence();
    }

private:
    void stage(const std::byte* src, std::int64_t bytes) {
        while (bytes > 0) {
            if (fill_ == limit_) flush();
            const std::int64_t m = std::min(limit_ - fill_, bytes);
            std::memcpy(stage_ + fill_, src, static_cast<std::size_t>(m));
            fill_ += m;
            src += m;
            bytes -= m;
        }
    }

    // Streams the stage out; the next fill ends on a cache-line boundary.
    void flush() {
        if (fill_ > 0) {
            set_.stream_copy(dst_, stage_, static_cast<std::size_t>(fill_));
            dst_ += fill_;
            fill_ = 0;
        }
        limit_ = static_cast<std::int64_t>(kStageBytes - (reinterpret_cast<std::uintptr_t>(dst_) & 63));
    }

    std::byte* dst_;
    std::byte* const end_;
    const std::int64_t itemsize_;
    const kernels::KernelSet& set_;
    const bool stream_;
    const std::int64_t memcpy_from_;
    std::int64_t fill_ = 0, limit_ = 0;
    // A register's worth past the stage, for kernels that store whole registers (the slack).
    alignas(64) std::byte stage_[kStageBytes + 64];
};

}  // namespace tslice
