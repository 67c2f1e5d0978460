// The write stage: a result's elements in C order, chunk by chunk (chunk_stream.hpp), to a
// file or a stream.
//
// A chunk is at most WriteSizes::chunk_bytes (an element larger than that is written in parts).
// A contiguous result of a file is spliced from the file into the output (file_splice.hpp), or
// where the output takes no splice, read from the file into the writer's buffer; of data in
// memory, written straight from it. Anything else is copied (over the worker threads, for
// large results) into the writer's buffer. Input pages the remaining chunks cannot read are
// released as the copy moves on, so a file larger than memory can be sliced.
#include "tslice/write.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "write/chunk_stream.hpp"
#include "source/dtype.hpp"
#include "write/file_splice.hpp"
#include "read/input_paging.hpp"
#include "write/output_file.hpp"
#include "read/gather_reads.hpp"
#include "write/write_into.hpp"
#include "write/write_sizes.hpp"
#include "tslice/container.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/fields.hpp"
#include "tslice/parallel.hpp"

namespace tslice {

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::Input, message); }

WriteSizes g_sizes;

// What any output must be: elements of some bytes, and a shape whose bytes a file can hold.
// Returns its elements.
std::int64_t check_output(std::size_t itemsize, const std::vector<std::int64_t>& shape) {
    if (itemsize == 0) fail("cannot write a dtype with zero-byte elements");
    return checked_element_count(shape, itemsize, "the output shape");
}

}  // namespace

WriteSizes write_sizes() { return g_sizes; }
void set_write_sizes(const WriteSizes& sizes) { g_sizes = sizes; }

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
    stream_framed(output.fd(), output.name(), framing, itemsize, shape, fill, g_sizes.chunk_bytes);
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

// A view whose elements are larger than a chunk, as a view of parts of them: a trailing axis
// over each element's bytes in units of at most `chunk_bytes` (the largest that divides the
// element), so that the writer's two chunk buffers stay bounded in bytes whatever the item
// size. The bytes are the same, in the same order. Other views are returned as they are.
View in_chunk_sized_units(const View& view, std::size_t chunk_bytes) {
    if (view.itemsize <= chunk_bytes) return view;
    std::size_t unit = 1;
    for (std::size_t divisor = 1; divisor * divisor <= view.itemsize; ++divisor) {
        if (view.itemsize % divisor != 0) continue;
        if (divisor <= chunk_bytes) unit = std::max(unit, divisor);
        if (view.itemsize / divisor <= chunk_bytes) unit = std::max(unit, view.itemsize / divisor);
    }
    View units = view;
    units.shape.push_back(static_cast<std::int64_t>(view.itemsize / unit));
    units.byte_strides.push_back(static_cast<std::int64_t>(unit));
    if (units.has_table()) units.table_strides.push_back(0);
    units.itemsize = unit;
    return units;
}

namespace {

// Reverses the bytes of each of `count` elements: a big-endian input written little-endian.
void swap_elements(std::byte* bytes, std::int64_t count, std::size_t itemsize) {
    for (std::int64_t i = 0; i < count; ++i, bytes += itemsize) std::reverse(bytes, bytes + itemsize);
}

// Whether the copy of `view` walks its input downwards: its last chunk (of `chunk_elements`)
// reads wholly below its first (a reversed outer axis). An affine view only.
bool walks_down(const View& view, std::int64_t chunk_elements) {
    const std::int64_t total = view.element_count();
    if (view.has_table() || total <= chunk_elements) return false;
    const std::int64_t last = (total - 1) / chunk_elements * chunk_elements;
    return view.span_of(last, total).end <= view.span_of(0, chunk_elements).begin;
}

// Whether the page cache holds most of `span`: the pages of 16 places spread over it. Asked
// without reading (InputPages::cached): a read that must not wait (RWF_NOWAIT) still starts the
// kernel's readahead where it misses, which on a cold file read up to 16 windows of
// read_ahead_kb at once, out of the copy's order.
bool mostly_cached(const InputPages& pages, View::Span span) {
    constexpr int kPlaces = 16;
    int cached = 0;
    for (int place = 0; place < kPlaces; ++place)
        if (pages.cached(span.begin + (span.end - 1 - span.begin) * place / (kPlaces - 1))) ++cached;
    return 2 * cached > kPlaces;
}

// The same elements of an affine view, from the last to the first: every axis reversed.
View walked_backwards(const View& view) {
    View backwards = view;
    for (std::size_t axis = 0; axis < view.rank(); ++axis) {
        backwards.byte_offset += (view.shape[axis] - 1) * view.byte_strides[axis];
        backwards.byte_strides[axis] = -view.byte_strides[axis];
    }
    return backwards;
}

// A contiguous result of a file, moved chunk by chunk from the file to the output without
// passing through this process (file_splice.hpp), the read ahead and the releases told as it
// goes. Returns false, having written nothing, where the file or the output takes no splice
// at all: the result then goes the usual way. Where splicing stops part way, the rest is read
// and written.
bool splice_contiguous(const OutputFile& output, const OutputFraming& framing, const View& view,
                       const InputPages& pages, std::size_t chunk_bytes, InputPaging& input,
                       const WriteOptions& options) {
    const std::int64_t total = view.element_count();
    if (pages.file < 0 || framing.suffix || options.swap_bytes || total == 0) return false;
    const auto itemsize = static_cast<std::int64_t>(view.itemsize);
    const std::int64_t chunk = elements_per_chunk(view.itemsize, chunk_bytes) * itemsize;
    const std::int64_t size = total * itemsize;
    FileSplice splice(pages.file, output.fd());
    std::vector<std::byte> rest;
    for (std::int64_t done = 0; done < size; done += chunk) {
        const std::int64_t bytes = std::min(chunk, size - done);
        const std::int64_t at = view.byte_offset + done;
        const std::string_view before = done == 0 ? std::string_view(framing.prefix) : std::string_view();
        const FileSplice::Sent sent = splice.send(pages.file_offset + at, bytes, before, output.name());
        if (done == 0 && !sent.before) return false;
        if (sent.bytes < bytes) {
            rest.resize(static_cast<std::size_t>(bytes - sent.bytes));
            pages.read(at + sent.bytes, bytes - sent.bytes, rest.data());
            write_all(output.fd(), reinterpret_cast<const char*>(rest.data()), rest.size(), output.name());
        }
        input.before((done + bytes) / itemsize);
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
    const WriteSizes sizes = g_sizes;
    // A selection of fields is packed from whole elements, so its elements are not split.
    const View view = options.packed_selection ? result_view : in_chunk_sized_units(result_view, sizes.chunk_bytes);
    const auto itemsize = static_cast<std::int64_t>(view.itemsize);
    // A selection of fields is copied whole, a bounded piece at a time, into `whole`, then
    // packed into the chunk; what a file holds of an element is then `written` bytes.
    const DType* packs = options.packed_selection ? &*options.packed_selection : nullptr;
    const auto written = static_cast<std::int64_t>(packs ? packs->packed_itemsize : view.itemsize);
    check_output(static_cast<std::size_t>(written), view.shape);
    const std::int64_t total = view.element_count();
    output.expect(static_cast<std::int64_t>(framing.prefix.size()) + total * written);

    // A copy that walks a file downwards is written from its last chunk to its first where the
    // output allows, so that it reads the file upwards, the order the device and the kernel's
    // readahead stream best: cold, [::-1] of a 1 GiB file took 0.79 of the time, the whole
    // reversal 0.96 (docs/performance-log.md, "Reversed walks written from the last chunk").
    // Not where the page cache holds the input already: there is nothing to gain, and written
    // so to ext4 the runs had more slow outliers.
    const std::int64_t chunk_elements = elements_per_chunk(static_cast<std::size_t>(written), sizes.chunk_bytes);
    const bool turn_around = alone && pages.read_ahead && pages.cached && walks_down(view, chunk_elements) &&
                             !mostly_cached(pages, view.span_of(0, total));
    const std::optional<std::int64_t> placed_from = turn_around ? output.placed_from() : std::nullopt;
    const ChunkOrder order{placed_from.has_value(), placed_from.value_or(0)};
    // The read ahead and the releases follow the copy: backwards, they see the view walked
    // from its last element to its first.
    const View walked = order.backwards ? walked_backwards(view) : View{};
    const View& paged = order.backwards ? walked : view;

    std::vector<std::byte> whole;
    const bool contiguous = !packs && view.is_c_contiguous();
    // A contiguous result is read with pread (below), not through the mapping.
    InputPaging input(paged, pages, sizes, !(contiguous && pages.read));
    // Elements [from, to) are copied: in order, the rest is after them; backwards, before.
    const auto copied = [&](std::int64_t from, std::int64_t to) { input.before(order.backwards ? total - from : to); };
    // Into a pipe only: into a file, reading with pread on one thread while the other writes
    // was as fast warm and, cold, as fast or faster (docs/performance-log.md, "A contiguous
    // result spliced into a pipe").
    if (contiguous && pages.read && output.is_pipe() &&
        splice_contiguous(output, framing, view, pages, sizes.chunk_bytes, input, options))
        return;
    GatherReads gather_reads(data, view, pages, sizes);
    WorkerPool pool(total * itemsize >= sizes.threaded_bytes ? options.threads : 1);
    const double bytes_read_per_element =
        input.releases() && total > 0
            ? static_cast<double>(input.whole().end - input.whole().begin) / static_cast<double>(total)
            : 0;
    std::int64_t previous_first = 0;
    std::int64_t done = 0;

    const ChunkSource source = [&](std::int64_t first, std::int64_t count, std::byte* scratch) {
        const std::byte* bytes = scratch;
        if (contiguous && pages.read) {
            // Not spliced (above). Read into the chunk, not written from the mapping: write()
            // from a file mapping took 1.3 to 1.4x as long for [1:-1] of a 1 GiB file (to ext4
            // and to tmpfs alike; why was not measured: likely the faults that map each page
            // first), and the reading overlaps the writing of the chunk before.
            pages.read(view.byte_offset + first * itemsize, count * itemsize, scratch);
            copied(first, first + count);
        } else if (contiguous) {
            bytes = data + view.byte_offset + first * itemsize;
            if (options.swap_bytes) {
                std::memcpy(scratch, bytes, static_cast<std::size_t>(count * itemsize));
                bytes = scratch;
            }
            // The writer is still writing the previous chunk from the mapping; the one before
            // it is written. (A contiguous view walks upwards: never backwards.)
            input.before(previous_first);
            previous_first = first;
        } else if (gather_reads && !packs) {
            gather_reads.copy(pool, scratch, first, count);
        } else {
            // Pieces of at most release_bytes read; a packed one, of chunk_bytes copied.
            const double bytes_per_piece = packs ? static_cast<double>(sizes.chunk_bytes) : sizes.release_bytes;
            const double bytes_per_element = packs ? static_cast<double>(itemsize) : bytes_read_per_element;
            const std::int64_t pieces = std::clamp<std::int64_t>(
                static_cast<std::int64_t>(std::ceil(static_cast<double>(count) * bytes_per_element / bytes_per_piece)),
                1, count);
            for (std::int64_t step = 0; step < pieces; ++step) {
                const std::int64_t piece = order.backwards ? pieces - 1 - step : step;
                const std::int64_t from = count * piece / pieces;
                const std::int64_t to = count * (piece + 1) / pieces;
                if (packs) {
                    whole.resize(static_cast<std::size_t>((to - from) * itemsize));
                    if (gather_reads)
                        gather_reads.copy(pool, whole.data(), first + from, to - from);
                    else
                        copy_view_parallel(pool, data, view, whole.data(), first + from, to - from, pages.memory());
                    pack_elements(*packs, whole.data(), to - from, scratch + from * written);
                } else {
                    copy_view_parallel(pool, data, view, scratch + from * itemsize, first + from, to - from,
                                       pages.memory());
                }
                copied(first + from, first + to);
            }
        }
        if (options.swap_bytes) {
            const std::size_t unit = options.swap_unit ? options.swap_unit : view.itemsize;
            swap_elements(scratch, count * static_cast<std::int64_t>(view.itemsize / unit), unit);
        }
        done += count;
        if (options.progress) options.progress(done * written, total * written);
        return bytes;
    };
    stream_framed(output.fd(), output.name(), framing, static_cast<std::size_t>(written), view.shape, source,
                  sizes.chunk_bytes, order);
}

}  // namespace tslice
