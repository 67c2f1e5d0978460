// What kind of file an input is, its arrays, and the one --key picks.
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "tslice/container.hpp"
#include "base/python_text.hpp"
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

std::string unread_format(const std::byte* bytes, std::size_t size, const std::vector<std::string>& zip_members) {
    const auto at = [&](std::size_t offset, std::string_view magic) {
        return size >= offset + magic.size() && std::memcmp(bytes + offset, magic.data(), magic.size()) == 0;
    };
    // torch.save since 1.6: a zip whose one top folder holds data.pkl, the pickled object,
    // and data/N, the storages.
    for (const std::string& member : zip_members)
        if (member.size() > 9 && member.compare(member.size() - 9, 9, "/data.pkl") == 0)
            return "a PyTorch checkpoint (torch.save: a zip archive holding " + member + ")";
    if (!zip_members.empty()) return {};
    if (at(0, "\x1f\x8b")) return "a gzip file (decompress it first: gzip -dc FILE | tslice - ...)";
    if (at(0, std::string_view("\x28\xb5\x2f\xfd", 4))) return "a zstd file (decompress it first: zstd -dc FILE | tslice - ...)";
    if (size >= 2 && bytes[0] == std::byte{0x80} && std::to_integer<int>(bytes[1]) >= 2 && std::to_integer<int>(bytes[1]) <= 5)
        return "a Python pickle";
    return {};
}

std::string unread_directory_format(const std::string& path) {
    // Zarr v2 stores (.zarray, .zgroup) are read; version 3 keeps its metadata in zarr.json.
    if (::access((path + "/zarr.json").c_str(), F_OK) == 0) return "a Zarr version 3 store (a directory holding zarr.json)";
    return {};
}

Error unread_format_error(const std::string& format) {
    return Error(ErrorKind::Input, "this is " + format +
                                       ", which tslice does not read; it reads .npy files, .npz archives (np.savez, "
                                       "np.savez_compressed), .safetensors files, PyTorch checkpoints (torch.save, "
                                       "1.6 and later), GGUF files, HDF5 files and Zarr v2 stores");
}

std::vector<ArrayInFile> list_arrays(const std::byte* file, std::size_t size, bool complete) {
    switch (detect_format(file, size)) {
        case ContainerFormat::Npz: {
            std::vector<ArrayInFile> arrays = list_npz(file, size);
            // A zip of no .npy at all may be another format's.
            if (std::all_of(arrays.begin(), arrays.end(), [](const ArrayInFile& a) { return !a.error.empty(); })) {
                std::vector<std::string> members;
                for (const ArrayInFile& array : arrays) members.push_back(array.member);
                if (const std::string format = unread_format(file, size, members); !format.empty())
                    throw unread_format_error(format);
            }
            return arrays;
        }
        case ContainerFormat::Safetensors:
            return list_safetensors(file, size);
        case ContainerFormat::Torch:
            return list_torch(file, size);
        case ContainerFormat::Gguf:
            return list_gguf(file, size);
        case ContainerFormat::Npy:
            break;
    }
    if (const std::string format = unread_format(file, size); !format.empty()) throw unread_format_error(format);
    const NpyHeader header = parse_npy_header(file, size);
    ArrayInFile array;
    array.type.dtype = header.dtype;
    array.shape = header.shape;
    array.fortran_order = header.fortran_order;
    array.bytes.offset = header.data_offset;
    array.bytes.size = array.data_bytes();
    if (complete && (header.data_offset > size || size - header.data_offset < array.bytes.size))
        fail_input("the file is too short for its header: shape " + format_shape(header.shape) + " of " +
                   header.dtype.descr + " needs " + std::to_string(array.bytes.size) + " data bytes, the file has " +
                   std::to_string(size - std::min(size, header.data_offset)));
    return {array};
}

const ArrayInFile& select_array(const std::vector<ArrayInFile>& arrays, const std::optional<std::string>& key) {
    const bool plain = arrays.size() == 1 && !arrays[0].name;
    if (plain) {
        if (key)
            fail_usage("--key " + quoted(*key) +
                       " names an array in a container, but this is a plain .npy file "
                       "holding one array; leave --key out");
        return arrays[0];
    }
    if (arrays.empty()) fail_input("the file holds no arrays");
    if (!key) {
        if (arrays.size() == 1) return arrays[0];
        fail_usage("the file holds " + std::to_string(arrays.size()) +
                   " arrays; choose one with --key: " + names_list(arrays, std::nullopt));
    }
    const std::vector<const ArrayInFile*> chosen = select_arrays(arrays, {*key});
    if (chosen.size() > 1)
        fail_usage("--key " + quoted(*key) + " chooses " + std::to_string(chosen.size()) + " arrays; this takes one");
    return *chosen[0];
}

namespace {

// A member's full name first, then a name without ".npy", as np.load looks a key up: of
// members "a" and "a.npy", the key "a" is the first.
const ArrayInFile* named(const std::vector<ArrayInFile>& arrays, const std::string& key) {
    for (const auto& array : arrays)
        if (!array.member.empty() && array.member == key) return &array;
    for (const auto& array : arrays)
        if (*array.name == key) return &array;
    return nullptr;
}

bool is_glob(const std::string& key) { return key.find_first_of("*?[") != std::string::npos; }

// UTF-8 as code points (a byte that is not valid UTF-8 stands for itself), so that `?` and
// `[é]` take a character, as Python's fnmatch does, whatever the locale.
std::u32string code_points(const std::string& text) {
    std::u32string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        const int length = byte < 0x80 ? 1 : (byte >> 5) == 6 ? 2 : (byte >> 4) == 14 ? 3 : (byte >> 3) == 30 ? 4 : 0;
        char32_t point = length == 1 ? byte : length == 2 ? byte & 0x1F : length == 3 ? byte & 0x0F : byte & 0x07;
        bool valid = length > 0 && i + length <= text.size();
        for (int k = 1; valid && k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            valid = (next >> 6) == 2;
            point = (point << 6) | (next & 0x3F);
        }
        out += valid ? point : byte;
        i += valid ? length : 1;
    }
    return out;
}

// Python's fnmatch (fnmatchcase): `*` any run of characters, '/' and '.' too; `?` one;
// `[abc]`, `[a-z]`, `[!abc]` one of a set (a ']' first is in the set); a '[' without its ']'
// is itself; no escapes.
bool glob_matches(std::u32string_view glob, std::u32string_view name) {
    std::size_t g = 0, n = 0;
    std::size_t star = std::u32string_view::npos, resume = 0;
    while (n < name.size()) {
        bool step = false;
        if (g < glob.size() && glob[g] == U'*') {
            star = g++;
            resume = n;
            continue;
        }
        std::size_t next = g + 1;
        if (g < glob.size() && glob[g] == U'?') {
            step = true;
        } else if (g < glob.size() && glob[g] == U'[') {
            std::size_t k = g + 1;
            const bool negate = k < glob.size() && glob[k] == U'!';
            if (negate) ++k;
            std::size_t end = k < glob.size() && glob[k] == U']' ? k + 1 : k;
            while (end < glob.size() && glob[end] != U']') ++end;
            if (end >= glob.size()) {
                step = name[n] == U'[';  // no closing ']': a plain '['
            } else {
                bool in = false;
                for (std::size_t i = k; i < end; ++i) {
                    if (i + 2 < end && glob[i + 1] == U'-') {
                        in = in || (glob[i] <= name[n] && name[n] <= glob[i + 2]);
                        i += 2;
                    } else {
                        in = in || glob[i] == name[n];
                    }
                }
                step = in != negate;
                next = end + 1;
            }
        } else if (g < glob.size()) {
            step = glob[g] == name[n];
        }
        if (step) {
            g = next;
            ++n;
        } else if (star != std::u32string_view::npos) {
            g = star + 1;
            n = ++resume;
        } else {
            return false;
        }
    }
    while (g < glob.size() && glob[g] == U'*') ++g;
    return g == glob.size();
}

bool glob_matches(const std::string& glob, const std::string& name) {
    return glob_matches(code_points(glob), code_points(name));
}

}  // namespace

std::vector<const ArrayInFile*> select_arrays(const std::vector<ArrayInFile>& arrays,
                                              const std::vector<std::string>& keys, bool refuse_unreadable) {
    std::vector<bool> chosen(arrays.size(), false);
    if (keys.empty()) {
        chosen[&select_array(arrays, std::nullopt) - arrays.data()] = true;
    } else {
        if (arrays.size() == 1 && !arrays[0].name) {
            select_array(arrays, keys[0]);  // throws: a key on a plain .npy
        }
        if (arrays.empty()) fail_input("the file holds no arrays");
        for (const std::string& key : keys) {
            // A name is itself first, even one with glob characters in it.
            if (const ArrayInFile* array = named(arrays, key)) {
                chosen[array - arrays.data()] = true;
                continue;
            }
            bool any = false;
            if (is_glob(key))
                for (std::size_t i = 0; i < arrays.size(); ++i)
                    if (glob_matches(key, *arrays[i].name) ||
                        (!arrays[i].member.empty() && glob_matches(key, arrays[i].member)))
                        chosen[i] = any = true;
            if (!any)
                fail_usage("--key " + quoted(key) +
                           (is_glob(key) ? ": the pattern matches no array" : ": no such array") + "; the file holds " +
                           names_list(arrays, key));
        }
    }
    std::vector<const ArrayInFile*> out;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        if (!chosen[i]) continue;
        const ArrayInFile& array = arrays[i];
        if (refuse_unreadable && !array.error.empty()) fail_input(array.error);  // it names the array
        out.push_back(&array);
    }
    return out;
}

std::string quoted_name(std::string_view name) { return name_repr(name); }

std::string shown_name(const std::string& name) { return plain_name(name) ? name : quoted_name(name); }

std::string array_what(const ArrayInFile& array) {
    if (!array.name) return "the array";
    // (An HDF5 dataset keeps its path in the file as its member; a Zarr array has none.)
    if (array.bytes.kind == ArrayBytes::Kind::Region)
        return (array.member.empty() ? "the array " : "the dataset ") + quoted_name(*array.name);
    return array.member.empty() ? "the tensor " + quoted_name(*array.name) : "the .npz member " + quoted_name(array.member);
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
                   ", \"dtype\": " + text(array.type_name()) + ", \"shape\": " + (array.shape_known ? "[" + dims + "]" : "null");
            if (array.duplicates > 0) out += ", \"duplicates\": " + std::to_string(array.duplicates);
            if (!array.error.empty()) out += ", \"error\": " + text(array.error);
            out += "}";
        }
        return out + "]\n";
    }
    std::size_t name_width = 0, type_width = 0;
    std::vector<std::string> names;
    for (const auto& array : arrays) {
        names.push_back(array.name ? shown_name(*array.name) : std::string());
        name_width = std::max(name_width, names.back().size());
        type_width = std::max(type_width, array.type_name().size());
    }
    std::string out;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const ArrayInFile& array = arrays[i];
        if (array.name) out += names[i] + std::string(name_width - names[i].size() + 2, ' ');
        const std::string type = array.type_name();
        // The shape is whatever the file says of an array with an error: maybe nothing.
        out += type + std::string(type_width - type.size() + 2, ' ') + (array.shape_known ? format_shape(array.shape) : "?");
        if (array.duplicates > 0)
            out += "  (the last of " + std::to_string(array.duplicates + 1) + " members named " +
                   quoted_name(array.member) + ", which np.load reads)";
        out += array.error.empty() ? "\n" : "  (unreadable: " + array.error + ")\n";
    }
    return out;
}

}  // namespace tslice
