// --astype in the write stage: the result's chunks, each filled by converting the elements it
// holds as the read stage hands them out (result_reader.hpp: contiguous elements where they
// lie in the mapping, others copied or read into a staging chunk, the input's pages released
// behind). The conversion of a chunk is split into parts over the worker threads.
#include <algorithm>
#include <cstring>
#include <vector>

#include "read/result_reader.hpp"
#include "source/dtype.hpp"
#include "write/chunk_stream.hpp"
#include "write/output_file.hpp"
#include "write/write_into.hpp"
#include "tslice/convert.hpp"
#include "tslice/error.hpp"
#include "tslice/write.hpp"
#include "tslice/threads.hpp"

namespace tslice {
namespace {

// A part converts at least this much (its larger side), so that waking a thread pays.
constexpr std::int64_t kPartBytes = 256 << 10;

// Elements of the result converted, a staging chunk of source elements at a time: `fill(dst,
// first, count)` converts elements [first, first + count) into `dst`.
class ConvertingReader {
public:
    // `parallel`: whether a chunk's conversion is split over the reader's threads.
    ConvertingReader(const std::byte* data, const View& view, const InputPages& pages, const Conversion& conversion,
                     unsigned threads, bool parallel)
        : conversion_(conversion),
          parallel_(parallel),
          reader_(data, view, pages, {threads, false, nullptr, true}),
          // A chunk's source may be larger than the chunk (float64 to float8): converted in
          // pieces that read at most a chunk's bytes each.
          piece_(std::max<std::int64_t>(1, static_cast<std::int64_t>(reader_.chunk_bytes()) /
                                               static_cast<std::int64_t>(conversion.from_size()))) {}

    std::int64_t elements() const { return reader_.elements(); }
    std::size_t chunk_bytes() const { return reader_.chunk_bytes(); }

    void fill(std::byte* dst, std::int64_t first, std::int64_t count) {
        const auto to_size = static_cast<std::int64_t>(conversion_.to_size());
        for (std::int64_t from = 0; from < count; from += piece_) {
            const std::int64_t n = std::min(piece_, count - from);
            staging_.resize(static_cast<std::size_t>(n) * conversion_.from_size());
            convert_parts(reader_.chunk(first + from, n, staging_.data()), dst + from * to_size, n);
        }
    }

private:
    void convert_parts(const std::byte* src, std::byte* dst, std::int64_t count) {
        const auto from_size = static_cast<std::int64_t>(conversion_.from_size());
        const auto to_size = static_cast<std::int64_t>(conversion_.to_size());
        const std::int64_t by_size = std::max<std::int64_t>(1, count * std::max(from_size, to_size) / kPartBytes);
        WorkerPool& pool = reader_.pool();
        const auto parts = parallel_ ? static_cast<unsigned>(std::min<std::int64_t>(pool.size(), by_size)) : 1u;
        const auto part = [&](unsigned index) {
            const std::int64_t begin = count * index / parts, end = count * (index + 1) / parts;
            conversion_.run(src + begin * from_size, dst + begin * to_size, end - begin);
        };
        if (parts <= 1) part(0);
        else pool.run(parts, part);
    }

    const Conversion& conversion_;
    bool parallel_;
    ResultReader reader_;
    std::int64_t piece_;
    std::vector<std::byte> staging_;
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
        throw Error(ErrorKind::Internal, "the view's elements are not of the conversion's source type");
    const auto to_size = static_cast<std::int64_t>(conversion.to_size());
    const std::int64_t total = checked_element_count(view.shape, conversion.to_size(), "the output shape");
    output.expect(static_cast<std::int64_t>(framing.prefix.size()) + total * to_size);
    // The conversion stays on the thread that makes the chunks: one thread converts several
    // times faster than write() takes the bytes, and the writing thread needs the other core
    // of two (docs/performance-log.md). The reader still copies a view that is not contiguous
    // over the threads.
    ConvertingReader converted(data, view, pages, conversion, options.threads, false);
    std::int64_t done = 0;
    const ChunkSource source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        converted.fill(scratch, first, count);
        done += count;
        if (options.progress) options.progress(done * to_size, total * to_size);
        return static_cast<const std::byte*>(scratch);
    };
    stream_framed(output.fd(), output.name(), framing, conversion.to_size(), view.shape, source,
                  converted.chunk_bytes());
}

std::vector<std::byte> convert_view(const std::byte* data, const View& view, const Conversion& conversion,
                                    unsigned threads) {
    const std::int64_t total = checked_element_count(view.shape, conversion.to_size(), "the result's shape");
    std::vector<std::byte> out(static_cast<std::size_t>(total) * conversion.to_size());
    ConvertingReader converted(data, view, InputPages{}, conversion, threads, true);
    converted.fill(out.data(), 0, total);
    return out;
}

}  // namespace tslice
