// --astype in the write stage: the result's chunks, each filled by converting the elements it
// holds as they are read. The writer's chunk (write_sizes().chunk_bytes of output) is split
// into parts over the worker threads; each part reads its source elements straight from the
// mapping where the result is contiguous, or copies them (copy_view, a gather's reads) into a
// staging buffer of its own first, then converts them into the chunk. What the copy has done
// with is released as it goes (InputPaging), so memory stays bounded by the chunks in flight.
#include <algorithm>
#include <cstring>
#include <vector>

#include "write/chunk_stream.hpp"
#include "source/dtype.hpp"
#include "read/gather_reads.hpp"
#include "read/input_paging.hpp"
#include "write/output_file.hpp"
#include "write/write_into.hpp"
#include "write/write_sizes.hpp"
#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/parallel.hpp"

namespace tslice {
namespace {

// A part converts at least this much (its larger side), so that waking a thread pays.
constexpr std::int64_t kPartBytes = 256 << 10;

// Fills `dst` with elements [first, first + count) of the view, converted: in parts over the
// pool, each through its own staging buffer unless the view is contiguous.
class ConvertingCopy {
public:
    ConvertingCopy(const std::byte* data, const View& view, const InputPages& pages, const Conversion& conversion,
                   WorkerPool& pool, const WriteSizes& sizes)
        : data_(data), view_(view), pages_(pages), conversion_(conversion), pool_(pool),
          contiguous_(view.is_c_contiguous()), gather_reads_(data, view, pages, sizes), staging_(pool.size()) {}

    void operator()(std::byte* dst, std::int64_t first, std::int64_t count) {
        const auto from_size = static_cast<std::int64_t>(conversion_.from_size());
        const auto to_size = static_cast<std::int64_t>(conversion_.to_size());
        if (gather_reads_) {
            // Rows read from the file, or a scattered gather a window at a time: those readers
            // fill one buffer in order, with the pool of their own.
            std::vector<std::byte>& staging = staging_[0];
            staging.resize(static_cast<std::size_t>(count * from_size));
            gather_reads_.copy(pool_, staging.data(), first, count);
            convert_parts(staging.data(), dst, count);
            return;
        }
        const std::int64_t by_size = std::max<std::int64_t>(1, count * std::max(from_size, to_size) / kPartBytes);
        const auto parts = static_cast<unsigned>(std::min<std::int64_t>(pool_.size(), by_size));
        const auto part = [&](unsigned index) {
            const std::int64_t begin = count * index / parts, end = count * (index + 1) / parts;
            const std::byte* src;
            if (contiguous_) {
                src = data_ + view_.byte_offset + (first + begin) * from_size;
            } else {
                std::vector<std::byte>& staging = staging_[index];
                staging.resize(static_cast<std::size_t>((end - begin) * from_size));
                copy_view(data_, view_, staging.data(), first + begin, end - begin, pages_.memory());
                src = staging.data();
            }
            conversion_.run(src, dst + begin * to_size, end - begin);
        };
        if (parts <= 1) part(0);
        else pool_.run(parts, part);
    }

private:
    void convert_parts(const std::byte* src, std::byte* dst, std::int64_t count) {
        const auto from_size = static_cast<std::int64_t>(conversion_.from_size());
        const auto to_size = static_cast<std::int64_t>(conversion_.to_size());
        const std::int64_t by_size = std::max<std::int64_t>(1, count * std::max(from_size, to_size) / kPartBytes);
        const auto parts = static_cast<unsigned>(std::min<std::int64_t>(pool_.size(), by_size));
        const auto part = [&](unsigned index) {
            const std::int64_t begin = count * index / parts, end = count * (index + 1) / parts;
            conversion_.run(src + begin * from_size, dst + begin * to_size, end - begin);
        };
        if (parts <= 1) part(0);
        else pool_.run(parts, part);
    }

    const std::byte* data_;
    const View& view_;
    const InputPages& pages_;
    const Conversion& conversion_;
    WorkerPool& pool_;
    bool contiguous_;
    GatherReads gather_reads_;
    std::vector<std::vector<std::byte>> staging_;
};

}  // namespace

void write_view_converted(const std::string& path, const OutputFraming& framing, const std::byte* data,
                          const View& view, const InputPages& pages, const WriteOptions& options,
                          const Conversion& conversion) {
    OutputFile output(path);
    write_view_converted_into(output, framing, data, view, pages, options, conversion);
    output.commit(options.sync);
}

void write_view_converted_into(OutputFile& output, const OutputFraming& framing, const std::byte* data,
                               const View& view, const InputPages& pages, const WriteOptions& options,
                               const Conversion& conversion) {
    if (view.itemsize != conversion.from_size())
        throw Error(ErrorKind::Usage, "internal: the view's elements are not of the conversion's source type");
    const WriteSizes sizes = write_sizes();
    const auto to_size = static_cast<std::int64_t>(conversion.to_size());
    const std::int64_t total = checked_element_count(view.shape, conversion.to_size(), "the output shape");
    output.expect(static_cast<std::int64_t>(framing.prefix.size()) + total * to_size);
    InputPaging input(view, pages, sizes);
    const auto largest = static_cast<std::int64_t>(std::max(conversion.from_size(), conversion.to_size()));
    WorkerPool pool(total * largest >= sizes.threaded_bytes ? options.threads : 1);
    ConvertingCopy copy(data, view, pages, conversion, pool, sizes);
    std::int64_t done = 0;
    const ChunkSource source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        // A chunk's source may be larger than the chunk (float64 to float8): converted in
        // pieces that read at most a chunk's bytes each.
        const std::int64_t piece = std::max<std::int64_t>(
            1, static_cast<std::int64_t>(sizes.chunk_bytes) / static_cast<std::int64_t>(conversion.from_size()));
        for (std::int64_t from = 0; from < count; from += piece) {
            const std::int64_t n = std::min(piece, count - from);
            copy(scratch + from * to_size, first + from, n);
            input.before(first + from + n);
        }
        done += count;
        if (options.progress) options.progress(done * to_size, total * to_size);
        return static_cast<const std::byte*>(scratch);
    };
    stream_framed(output.fd(), output.name(), framing, conversion.to_size(), view.shape, source, sizes.chunk_bytes);
}

std::vector<std::byte> convert_view(const std::byte* data, const View& view, const Conversion& conversion,
                                    unsigned threads) {
    const std::int64_t total = checked_element_count(view.shape, conversion.to_size(), "the result's shape");
    std::vector<std::byte> out(static_cast<std::size_t>(total) * conversion.to_size());
    WorkerPool pool(threads);
    const InputPages none;
    ConvertingCopy copy(data, view, none, conversion, pool, write_sizes());
    const std::int64_t piece = std::max<std::int64_t>(1, (std::int64_t{4} << 20) / static_cast<std::int64_t>(conversion.from_size()));
    for (std::int64_t from = 0; from < total; from += piece)
        copy(out.data() + from * static_cast<std::int64_t>(conversion.to_size()), from, std::min(piece, total - from));
    return out;
}

}  // namespace tslice
