// What kind of file an input is, its arrays, and the one --key picks.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "tslice/container.hpp"
#include "python_text.hpp"
#include "tslice/error.hpp"
#include "tslice/view.hpp"

namespace tslice {

namespace {

// How many names an error message lists before "and N more".
constexpr std::size_t kNamesShown = 10;

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string quoted(const std::string& name) { return quoted_name(name); }

// A name in --list's column: as it is where that is unambiguous, else as Python's repr().
std::string shown_name(const std::string& name) { return plain_name(name) ? name : quoted_name(name); }

// "'a', 'b', 'c'", nearest to `key` first when there is one, at most kNamesShown of them.
std::string names_list(const std::vector<ArrayInFile>& arrays, const std::optional<std::string>& key) {
    std::vector<std::pair<std::size_t, const std::string*>> names;
    for (const auto& array : arrays) names.emplace_back(key ? edit_distance(*key, *array.name) : 0, &*array.name);
    std::stable_sort(names.begin(), names.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < kNamesShown; ++i) out += (i ? ", " : "") + quoted(*names[i].second);
    if (names.size() > kNamesShown) out += " and " + std::to_string(names.size() - kNamesShown) + " more (--list shows all)";
    return out;
}

}  // namespace

std::string ElementType::name() const {
    if (!safetensors_only.empty()) return safetensors_only;
    return dtype.structured ? dtype.descr : dtype.type_string;
}

std::uint64_t ArrayInFile::data_bytes() const {
    std::uint64_t count = 1;
    for (const auto dim : shape) count *= static_cast<std::uint64_t>(dim);  // checked where read
    return count * type.itemsize();
}

ContainerFormat detect_format(const std::byte* bytes, std::size_t size) {
    const auto starts = [&](const char* magic, std::size_t length) {
        return size >= length && std::memcmp(bytes, magic, length) == 0;
    };
    if (starts("\x93NUMPY", 6)) return ContainerFormat::Npy;
    if (starts("GGUF", 4)) return ContainerFormat::Gguf;
    if (looks_like_torch(bytes, size)) return ContainerFormat::Torch;
    // A local header, or the end record of an empty archive (np.savez with no arrays).
    if (starts("PK\x03\x04", 4) || starts("PK\x05\x06", 4)) return ContainerFormat::Npz;
    // A header length, then the JSON object; the reference refuses any other first byte.
    if (size >= 9 && bytes[8] == std::byte{'{'}) return ContainerFormat::Safetensors;
    return ContainerFormat::Npy;
}

std::vector<ArrayInFile> list_arrays(const std::byte* file, std::size_t size, bool complete) {
    switch (detect_format(file, size)) {
        case ContainerFormat::Npz:
            return list_npz(file, size);
        case ContainerFormat::Safetensors:
            return list_safetensors(file, size);
        case ContainerFormat::Torch:
            return list_torch(file, size);
        case ContainerFormat::Gguf:
            return list_gguf(file, size);
        case ContainerFormat::Npy:
            break;
    }
    const NpyHeader header = parse_npy_header(file, size);
    ArrayInFile array;
    array.type.dtype = header.dtype;
    array.shape = header.shape;
    array.fortran_order = header.fortran_order;
    array.bytes.offset = header.data_offset;
    array.bytes.size = array.data_bytes();
    if (complete && (header.data_offset > size || size - header.data_offset < array.bytes.size))
        throw Error(ErrorKind::Input, "the file is too short for its header: shape " + format_shape(header.shape) +
                                          " of " + header.dtype.descr + " needs " + std::to_string(array.bytes.size) +
                                          " data bytes, the file has " +
                                          std::to_string(size - std::min(size, header.data_offset)));
    return {array};
}

const ArrayInFile& select_array(const std::vector<ArrayInFile>& arrays, const std::optional<std::string>& key) {
    const bool plain = arrays.size() == 1 && !arrays[0].name;
    if (plain) {
        if (key)
            throw Error(ErrorKind::Usage, "--key " + quoted(*key) +
                                              " names an array in a container, but this is a plain .npy file "
                                              "holding one array; leave --key out");
        return arrays[0];
    }
    if (arrays.empty()) throw Error(ErrorKind::Input, "the file holds no arrays");
    if (!key) {
        if (arrays.size() == 1) return arrays[0];
        throw Error(ErrorKind::Usage, "the file holds " + std::to_string(arrays.size()) +
                                          " arrays; choose one with --key: " + names_list(arrays, std::nullopt));
    }
    // A member's full name first, then a name without ".npy", as np.load looks a key up: of
    // members "a" and "a.npy", the key "a" is the first.
    for (const auto& array : arrays)
        if (!array.member.empty() && array.member == *key) return array;
    for (const auto& array : arrays)
        if (*array.name == *key) return array;
    throw Error(ErrorKind::Usage, "--key " + quoted(*key) + ": no such array; the file holds " +
                                      names_list(arrays, key));
}

std::string quoted_name(std::string_view name) { return name_repr(name); }

std::string array_what(const ArrayInFile& array) {
    if (!array.name) return "the array";
    return array.member.empty() ? "the tensor " + quoted_name(*array.name) : "the .npz member " + quoted_name(array.member);
}

void require_readable(const ArrayInFile& array) {
    if (!array.unreadable.empty()) throw Error(ErrorKind::Input, array.unreadable);
}

std::string format_array_list(const std::vector<ArrayInFile>& arrays, bool json) {
    if (json) {
        std::string out = "[";
        for (std::size_t i = 0; i < arrays.size(); ++i) {
            const ArrayInFile& array = arrays[i];
            std::string dims;
            for (std::size_t k = 0; k < array.shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(array.shape[k]);
            const auto text = [](const std::string& value) {
                return nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            };
            out += (i ? ", " : "") + std::string("{\"name\": ") + (array.name ? text(*array.name) : "null") +
                   ", \"dtype\": " + text(array.type.name()) + ", \"shape\": [" + dims + "]";
            if (array.duplicates > 0) out += ", \"duplicates\": " + std::to_string(array.duplicates);
            out += "}";
        }
        return out + "]\n";
    }
    std::size_t name_width = 0, type_width = 0;
    std::vector<std::string> names;
    for (const auto& array : arrays) {
        names.push_back(array.name ? shown_name(*array.name) : std::string());
        name_width = std::max(name_width, names.back().size());
        type_width = std::max(type_width, array.type.name().size());
    }
    std::string out;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const ArrayInFile& array = arrays[i];
        if (array.name) out += names[i] + std::string(name_width - names[i].size() + 2, ' ');
        const std::string type = array.type.name();
        out += type + std::string(type_width - type.size() + 2, ' ') + format_shape(array.shape);
        if (array.duplicates > 0)
            out += "  (the last of " + std::to_string(array.duplicates + 1) + " members named " +
                   quoted_name(array.member) + ", which np.load reads)";
        out += "\n";
    }
    return out;
}

}  // namespace tslice
