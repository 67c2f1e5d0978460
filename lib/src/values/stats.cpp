// --stats: one pass over the view (stats.hpp), through the read stage's ResultReader, which
// hands out the result a round of chunks at a time (where it lies in the mapping, or copied),
// asks for the input ahead and releases its pages behind, so memory stays a few rounds. Each
// round is reduced in parts of about 1 MiB over the reader's worker threads: a part is
// converted a piece at a time into buffers of its own where it must be (--astype, a type not
// summed as it is), then reduced block by block (stats_kernels.hpp).
//
// The parts depend only on the view, never on the thread count or the rounds, and they are
// merged in their order: the same input gives the same digits with any number of threads.
#include "tslice/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "read/result_reader.hpp"
#include "values/stats_kernels.hpp"
#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/threads.hpp"

namespace tslice {
namespace {

// The count, mean and sum of squared deviations of some finite values.
struct Moments {
    std::int64_t n = 0;
    double mean = 0, m2 = 0;
};

// Chan, Golub and LeVeque's pairwise update.
Moments merge(const Moments& a, const Moments& b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const auto na = static_cast<double>(a.n), nb = static_cast<double>(b.n), n = na + nb;
    const double delta = b.mean - a.mean;
    return {a.n + b.n, a.mean + delta * (nb / n), a.m2 + b.m2 + delta * delta * (na * nb / n)};
}

// Merges in a balanced tree, as a binary counter: two partials of the same level become one
// of the next, so every value takes part in about log2(blocks) merges.
class MomentTree {
public:
    void add(Moments m) {
        int level = 0;
        while (!stack_.empty() && stack_.back().level == level) {
            m = merge(stack_.back().moments, m);
            stack_.pop_back();
            ++level;
        }
        stack_.push_back({level, m});
    }
    Moments total() const {
        Moments out;
        for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) out = merge(it->moments, out);
        return out;
    }

private:
    struct Entry {
        int level;
        Moments moments;
    };
    std::vector<Entry> stack_;
};

// A part's (or the whole's) findings, for elements of type T.
template <class T>
struct Partial {
    MomentTree tree;
    std::int64_t nan = 0, posinf = 0, neginf = 0, count = 0;
    bool any = false;  // whether lo and hi hold a value
    T lo{}, hi{};
    // float32: the shift of the next block's deviations (stats_kernels.hpp), the mean of the
    // block before; a part's first block takes its first finite value.
    bool shifted = false;
    float shift = 0;

    void extremes(T low, T high) {
        if (!any) {
            lo = low, hi = high, any = true;
        } else {
            lo = std::min(lo, low), hi = std::max(hi, high);
        }
    }
    template <class Counts>
    void counts(const Counts& block, std::size_t n) {
        nan += block.nan, posinf += block.posinf, neginf += block.neginf;
        if (block.nan < static_cast<std::int64_t>(n)) extremes(block.lo, block.hi);
    }
    void absorb(const Partial& other) {
        tree.add(other.tree.total());
        nan += other.nan, posinf += other.posinf, neginf += other.neginf, count += other.count;
        if (other.any) extremes(other.lo, other.hi);
    }
};

constexpr std::size_t kBlock = 2048;

// The sum of n values in eight partial sums; with their min and max.
template <class T>
void block_sums(const T* p, std::size_t n, double& sum, T& lo, T& hi) {
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    T l = p[0], h = p[0];
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (std::size_t j = 0; j < 8; ++j) {
            const T x = p[i + j];
            s[j] += static_cast<double>(x);
            l = x < l ? x : l;
            h = x > h ? x : h;
        }
    }
    for (; i < n; ++i) {
        s[0] += static_cast<double>(p[i]);
        l = p[i] < l ? p[i] : l;
        h = p[i] > h ? p[i] : h;
    }
    sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    lo = l, hi = h;
}

template <class T>
double block_m2(const T* p, std::size_t n, double mean) {
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (std::size_t j = 0; j < 8; ++j) {
            const double d = static_cast<double>(p[i + j]) - mean;
            s[j] += d * d;
        }
    for (; i < n; ++i) {
        const double d = static_cast<double>(p[i]) - mean;
        s[0] += d * d;
    }
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// One block of at most kBlock values into `partial`.
template <class T>
void reduce_block(const T* p, std::size_t n, Partial<T>& partial, stats_kernels::Float32Kernel float32) {
    if (n == 0) return;
    partial.count += static_cast<std::int64_t>(n);
    if constexpr (std::is_integral_v<T>) {
        double sum;
        T lo, hi;
        block_sums(p, n, sum, lo, hi);
        const double mean = sum / static_cast<double>(n);
        partial.tree.add({static_cast<std::int64_t>(n), mean, block_m2(p, n, mean)});
        partial.extremes(lo, hi);
    } else if constexpr (std::is_same_v<T, float>) {
        if (!partial.shifted) {
            for (std::size_t i = 0; i < n && !partial.shifted; ++i)
                if (std::isfinite(p[i])) partial.shift = p[i], partial.shifted = true;
        }
        const stats_kernels::Float32Block block = float32(p, n, partial.shift);
        partial.counts(block, n);
        if (block.finite == 0) return;
        const auto finite = static_cast<double>(block.finite);
        const double offset = block.shifted_sum / finite;
        const double mean = static_cast<double>(partial.shift) + offset;
        // Rounding may leave a sum of squares of equal values a hair below 0.
        const double m2 = std::max(0.0, block.shifted_squares - block.shifted_sum * offset);
        partial.tree.add({block.finite, mean, m2});
        partial.shift = static_cast<float>(mean);
    } else {
        const stats_kernels::Float64Block block = stats_kernels::sums(p, n);
        partial.counts(block, n);
        if (block.finite == 0) return;
        // A sum of finite values can still overflow: then it is what numpy's sum gives too.
        const double mean = block.sum / static_cast<double>(block.finite);
        partial.tree.add({block.finite, mean, stats_kernels::squared_deviations(p, n, mean)});
    }
}

// The native type stats reduce over for a type (after any --astype): float32 for the narrow
// floats and float16, float64 for long double, uint8 for bool (0 and 1), and the native byte
// order of the rest.
ElementType reduce_type(const ElementType& type) {
    const auto native = [](std::string code) {
        ElementType out;
        out.dtype = parse_dtype_descr("'" + code + "'");
        return out;
    };
    if (!type.safetensors_only.empty()) return native("<f4");
    const DType& d = type.dtype;
    if (d.kind == 'b') return native("|u1");
    if (d.kind == 'f' && d.itemsize == 2) return native("<f4");
    if (d.kind == 'f' && d.itemsize == 16) return native("<f8");
    if (d.itemsize == 1) return type;
    return native("<" + d.type_string.substr(1));
}

struct Steps {
    std::optional<Conversion> first, second;  // --astype, then to the reduced type
};

template <class T>
class Reduction {
public:
    Reduction(const std::byte* data, const View& view, const Steps& steps, const InputPages& pages, unsigned threads)
        : data_(data), view_(view), steps_(steps), pages_(pages), threads_(threads),
          float32_(stats_kernels::float32_kernel()) {}

    Partial<T> run() {
        ReadOptions options;
        options.threads = threads_;
        // Each byte is read once, here: from the mapping, not copied into a chunk first.
        options.map_contiguous = true;
        ResultReader reader(data_, view_, pages_, options);
        if (reader.itemsize() != view_.itemsize)
            throw std::logic_error("stats: the reader split elements of " + std::to_string(view_.itemsize) + " bytes");
        const std::int64_t total = reader.elements();
        const std::size_t itemsize = view_.itemsize;
        // About 1 MiB of input a part, whatever the thread count.
        const std::int64_t part = std::max<std::int64_t>(1, (std::int64_t{1} << 20) / static_cast<std::int64_t>(itemsize));
        // Two parts a thread a round, so that a thread slowed by another process leaves its
        // second to the others; at most 16 parts of memory a round.
        WorkerPool& pool = reader.pool();
        const std::int64_t per_round = std::max<std::int64_t>(pool.size(), std::min<std::int64_t>(2 * pool.size(), 16));
        const std::int64_t round = std::min(total, part * per_round);
        std::vector<std::byte> scratch;
        if (!reader.view().is_c_contiguous()) scratch.resize(static_cast<std::size_t>(round) * itemsize);
        std::vector<Partial<T>> found(static_cast<std::size_t>(per_round));
        std::vector<Buffers> buffers(static_cast<std::size_t>(per_round));
        Partial<T> whole;
        for (std::int64_t first = 0; first < total; first += round) {
            const std::int64_t count = std::min(round, total - first);
            const std::byte* bytes = reader.chunk(first, count, scratch.data());
            const auto parts = static_cast<unsigned>((count + part - 1) / part);
            pool.run(parts, [&](unsigned index) {
                const std::int64_t from = index * part;
                found[index] = reduce_part(bytes + from * static_cast<std::int64_t>(itemsize),
                                           std::min(part, count - from), buffers[index]);
            });
            for (unsigned index = 0; index < parts; ++index) whole.absorb(found[index]);
        }
        reader.moved(total);  // the last round's pages go too
        return whole;
    }

private:
    struct Buffers {
        std::vector<std::byte> first, second;
        std::unique_ptr<T[]> aligned;
    };

    // `count` elements of the view at `bytes`, a piece at a time.
    Partial<T> reduce_part(const std::byte* bytes, std::int64_t count, Buffers& buffers) const {
        Partial<T> partial;
        constexpr std::int64_t kPiece = 16 * kBlock;
        for (std::int64_t from = 0; from < count; from += kPiece) {
            const std::int64_t n = std::min(kPiece, count - from);
            const std::byte* at = bytes + from * static_cast<std::int64_t>(view_.itemsize);
            for (const auto* step : {&steps_.first, &steps_.second}) {
                if (!*step) continue;
                std::vector<std::byte>& into = step == &steps_.first ? buffers.first : buffers.second;
                into.resize(static_cast<std::size_t>(kPiece) * (*step)->to_size());
                (*step)->run(at, into.data(), n);
                at = into.data();
            }
            // Blocks of values aligned as T: a mapping's data need not be.
            const T* values = reinterpret_cast<const T*>(at);
            if (reinterpret_cast<std::uintptr_t>(at) % alignof(T) != 0) {
                if (!buffers.aligned) buffers.aligned.reset(new T[kPiece]);
                std::memcpy(buffers.aligned.get(), at, static_cast<std::size_t>(n) * sizeof(T));
                values = buffers.aligned.get();
            }
            for (std::int64_t b = 0; b < n; b += static_cast<std::int64_t>(kBlock))
                reduce_block(values + b, static_cast<std::size_t>(std::min<std::int64_t>(kBlock, n - b)), partial,
                             float32_);
        }
        return partial;
    }

    const std::byte* data_;
    const View& view_;
    const Steps& steps_;
    const InputPages& pages_;
    unsigned threads_;
    stats_kernels::Float32Kernel float32_;
};

template <class T>
ArrayStats finish(const Partial<T>& found, std::int64_t count) {
    ArrayStats stats;
    stats.count = count;
    stats.nan = found.nan, stats.posinf = found.posinf, stats.neginf = found.neginf;
    if (!found.any) return stats;
    if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_signed_v<T>) {
            stats.min = static_cast<std::int64_t>(found.lo), stats.max = static_cast<std::int64_t>(found.hi);
        } else {
            stats.min = static_cast<std::uint64_t>(found.lo), stats.max = static_cast<std::uint64_t>(found.hi);
        }
    } else {
        stats.min = static_cast<double>(found.lo), stats.max = static_cast<double>(found.hi);
    }
    const Moments m = found.tree.total();
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    if (found.posinf || found.neginf) {
        stats.mean = found.posinf && found.neginf ? nan : (found.posinf ? inf : -inf);
        stats.std = nan;
    } else {
        stats.mean = m.mean;
        stats.std = std::sqrt(m.m2 / static_cast<double>(m.n));
    }
    return stats;
}

template <class T>
ArrayStats reduce(const std::byte* data, const View& view, const Steps& steps, const InputPages& pages,
                  unsigned threads) {
    Reduction<T> reduction(data, view, steps, pages, threads);
    return finish(reduction.run(), view.element_count());
}

}  // namespace

void check_stats_type(const ElementType& type, const std::optional<ElementType>& astype) {
    const ElementType& shown = astype ? *astype : type;
    if (astype) {
        const Conversion check(type, *astype);
        (void)check;
    }
    if (!convertible(shown) || shown.dtype.kind == 'c')
        fail_usage("--stats takes bool, integers, floats, bfloat16 and float8, not " + shown.name() +
                   (shown.dtype.kind == 'c' ? " (take the real or imaginary part with "
                                              "--astype, which keeps the real part)"
                                            : ""));
}

ArrayStats compute_stats(const std::byte* data, const View& view, const ElementType& type,
                         const std::optional<ElementType>& astype, const InputPages& pages, unsigned threads) {
    check_stats_type(type, astype);
    const ElementType shown = astype ? *astype : type;
    const ElementType reduced = reduce_type(shown);
    Steps steps;
    if (astype && !(*astype == type)) steps.first.emplace(type, *astype);
    if (!(reduced == shown)) steps.second.emplace(shown, reduced);
    const DType& d = reduced.dtype;
    switch (d.kind) {
        case 'u':
            switch (d.itemsize) {
                case 1: return reduce<std::uint8_t>(data, view, steps, pages, threads);
                case 2: return reduce<std::uint16_t>(data, view, steps, pages, threads);
                case 4: return reduce<std::uint32_t>(data, view, steps, pages, threads);
                default: return reduce<std::uint64_t>(data, view, steps, pages, threads);
            }
        case 'i':
            switch (d.itemsize) {
                case 1: return reduce<std::int8_t>(data, view, steps, pages, threads);
                case 2: return reduce<std::int16_t>(data, view, steps, pages, threads);
                case 4: return reduce<std::int32_t>(data, view, steps, pages, threads);
                default: return reduce<std::int64_t>(data, view, steps, pages, threads);
            }
        default:
            return d.itemsize == 4 ? reduce<float>(data, view, steps, pages, threads)
                                   : reduce<double>(data, view, steps, pages, threads);
    }
}

}  // namespace tslice
