// The write stage: a result's elements in C order, chunk by chunk (chunk_stream.hpp), to a
// file or a stream. The chunks come from the read stage's ResultReader, which decides how each
// is read and what happens to the input's pages; this file decides where the bytes go: in
// order, from the last chunk to the first where the output lets bytes be placed and the reader
// walks a cold file down, or, for a contiguous result of a file into a pipe, spliced.
#include "tslice/write.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "read/result_reader.hpp"
#include "source/dtype.hpp"
#include "write/chunk_stream.hpp"
#include "write/file_splice.hpp"
#include "write/output_file.hpp"
#include "write/write_into.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

namespace tslice {

namespace {

// What any output must be: elements of some bytes, and a shape whose bytes a file can hold.
// Returns its elements.
std::int64_t check_output(std::size_t itemsize, const std::vector<std::int64_t>& shape) {
    if (itemsize == 0) fail_input("cannot write a dtype with zero-byte elements");
    return checked_element_count(shape, itemsize, "the output shape");
}

}  // namespace

void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkFiller& fill) {
    write_npy(path, dtype, shape, ChunkSource([&](std::int64_t first, std::int64_t count, std::byte* scratch) {
                  fill(scratch, first, count);
                  return static_cast<const std::byte*>(scratch);
              }));
}

void write_npy(const std::string& path, const DType& dtype, const std::vector<std::int64_t>& shape,
               const ChunkSource& fill) {
    check_output(dtype.itemsize, shape);
    write_array(path, OutputFraming{make_npy_header(dtype, shape), 0, {}}, dtype.itemsize, shape, fill);
}

void write_array(const std::string& path, const OutputFraming& framing, std::size_t itemsize,
                 const std::vector<std::int64_t>& shape, const ChunkSource& fill, const WriteOptions& options) {
    const std::int64_t elements = check_output(itemsize, shape);
    OutputFile output(path);
    output.expect(static_cast<std::int64_t>(framing.prefix.size()) +
                  elements * static_cast<std::int64_t>(itemsize));
    stream_framed(output.fd(), output.name(), framing, itemsize, shape, fill, read_sizes().chunk_bytes);
    output.commit(options.sync);
}

void write_text(const std::string& path, const TextSource& next, const WriteOptions& options) {
    OutputFile output(path);
    std::string piece;
    for (bool more = true; more;) {
        piece.clear();
        more = next(piece);
        write_all(output.fd(), piece.data(), piece.size(), output.name());
    }
    output.commit(options.sync);
}

namespace {

// Reverses the bytes of each of `count` elements: a big-endian input written little-endian.
void swap_elements(std::byte* bytes, std::int64_t count, std::size_t itemsize) {
    for (std::int64_t i = 0; i < count; ++i, bytes += itemsize) std::reverse(bytes, bytes + itemsize);
}

// A contiguous result of a file, moved chunk by chunk from the file to the output without
// passing through this process (file_splice.hpp), the reader told as it goes. Returns false,
// having written nothing, where the file or the output takes no splice at all: the result then
// goes the usual way. Where splicing stops part way, the rest is read and written.
bool splice_contiguous(const OutputFile& output, const OutputFraming& framing, ResultReader& reader,
                       const WriteOptions& options) {
    const std::optional<std::int64_t> from = reader.file_offset_of_contiguous();
    const std::int64_t total = reader.elements();
    if (!from || framing.suffix || options.swap_bytes || total == 0) return false;
    const auto itemsize = static_cast<std::int64_t>(reader.itemsize());
    const std::int64_t chunk = reader.chunk_elements() * itemsize;
    const std::int64_t size = total * itemsize;
    const InputPages& pages = reader.pages();
    FileSplice splice(pages.file(), output.fd());
    std::vector<std::byte> rest;
    for (std::int64_t done = 0; done < size; done += chunk) {
        const std::int64_t bytes = std::min(chunk, size - done);
        const std::string_view before = done == 0 ? std::string_view(framing.prefix) : std::string_view();
        const FileSplice::Sent sent = splice.send(*from + done, bytes, before, output.name());
        if (done == 0 && !sent.before) return false;
        if (sent.bytes < bytes) {
            rest.resize(static_cast<std::size_t>(bytes - sent.bytes));
            pages.read(*from - pages.file_offset() + done + sent.bytes, bytes - sent.bytes, rest.data());
            write_all(output.fd(), reinterpret_cast<const char*>(rest.data()), rest.size(), output.name());
        }
        reader.moved((done + bytes) / itemsize);
        if (options.progress) options.progress(done + bytes, size);
    }
    return true;
}

}  // namespace

void write_view(const std::string& path, const OutputFraming& framing, const std::byte* data,
                const View& result_view, const InputPages& pages, const WriteOptions& options) {
    OutputFile output(path);
    write_view_into(output, framing, data, result_view, pages, options, true);
    output.commit(options.sync);
}

void write_view_into(OutputFile& output, const OutputFraming& framing, const std::byte* data,
                     const View& result_view, const InputPages& pages, const WriteOptions& options, bool alone) {
    const DType* packs = options.packed_selection ? &*options.packed_selection : nullptr;
    check_output(packs ? packs->packed_itemsize : result_view.itemsize, result_view.shape);
    // A copy that walks a cold file down is written from its last chunk to its first where the
    // output lets bytes be placed, so that it reads the file upwards (docs/performance.md).
    std::optional<std::int64_t> placed_from;
    if (alone && walks_cold_file_down(result_view, pages, packs)) placed_from = output.placed_from();
    const ChunkOrder order{placed_from.has_value(), placed_from.value_or(0)};
    ResultReader reader(data, result_view, pages, {options.threads, order.backwards, packs});
    const auto written = static_cast<std::int64_t>(reader.itemsize());
    const std::int64_t total = reader.elements();
    output.expect(static_cast<std::int64_t>(framing.prefix.size()) + total * written);
    // Into a pipe only: into a file, reading with pread on one thread while the other writes
    // was as fast or faster (docs/performance.md).
    if (output.is_pipe() && splice_contiguous(output, framing, reader, options)) return;

    std::int64_t done = 0;
    const std::size_t unit = options.swap_unit ? options.swap_unit : reader.view().itemsize;
    const ChunkSource source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        const std::byte* bytes = reader.chunk(first, count, scratch);
        if (options.swap_bytes) {
            if (bytes != scratch) std::memcpy(scratch, bytes, static_cast<std::size_t>(count * written));
            bytes = scratch;
            swap_elements(scratch, count * written / static_cast<std::int64_t>(unit), unit);
        }
        done += count;
        if (options.progress) options.progress(done * written, total * written);
        return bytes;
    };
    stream_framed(output.fd(), output.name(), framing, reader.itemsize(), reader.view().shape, source,
                  reader.chunk_bytes(), order);
}

}  // namespace tslice
