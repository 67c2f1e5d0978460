// .safetensors files, as the format's reference (huggingface/safetensors) defines them:
//
//   8 bytes: N, the header length, unsigned little-endian
//   N bytes: a UTF-8 JSON object {"NAME": {"dtype": "F32", "shape": [2, 3], "data_offsets": [B, E]},
//            ..., "__metadata__": {"key": "value", ...}}, which may end in spaces
//   the data: tensor NAME is bytes [B, E) of it, little-endian, C order
//
// Tensors are listed by name, as the reference lists them. Validation follows the reference's:
// a header of at most 100 MB, inside the file, a JSON object starting with '{'; every tensor's
// offsets inside the data, no two overlapping, and E - B equal to the element count times the
// item size. The reference also refuses gaps between tensors and bytes after the last one;
// tslice reads such files (every tensor it reads is checked to lie in the file), since nothing
// about the array is in doubt.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>

#include "base/bytes.hpp"
#include "source/dtype.hpp"
#include "parse/json_reader.hpp"
#include "source/safetensors_header.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/view.hpp"

namespace tslice {

namespace {

constexpr std::uint64_t kMaxHeaderBytes = kMaxSafetensorsHeaderBytes;

struct TypeRow {
    const char* name;
    const char* descr;  // numpy's, or the same-size stand-in of a type numpy lacks
    bool numpy_has;
};

constexpr TypeRow kTypes[] = {
    {"BOOL", "|b1", true},      {"U8", "|u1", true},        {"I8", "|i1", true},     {"I16", "<i2", true},
    {"U16", "<u2", true},       {"F16", "<f2", true},       {"BF16", "|V2", false},  {"I32", "<i4", true},
    {"U32", "<u4", true},       {"F32", "<f4", true},       {"F64", "<f8", true},    {"I64", "<i8", true},
    {"U64", "<u8", true},       {"F8_E4M3", "|V1", false},  {"F8_E5M2", "|V1", false},
    {"F8_E8M0", "|V1", false},  {"C64", "<c8", true},
};

// The types of less than a byte: listed, with their sizes checked as the reference checks
// them, but not sliced (an element is not a whole number of bytes).
struct SubByteRow {
    const char* name;
    unsigned bits;
};
constexpr SubByteRow kSubByteTypes[] = {{"F4", 4}, {"F6_E2M3", 6}, {"F6_E3M2", 6}};

constexpr std::uint8_t kNoType = 0xFF;  // TensorEntry::type of a dtype tslice does not slice

// kTypes' types, parsed once: a checkpoint asks for the same few thousands of times.
const std::vector<ElementType>& element_types() {
    static const std::vector<ElementType> types = [] {
        std::vector<ElementType> out;
        for (const TypeRow& row : kTypes) {
            ElementType type;
            type.dtype = parse_dtype_descr(std::string("'") + row.descr + "'");
            if (!row.numpy_has) type.safetensors_only = row.name;
            out.push_back(std::move(type));
        }
        return out;
    }();
    return types;
}

std::string json_quoted(const std::string& name) { return nlohmann::json(name).dump(); }

// What the file says, for a message: the text of a value, cut short if long.
std::string excerpt(std::string_view text) {
    constexpr std::size_t kShown = 80;
    return text.size() <= kShown ? std::string(text) : std::string(text.substr(0, kShown)) + "...";
}

// One tensor as the header describes it; checked against the data once every entry is read,
// since of a name given twice only the last counts (as in any JSON object). Kept small: a
// checkpoint has thousands, and every page of them is a page fault on a cold start.
struct TensorEntry {
    std::string name;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;
    std::uint8_t type = 0;  // the row of kTypes, or kNoType
    std::string dtype;      // the file's name for it, where type is kNoType
};

std::string where(const std::string& name) { return "safetensors tensor " + json_quoted(name); }

std::string offsets_text(const TensorEntry& tensor) {
    return "[" + std::to_string(tensor.begin) + ", " + std::to_string(tensor.end) + "]";
}

std::vector<std::int64_t> read_shape(std::string_view text, const std::string& name) {
    const auto wrong = [&] {
        fail_input(where(name) + ": \"shape\" must be a list of non-negative integers, not " + excerpt(text));
    };
    json::Reader list(text);
    if (!list.consume('[')) wrong();
    std::vector<std::int64_t> shape;
    if (list.consume(']')) return shape;
    do {
        const std::optional<std::uint64_t> dim = list.unsigned_integer();
        if (!dim || *dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) wrong();
        if (shape.size() == kMaxRank)
            fail_input(where(name) + ": \"shape\" has more than " + std::to_string(kMaxRank) +
                       " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
        shape.push_back(static_cast<std::int64_t>(*dim));
    } while (list.consume(','));
    return shape;  // skip_value checked the rest: ']'
}

void read_offsets(std::string_view text, TensorEntry& tensor) {
    json::Reader pair(text);
    std::optional<std::uint64_t> begin, end;
    if (pair.consume('[') && (begin = pair.unsigned_integer()) && pair.consume(',') && (end = pair.unsigned_integer()) &&
        pair.consume(']')) {
        tensor.begin = *begin;
        tensor.end = *end;
        return;
    }
    fail_input(where(tensor.name) + ": \"data_offsets\" must be [begin, end], two non-negative integers, not " +
               excerpt(text));
}

// A tensor's object: "dtype", "shape" and "data_offsets"; other keys are passed over, as the
// reference passes over them.
TensorEntry read_tensor(json::Reader& reader, std::string name) {
    TensorEntry tensor;
    tensor.name = std::move(name);
    // Only a message needs it.
    const auto where = [&] { return tslice::where(tensor.name); };
    if (reader.peek() != '{') fail_input(where() + " is not a JSON object with dtype, shape and data_offsets");
    reader.expect('{', "'{'");
    std::string dtype;
    bool has_dtype = false, has_shape = false, has_offsets = false;
    if (!reader.consume('}')) {
        do {
            const std::string key = reader.string();
            reader.expect(':', "':' after an object's key");
            if (key == "dtype") {
                if (reader.peek() != '"')
                    fail_input(where() + ": \"dtype\" must be a string, not " + excerpt(reader.skip_value()));
                dtype = reader.string();
                has_dtype = true;
            } else if (key == "shape") {
                tensor.shape = read_shape(reader.skip_value(), tensor.name);
                has_shape = true;
            } else if (key == "data_offsets") {
                read_offsets(reader.skip_value(), tensor);
                has_offsets = true;
            } else {
                reader.skip_value();
            }
        } while (reader.consume(','));
        reader.expect('}', "',' or '}'");
    }
    if (!has_dtype) fail_input(where() + " has no \"dtype\"");
    if (!has_shape) fail_input(where() + " has no \"shape\"");
    if (!has_offsets) fail_input(where() + " has no \"data_offsets\"");
    const auto row = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const TypeRow& r) { return dtype == r.name; });
    if (row == std::end(kTypes)) {
        // Listed, and refused only when chosen (list_safetensors says why).
        tensor.type = kNoType;
        tensor.dtype = std::move(dtype);
        return tensor;
    }
    tensor.type = static_cast<std::uint8_t>(row - std::begin(kTypes));
    return tensor;
}

// The tensors of the header, sorted by name (the order in which the reference's
// safe_open().keys() lists them); of a name given twice, the last.
std::vector<TensorEntry> read_header(std::string_view text) {
    std::vector<TensorEntry> tensors;
    try {
        // The whole text is checked first, so that a file that is not JSON is named as such
        // whatever else is wrong with it.
        json::Reader syntax(text);
        syntax.skip_value();
        syntax.finish();
        json::Reader reader(text);
        reader.expect('{', "'{'");
        if (!reader.consume('}')) {
            do {
                std::string name = reader.string();
                reader.expect(':', "':' after an object's key");
                if (name == "__metadata__") {
                    const bool object = reader.peek() == '{';
                    reader.skip_value();
                    if (!object) fail_input("the safetensors header's \"__metadata__\" is not a JSON object");
                } else {
                    tensors.push_back(read_tensor(reader, std::move(name)));
                }
            } while (reader.consume(','));
            reader.expect('}', "',' or '}'");
        }
        reader.finish();
    } catch (const json::SyntaxError& error) {
        fail_input(std::string("the safetensors header is not valid JSON: ") + error.what());
    }
    // Sorted by name, the last of equal names kept: through indices, which move 4 bytes
    // where an entry would move 64.
    std::vector<std::uint32_t> order(tensors.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const int by_name = tensors[a].name.compare(tensors[b].name);
        return by_name != 0 ? by_name < 0 : a < b;
    });
    std::vector<TensorEntry> sorted;
    sorted.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        if (i + 1 == order.size() || tensors[order[i + 1]].name != tensors[order[i]].name)
            sorted.push_back(std::move(tensors[order[i]]));
    tensors = std::move(sorted);
    return tensors;
}

// A tensor of a dtype tslice does not slice: its sizes checked where the format defines the
// dtype's width (a whole number of bytes, as the reference asks), and why it cannot be read.
void unreadable_type(const TensorEntry& tensor, ArrayInFile& array) {
    array.stored_type = tensor.dtype;
    const auto row = std::find_if(std::begin(kSubByteTypes), std::end(kSubByteTypes),
                                  [&](const SubByteRow& r) { return tensor.dtype == r.name; });
    std::string readable;
    for (const TypeRow& r : kTypes) readable += std::string(readable.empty() ? "" : ", ") + r.name;
    if (row == std::end(kSubByteTypes)) {
        array.error = where(*array.name) + " has the dtype " + json_quoted(tensor.dtype) +
                      ", which tslice does not know (it reads " + readable + ")";
        return;
    }
    std::uint64_t bits = row->bits;
    bool overflow = false;
    for (const auto dim : array.shape)
        overflow = overflow || __builtin_mul_overflow(bits, static_cast<std::uint64_t>(dim), &bits);
    if (std::find(array.shape.begin(), array.shape.end(), 0) != array.shape.end()) bits = 0, overflow = false;
    if (overflow || bits % 8 != 0 || bits / 8 != tensor.end - tensor.begin)
        fail_input(where(*array.name) + ": shape " + format_shape(array.shape) + " of " + tensor.dtype + " (" +
                   std::to_string(row->bits) + " bits each) does not fill \"data_offsets\" " + offsets_text(tensor) +
                   " exactly");
    array.error = where(*array.name) + " has the dtype " + tensor.dtype + " of " + std::to_string(row->bits) +
                  "-bit elements, which tslice lists but cannot slice (it slices whole-byte elements: " + readable + ")";
}

}  // namespace

std::uint64_t safetensors_data_end(std::string_view header_text) {
    // read_header's syntax pass, then only the "data_offsets" of each entry: the rest of each
    // entry is checked when the spooled file is listed, and building every entry here would
    // double what a header of a million tensors costs.
    std::uint64_t end = 0;
    try {
        json::Reader syntax(header_text);
        syntax.skip_value();
        syntax.finish();
        json::Reader reader(header_text);
        reader.expect('{', "'{'");
        if (reader.consume('}')) return 0;
        do {
            reader.skip_value();  // the name
            reader.expect(':', "':' after an object's key");
            if (reader.peek() != '{') {
                reader.skip_value();
                continue;
            }
            reader.expect('{', "'{'");
            if (reader.consume('}')) continue;
            do {
                const bool offsets = reader.skip_value() == "\"data_offsets\"";
                reader.expect(':', "':' after an object's key");
                const std::string_view value = reader.skip_value();
                if (!offsets) continue;
                json::Reader pair(value);
                std::optional<std::uint64_t> first, last;
                if (pair.consume('[') && (first = pair.unsigned_integer()) && pair.consume(',') &&
                    (last = pair.unsigned_integer()))
                    end = std::max(end, *last);
            } while (reader.consume(','));
            reader.expect('}', "',' or '}'");
        } while (reader.consume(','));
    } catch (const json::SyntaxError& error) {
        fail_input(std::string("the safetensors header is not valid JSON: ") + error.what());
    }
    return end;
}

std::optional<ElementType> safetensors_element_type(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kTypes); ++i)
        if (name == kTypes[i].name) return element_types()[i];
    return std::nullopt;
}

std::optional<std::string> safetensors_name(const ElementType& type) {
    if (!type.safetensors_only.empty()) return type.safetensors_only;
    const DType& dtype = type.dtype;
    if (dtype.structured || dtype.type_string.size() < 2) return std::nullopt;
    // Big-endian types are written byte-swapped, under their little-endian name.
    std::string little = dtype.type_string;
    if (little[0] == '>' || little[0] == '=') little[0] = dtype.itemsize == 1 ? '|' : '<';
    if (dtype.itemsize == 1 && little[0] == '<') little[0] = '|';
    for (const TypeRow& row : kTypes)
        if (row.numpy_has && little == row.descr) return std::string(row.name);
    return std::nullopt;
}

std::vector<ArrayInFile> list_safetensors(const std::byte* file, std::size_t size) {
    if (size < 8)
        fail_input("the safetensors file is cut short: " + std::to_string(size) +
                   " bytes, too few for its 8-byte header length");
    const std::uint64_t header_size = load_le<std::uint64_t>(file);
    if (header_size > kMaxHeaderBytes)
        fail_input("the safetensors header claims to be " + std::to_string(header_size) +
                   " bytes long; the format allows at most 100 MB (" + std::to_string(kMaxHeaderBytes) + " bytes)");
    if (header_size > size - 8)
        fail_input("the safetensors header length " + std::to_string(header_size) + " reaches beyond the end of the " +
                   std::to_string(size) + "-byte file (truncated or not a safetensors file)");
    const char* text = reinterpret_cast<const char*>(file + 8);
    if (header_size == 0 || text[0] != '{')
        fail_input("the safetensors header does not start with '{' (not a safetensors file)");
    std::vector<TensorEntry> tensors = read_header(std::string_view(text, header_size));

    const std::uint64_t data_start = 8 + header_size;
    const std::uint64_t data_size = size - data_start;
    std::vector<ArrayInFile> arrays;
    arrays.reserve(tensors.size());
    for (TensorEntry& tensor : tensors) {
        const std::uint64_t begin = tensor.begin, end = tensor.end;
        const auto where = [&] { return tslice::where(tensor.name) + ": \"data_offsets\" " + offsets_text(tensor); };
        if (begin > end) fail_input(where() + " ends before it begins");
        if (end > data_size)
            fail_input(where() + " reach past the end of the data (" + std::to_string(data_size) +
                       " bytes; the file is truncated or corrupt)");
        ArrayInFile array;
        array.name = std::move(tensor.name);
        array.shape = std::move(tensor.shape);
        if (tensor.type == kNoType) {
            unreadable_type(tensor, array);
        } else {
            array.type = element_types()[tensor.type];
            array.stored_type = kTypes[tensor.type].name;
            // numpy's rule ("array is too big"), as for a .npy header: the non-zero dimensions
            // times the item size must fit 63 bits even where another dimension is 0, so that no
            // stride of the array overflows.
            try {
                checked_element_count(array.shape, array.type.itemsize(), "the shape");
            } catch (const Error& error) {
                fail_input(tslice::where(*array.name) + ": " + error.what());
            }
            // An element count too large for 64 bits cannot match any offsets in the file.
            std::uint64_t need = array.type.itemsize();
            bool overflow = false;
            for (const auto dim : array.shape)
                overflow = overflow || __builtin_mul_overflow(need, static_cast<std::uint64_t>(dim), &need);
            if (std::find(array.shape.begin(), array.shape.end(), 0) != array.shape.end()) need = 0, overflow = false;
            if (overflow || need != end - begin)
                fail_input(tslice::where(*array.name) + ": shape " + format_shape(array.shape) + " of " +
                           kTypes[tensor.type].name + " needs " +
                           (overflow ? std::string("more than 2**64") : std::to_string(need)) +
                           " bytes, but \"data_offsets\" " + offsets_text(tensor) + " hold " +
                           std::to_string(end - begin));
        }
        array.bytes.kind = ArrayBytes::Kind::Mapped;
        array.bytes.offset = data_start + begin;
        array.bytes.size = end - begin;
        arrays.push_back(std::move(array));
    }

    // No two tensors may share a byte: sorted by where they start, each must end before the
    // next begins (empty tensors share nothing).
    std::vector<const ArrayInFile*> by_offset;
    for (const auto& array : arrays)
        if (array.bytes.size > 0) by_offset.push_back(&array);
    std::sort(by_offset.begin(), by_offset.end(),
              [](const ArrayInFile* a, const ArrayInFile* b) { return a->bytes.offset < b->bytes.offset; });
    for (std::size_t i = 1; i < by_offset.size(); ++i) {
        const ArrayInFile& before = *by_offset[i - 1];
        const ArrayInFile& after = *by_offset[i];
        if (before.bytes.offset + before.bytes.size > after.bytes.offset)
            fail_input("safetensors tensors " + json_quoted(*before.name) + " and " + json_quoted(*after.name) +
                       " overlap: their \"data_offsets\" share bytes (corrupt file)");
    }
    return arrays;
}

std::string safetensors_metadata(const std::byte* file, std::size_t size) {
    if (size < 8) return {};
    const std::uint64_t header_size = load_le<std::uint64_t>(file);
    if (header_size > kMaxHeaderBytes || header_size > size - 8) return {};
    try {
        json::Reader reader(std::string_view(reinterpret_cast<const char*>(file + 8), header_size));
        reader.expect('{', "'{'");
        if (reader.consume('}')) return {};
        do {
            const std::string key = reader.string();
            reader.expect(':', "':' after an object's key");
            const std::string_view value = reader.skip_value();
            if (key == "__metadata__" && !value.empty() && value.front() == '{') return std::string(value);
        } while (reader.consume(','));
    } catch (const json::SyntaxError&) {
    }
    return {};
}

std::string safetensors_prefix(std::string_view name, std::string_view dtype_name,
                               const std::vector<std::int64_t>& shape, std::uint64_t data_bytes,
                               std::string_view metadata) {
    nlohmann::ordered_json info;
    info["dtype"] = dtype_name;
    info["shape"] = shape;
    info["data_offsets"] = {0, data_bytes};
    nlohmann::ordered_json header;
    header[std::string(name)] = info;
    std::string text;
    try {
        text = header.dump();
    } catch (const nlohmann::json::exception&) {
        // The command line refuses a name that is not UTF-8 before it gets here (slice.cpp);
        // for other callers its bad bytes are replaced, as Python's errors="replace" would.
        text = header.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    // The input's metadata first, as its text: the reference writes it first too.
    if (!metadata.empty()) text = "{\"__metadata__\":" + std::string(metadata) + (text == "{}" ? "}" : "," + text.substr(1));
    // The data starts on an 8-byte boundary, as the reference writes it.
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    for (int k = 0; k < 8; ++k) out[k] = static_cast<char>((text.size() >> (8 * k)) & 0xFF);
    return out + text;
}

}  // namespace tslice
