// A result's values as text for other programs: JSON (nested lists) and CSV (what numpy's
// savetxt(delimiter=",") writes and loadtxt(delimiter=",") reads back). Written as it is made,
// a chunk of elements at a time, so memory stays bounded whatever the result's size.
//
// JSON, one way per kind (a value JSON has no literal for becomes a string or null):
//   bool               true / false
//   integers           exact decimal, whatever the width
//   floats             the shortest text that reads back as the same value ("1.0", "0.1",
//                      "1e+20"); float16 as the shortest float32 text of its value; NaN and the
//                      infinities as the strings "NaN", "Infinity", "-Infinity" (what
//                      float() and np.float64() read back)
//   complex            [real, imag]
//   str ('U')          a string (numpy drops trailing NULs, so does this); a lone surrogate
//                      escaped ("\ud800", as json.dumps writes it), a code point past
//                      U+10FFFF an input error (numpy cannot read it either)
//   bytes ('S'), void  a string of one character per byte, U+0000 to U+00FF (Latin-1:
//                      s.encode("latin-1") gives the bytes back), trailing NULs of 'S' dropped
//   datetime64         numpy's ISO text, "2021-01-01T12:00"; NaT as null
//   timedelta64        the integer count of its unit; NaT as null
//   structured         an object of its fields in order (padding left out), sub-array fields
//                      as nested lists
// CSV: 0-D, 1-D (a value a line) and 2-D (a row a line) results of booleans (1 / 0), integers,
// floats ("nan", "inf", "-inf") and complex numbers ("1+2j"); anything else is a usage error.
#include "tslice/text_values.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "read/result_reader.hpp"
#include "base/python_text.hpp"
#include "text/value_writer.hpp"
#include "write/output_file.hpp"
#include "tslice/error.hpp"

namespace tslice {
namespace {

// Advances `index` (over `shape`) to the next element and writes what stands between the two:
// in JSON the closing and opening brackets of the axes that rolled over and a comma; in CSV a
// comma within a row, else a new line.
char* separator(char* cursor, std::vector<std::int64_t>& index, const std::vector<std::int64_t>& shape, bool json) {
    const std::size_t rank = index.size();
    std::size_t rolled = 0;
    for (std::size_t k = rank; k-- > 1;) {
        if (++index[k] < shape[k]) break;
        index[k] = 0;
        ++rolled;
    }
    if (json) {
        cursor = std::fill_n(cursor, rolled, ']');
        *cursor++ = ',';
        return std::fill_n(cursor, rolled, '[');
    }
    *cursor++ = rank == 2 && rolled == 0 ? ',' : '\n';
    return cursor;
}

// The JSON text of an empty result: "[]" nested as its shape says up to its first 0, so
// (2, 0) is [[],[]] and (2, 3, 0, 5) is [[[],[],[]],[[],[],[]]]. Its length is known before
// it is written: past what a file can hold (2**63 - 1 bytes) it is refused at once, instead
// of running for ever.
void write_empty_json(TextStream& stream, const std::vector<std::int64_t>& shape) {
    const auto zero = std::find(shape.begin(), shape.end(), 0);
    const std::vector<std::int64_t> outer(shape.begin(), zero);
    // Lists at depth k: the product of the first k lengths; each "[]" is 2 bytes and each but
    // the first of a list's items has a comma before it; then a new line.
    UInt128 length = 1, lists = 1, total = 2;
    for (const std::int64_t dim : outer) {
        const UInt128 next = lists * static_cast<std::uint64_t>(dim);
        total += 2 * next + (next - lists);
        lists = next;
        if (total > static_cast<UInt128>(std::numeric_limits<std::int64_t>::max())) break;
    }
    length += total;
    if (length > static_cast<UInt128>(std::numeric_limits<std::int64_t>::max()))
        fail_usage("the JSON text of the empty result of shape " + format_shape(shape) +
                   " would be more than 2**63 - 1 bytes, more than a file can hold");
    std::int64_t leaves = 1;
    for (const std::int64_t dim : outer) leaves *= dim;  // fits: the text is longer
    std::string& out = stream.text();
    out.append(outer.size(), '[');
    std::vector<std::int64_t> index(outer.size(), 0);
    std::vector<char> between(2 * outer.size() + 2);
    for (std::int64_t i = 0; i < leaves; ++i) {
        if (i > 0) out.append(between.data(), separator(between.data(), index, outer, true));
        out += "[]";
        if ((i & 0xFFFF) == 0) stream.maybe_flush();
    }
    out.append(outer.size(), ']');
    out += '\n';
}

}  // namespace

void write_values_as_text(const std::string& path, TextFormat format, const std::byte* data, const View& view,
                          const ElementType& type, const InputPages& pages, const WriteOptions& options,
                          const Conversion* conversion) {
    const bool json = format == TextFormat::Json;
    const std::size_t rank = view.rank();
    if (!json) {
        if (rank > 2)
            fail_usage("CSV holds at most two dimensions; the result's shape is " + format_shape(view.shape) +
                       " (write it with --format json, or slice it to 2-D)");
        if (!csv_number(type))
            fail_usage("CSV holds numbers (booleans, integers, floats, complex); the result's dtype is " +
                       type.name() + " (write it with --format json)");
    }
    const ValueWriter writer(type, json);
    const std::int64_t total = view.element_count();
    // The bytes of an element as formatted (converted, with a conversion).
    const std::size_t itemsize = conversion ? conversion->to_size() : view.itemsize;
    // Elements are formatted from the reader's chunks; one larger than a chunk, from a window
    // of its parts at a time (the reader hands out such elements in parts). With a conversion,
    // a chunk of the source's elements is converted into `elements` first.
    ResultReader reader(data, view, pages, {1, false, nullptr, true});
    const bool windowed = view.itemsize > reader.chunk_bytes();
    if (windowed && conversion)
        throw Error(ErrorKind::Internal, "a conversion of elements larger than a chunk");
    const std::size_t unit = reader.view().itemsize;
    const auto units_per_element = static_cast<std::int64_t>(itemsize / unit);
    const std::int64_t per_chunk = elements_per_chunk(std::max(view.itemsize, itemsize), reader.chunk_bytes());
    const auto chunk_elements = static_cast<std::size_t>(std::min(per_chunk, std::max<std::int64_t>(total, 1)));
    std::vector<std::byte> elements(windowed ? 0 : chunk_elements * itemsize);
    std::vector<std::byte> source(conversion ? chunk_elements * view.itemsize : 0);

    OutputFile output(path);
    TextStream stream(output);
    if (total == 0) {
        if (json) write_empty_json(stream, view.shape);
    } else {
        if (json) stream.text().append(rank, '[');
        std::vector<std::int64_t> index(rank, 0);
        ElementBytes bytes;
        bytes.set_size(itemsize);
        std::vector<char> between(2 * rank + 2);
        for (std::int64_t next = 0; next < total;) {
            const std::int64_t count = windowed ? 1 : std::min(per_chunk, total - next);
            const std::byte* chunk = nullptr;
            if (conversion) {
                conversion->run(reader.chunk(next, count, source.data()), elements.data(), count);
                chunk = elements.data();
            } else if (!windowed) {
                chunk = reader.chunk(next, count, elements.data());
            }
            if (writer.fast()) {
                TextOut text(stream.text());
                for (std::int64_t i = 0; i < count; ++i, ++next) {
                    char* cursor = text.reserve(2 * rank + 1 + ValueWriter::kFastBytes);
                    if (next > 0) cursor = separator(cursor, index, view.shape, json);
                    text.commit(writer.write_fast(cursor, chunk + static_cast<std::size_t>(i) * itemsize));
                }
            } else {
                for (std::int64_t i = 0; i < count; ++i, ++next) {
                    if (next > 0)
                        stream.text().append(between.data(), separator(between.data(), index, view.shape, json));
                    if (windowed) {
                        const std::int64_t element = next;
                        bytes.windowed(unit, [&, element](std::size_t from, std::size_t to, std::byte* dst) {
                            reader.read(dst, element * units_per_element + static_cast<std::int64_t>(from / unit),
                                        static_cast<std::int64_t>((to - from) / unit));
                        });
                    } else {
                        bytes.whole(chunk + static_cast<std::size_t>(i) * itemsize, itemsize);
                    }
                    writer.append(stream, bytes);
                    stream.maybe_flush();
                }
            }
            stream.maybe_flush();
        }
        if (json) stream.text().append(rank, ']');
        stream.text() += '\n';
    }
    stream.flush();
    output.commit(options.sync);
}

}  // namespace tslice
