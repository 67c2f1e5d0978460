// PyTorch torch.save files (torch >= 1.6, the zip format):
//
//   ARCHIVE/data.pkl     the saved object, pickled (protocol 2 by default)
//   ARCHIVE/byteorder    "little" or "big" (torch >= 2.0; absent means little)
//   ARCHIVE/data/KEY     one storage's bytes, stored (never compressed), 64-byte aligned
//   ARCHIVE/version, ...
//
// ARCHIVE is the file's name without its extension, or "archive". In data.pkl every tensor is
//   torch._utils._rebuild_tensor_v2(STORAGE, offset, sizes, strides, requires_grad, hooks[, metadata])
// and every STORAGE a persistent id ('storage', torch.FloatStorage, 'KEY', 'cpu', numel): a
// tensor is a strided view (in elements) of the bytes of data/KEY, which several tensors may
// share (tied weights, a transpose, a slice). They are mapped where they are, never copied.
//
// The pickle is read by tslice's own machine (pickle.hpp says why), which runs nothing: the
// calls below are the only ones it knows, and everything else is an opaque leaf that is not
// listed.
#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "base/bytes.hpp"
#include "source/pickle.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "source/zip.hpp"

namespace tslice {

namespace {

using pickle::Node;
using Kind = pickle::Node::Kind;

// How deep containers may nest, and how many containers and leaves a walk visits: a pickle
// may share one list between many places (each level doubling the paths), or hold itself.
constexpr int kMaxDepth = 200;
constexpr std::size_t kMaxVisits = 2'000'000;

// A storage type's element type: the legacy torch.*Storage names torch.save writes, and
// torch dtype names (torch.float8_e4m3fn) for the tensors whose storage is untyped.
struct TypeRow {
    const char* storage;  // torch.FloatStorage
    const char* dtype;    // torch.float32
    const char* descr;    // numpy's, little-endian; or a safetensors name
};
constexpr TypeRow kTypes[] = {
    {"DoubleStorage", "float64", "<f8"},      {"FloatStorage", "float32", "<f4"},
    {"HalfStorage", "float16", "<f2"},        {"BFloat16Storage", "bfloat16", "BF16"},
    {"Float8_e4m3fnStorage", "float8_e4m3fn", "F8_E4M3"},
    {"Float8_e5m2Storage", "float8_e5m2", "F8_E5M2"},
    {"LongStorage", "int64", "<i8"},          {"IntStorage", "int32", "<i4"},
    {"ShortStorage", "int16", "<i2"},         {"CharStorage", "int8", "|i1"},
    {"ByteStorage", "uint8", "|u1"},          {"BoolStorage", "bool", "|b1"},
    {"ComplexFloatStorage", "complex64", "<c8"}, {"ComplexDoubleStorage", "complex128", "<c16"},
    {"UInt16Storage", "uint16", "<u2"},       {"UInt32Storage", "uint32", "<u4"},
    {"UInt64Storage", "uint64", "<u8"},       {"UntypedStorage", "", "|u1"},
};

const TypeRow* find_type(const std::string& global) {
    if (global.rfind("torch.", 0) != 0) return nullptr;
    const std::string name = global.substr(6);
    for (const TypeRow& row : kTypes)
        if (name == row.storage || (*row.dtype && name == row.dtype)) return &row;
    return nullptr;
}

ElementType element_type(const TypeRow& row, bool big_endian, const std::string& where) {
    if (const auto narrow = safetensors_element_type(row.descr)) {
        if (big_endian && narrow->itemsize() > 1)
            fail_input(where + " is " + row.dtype + " saved big-endian, which tslice does not read");
        return *narrow;
    }
    std::string descr = row.descr;
    if (big_endian && descr[0] == '<') descr[0] = '>';
    return ElementType{parse_dtype_descr("'" + descr + "'"), {}};
}

struct Storage {
    std::string key;
    const TypeRow* type = nullptr;
};

struct Tensor {
    std::size_t storage = 0;
    const TypeRow* type = nullptr;  // v3's explicit dtype; else the storage's
    std::int64_t offset = 0;
    std::vector<std::int64_t> sizes, strides;
};

struct Objects {
    std::vector<Storage> storages;
    std::unordered_map<std::string, std::size_t> storage_index;  // key and type name -> storages
    std::vector<Tensor> tensors;
};

// An Extern node's tag: a storage's index, or kTensorTag plus a tensor's (the pickle makes
// fewer than kMaxNodes of either).
constexpr std::int64_t kTensorTag = std::int64_t{1} << 40;

bool is_int(const Node* node) { return node->kind == Kind::Int; }

std::vector<std::int64_t> int_tuple(const Node* node, const char* what) {
    if (node->kind != Kind::Tuple && node->kind != Kind::List)
        fail_input(std::string("a tensor's ") + what + " is not a tuple of integers");
    if (node->items.size() > kMaxRank)
        fail_input(std::string("a tensor's ") + what + " has " + std::to_string(node->items.size()) +
                   " dimensions; numpy arrays have at most " + std::to_string(kMaxRank));
    std::vector<std::int64_t> out;
    for (const Node* item : node->items) {
        if (!is_int(item)) fail_input(std::string("a tensor's ") + what + " is not a tuple of integers");
        out.push_back(item->integer);
    }
    return out;
}

Node* make_tensor(pickle::Arena& arena, Objects& objects, Node* storage, Node* offset, Node* sizes, Node* strides,
                  const TypeRow* dtype) {
    if (storage->kind == Kind::Opaque) return nullptr;  // a storage of a type tslice does not read
    if (storage->kind != Kind::Extern || storage->integer >= kTensorTag)
        fail_input(
            "a tensor's storage is not a storage of the file (torch._utils._rebuild_tensor_v2's first argument)");
    if (!is_int(offset) || offset->integer < 0) fail_input("a tensor's storage offset is not a non-negative integer");
    Tensor tensor;
    tensor.storage = static_cast<std::size_t>(storage->integer);
    tensor.type = dtype;
    tensor.offset = offset->integer;
    tensor.sizes = int_tuple(sizes, "size");
    tensor.strides = int_tuple(strides, "stride");
    if (tensor.sizes.size() != tensor.strides.size())
        fail_input("a tensor has a different number of sizes and strides");
    for (std::size_t k = 0; k < tensor.sizes.size(); ++k)
        if (tensor.sizes[k] < 0 || tensor.strides[k] < 0) fail_input("a tensor has a negative size or stride");
    Node* node = arena.make(Kind::Extern);
    node->integer = kTensorTag + static_cast<std::int64_t>(objects.tensors.size());
    objects.tensors.push_back(std::move(tensor));
    return node;
}

// The calls torch.save writes for tensors; nullptr (an opaque leaf) for any other. `depth`
// counts rebuilds of subclasses inside each other: one is what torch writes, and a hostile
// chain of them must not run the stack out.
Node* call(pickle::Arena& arena, Objects& objects, const std::string& global, Node* args, int depth = 0) {
    const std::vector<Node*>& a = args->items;
    if (global == "torch._utils._rebuild_tensor_v2" || global == "torch._utils._rebuild_tensor") {
        if (a.size() < 4) fail_input(global + " with " + std::to_string(a.size()) + " arguments (at least 4)");
        return make_tensor(arena, objects, a[0], a[1], a[2], a[3], nullptr);
    }
    if (global == "torch._utils._rebuild_tensor_v3") {  // storage untyped, dtype given
        if (a.size() < 7) fail_input(global + " with " + std::to_string(a.size()) + " arguments (at least 7)");
        const TypeRow* dtype = a[6]->kind == Kind::Global ? find_type(a[6]->text) : nullptr;
        if (!dtype || !*dtype->dtype) return nullptr;
        return make_tensor(arena, objects, a[0], a[1], a[2], a[3], dtype);
    }
    // nn.Parameter(data, ...): the data tensor itself.
    if (global == "torch._utils._rebuild_parameter" || global == "torch._utils._rebuild_parameter_with_state")
        return !a.empty() && a[0]->kind == Kind::Extern ? a[0] : nullptr;
    // A tensor subclass: FUNC(*ARGS) rebuilds the plain tensor, whose type is then changed.
    if (global == "torch._tensor._rebuild_from_type_v2" || global == "torch._tensor._rebuild_from_type") {
        if (a.size() < 3 || a[0]->kind != Kind::Global || a[2]->kind != Kind::Tuple || depth >= 4) return nullptr;
        return call(arena, objects, a[0]->text, a[2], depth + 1);
    }
    return nullptr;
}

Node* persistent_load(pickle::Arena& arena, Objects& objects, Node* pid) {
    const std::vector<Node*>& a = pid->items;
    if (pid->kind != Kind::Tuple || a.size() < 3 || a[0]->kind != Kind::String || a[0]->text != "storage")
        fail_input("a persistent id is not ('storage', TYPE, KEY, LOCATION, NUMEL) as torch.save writes it");
    if (a[1]->kind != Kind::Global) fail_input("a storage's type is not a global such as torch.FloatStorage");
    const TypeRow* type = find_type(a[1]->text);
    if (!type) return nullptr;  // a quantized storage: the tensor is opaque
    if (a[2]->kind != Kind::String) fail_input("a storage's key is not a string");
    // One storage, however many tensors view it (the same key, read as the same type).
    const auto [at, fresh] = objects.storage_index.emplace(a[2]->text + '\n' + type->storage, objects.storages.size());
    if (fresh) objects.storages.push_back({a[2]->text, type});
    Node* node = arena.make(Kind::Extern);
    node->integer = static_cast<std::int64_t>(at->second);
    return node;
}

// Every tensor reachable from `node` through dicts, lists and tuples, with its path.
class Walk {
public:
    explicit Walk(std::vector<std::pair<std::string, std::size_t>>& out) : out_(out) {}

    void visit(const Node* node, const std::string& path, int depth) {
        if (++visits_ > kMaxVisits)
            fail_input("the pickle's containers reach more than " + std::to_string(kMaxVisits) +
                       " values (one object shared over and over); tslice stops there");
        if (depth > kMaxDepth)
            fail_input("the pickle's containers nest deeper than " + std::to_string(kMaxDepth) +
                       " levels (or hold themselves)");
        const auto child = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
        switch (node->kind) {
            case Kind::Extern:
                if (node->integer >= kTensorTag) out_.emplace_back(path, static_cast<std::size_t>(node->integer - kTensorTag));
                return;
            case Kind::Dict: {
                // A key set twice keeps its first place and its last value, as in Python.
                std::vector<std::pair<std::string, const Node*>> entries;
                std::unordered_map<std::string, std::size_t> seen;
                for (std::size_t i = 0; i + 1 < node->items.size(); i += 2) {
                    const Node* key = node->items[i];
                    std::string name;
                    if (key->kind == Kind::String || key->kind == Kind::Bytes) name = key->text;
                    else if (key->kind == Kind::Int) name = std::to_string(key->integer);
                    else if (key->kind == Kind::Bool) name = key->integer ? "True" : "False";
                    else continue;  // a key with no plain name
                    const auto [at, fresh] = seen.emplace(name, entries.size());
                    if (fresh) entries.emplace_back(std::move(name), node->items[i + 1]);
                    else entries[at->second].second = node->items[i + 1];
                }
                for (const auto& [name, value] : entries)
                    if (holds_tensors(value)) visit(value, child(name), depth + 1);
                return;
            }
            case Kind::List:
            case Kind::Tuple:
                for (std::size_t i = 0; i < node->items.size(); ++i)
                    if (holds_tensors(node->items[i])) visit(node->items[i], child(std::to_string(i)), depth + 1);
                return;
            default:
                return;
        }
    }

private:
    // Whether a value may be or hold a tensor: the others are passed by without a path.
    bool holds_tensors(const Node* node) {
        if (node->kind == Kind::Extern || node->kind == Kind::Dict || node->kind == Kind::List ||
            node->kind == Kind::Tuple)
            return true;
        ++visits_;
        return false;
    }

    std::vector<std::pair<std::string, std::size_t>>& out_;
    std::size_t visits_ = 0;
};

// The bytes of a stored member.
std::pair<std::uint64_t, std::uint64_t> stored_member(const std::byte* file, std::size_t size, const zip::Entry& entry) {
    if (entry.flags & 0x0001) fail_input("the checkpoint's member '" + entry.name + "' is encrypted");
    if (entry.method != 0 || entry.compressed_size != entry.uncompressed_size)
        fail_input("the checkpoint's member '" + entry.name +
                   "' is compressed; torch.save stores every member as it is "
                   "(was the file re-zipped? load it in Python and torch.save it again)");
    return {zip::data_offset(file, size, entry), entry.uncompressed_size};
}

}  // namespace

// The first bytes of a legacy (before torch 1.6) torch.save: protocol 2, then its magic number
// 0x1950a86a20f9469cfc6c as a LONG1.
constexpr unsigned char kLegacyTorchMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                               0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

bool looks_like_torch(const std::byte* bytes, std::size_t size) {
    if (size >= sizeof kLegacyTorchMagic && std::memcmp(bytes, kLegacyTorchMagic, sizeof kLegacyTorchMagic) == 0)
        return true;
    // torch.save writes ARCHIVE/data.pkl first, torch.jit.save ARCHIVE/data/0: the first local
    // header names it.
    if (size < 30 || std::memcmp(bytes, "PK\x03\x04", 4) != 0) return false;
    const std::size_t name_length = load_le<std::uint16_t>(bytes + 26);
    if (name_length > size - 30) return false;
    const std::string name(reinterpret_cast<const char*>(bytes + 30), name_length);
    const std::size_t slash = name.find('/');
    if (slash == std::string::npos || slash == 0) return false;
    const std::string rest = name.substr(slash + 1);
    return rest == "data.pkl" ||
           (rest.rfind("data/", 0) == 0 && rest.size() > 5 && rest.find_first_not_of("0123456789", 5) == std::string::npos);
}

std::vector<ArrayInFile> list_torch(const std::byte* file, std::size_t size) {
    if (size >= sizeof kLegacyTorchMagic && std::memcmp(file, kLegacyTorchMagic, sizeof kLegacyTorchMagic) == 0)
        fail_input(
            "this is a legacy PyTorch checkpoint (torch.save before torch 1.6, not a zip archive), which tslice "
            "does not read; re-save it with a newer torch: torch.save(torch.load(PATH), NEW_PATH)");
    const std::vector<zip::Entry> entries = zip::read_directory(file, size);
    const zip::Entry* pickle_entry = nullptr;
    for (const zip::Entry& entry : entries) {
        const std::size_t slash = entry.name.find('/');
        if (slash != std::string::npos && entry.name.compare(slash, std::string::npos, "/data.pkl") == 0) {
            pickle_entry = &entry;
            break;
        }
    }
    if (!pickle_entry) fail_input("the zip archive has no ARCHIVE/data.pkl: not a torch.save checkpoint");
    const std::string prefix = pickle_entry->name.substr(0, pickle_entry->name.size() - 8);  // "ARCHIVE/"
    for (const zip::Entry& entry : entries)
        if (entry.name == prefix + "constants.pkl" || entry.name.rfind(prefix + "code/", 0) == 0)
            fail_input(
                "this is a TorchScript archive (torch.jit.save), which tslice does not read: its tensors are inside "
                "a scripted module; save them with torch.save(torch.jit.load(PATH).state_dict(), NEW_PATH)");
    // Of members with the same name, the last, as Python's zipfile (and so torch.load) finds it.
    std::unordered_map<std::string_view, const zip::Entry*> by_name;
    for (const zip::Entry& entry : entries) by_name.insert_or_assign(entry.name, &entry);
    const auto member = [&](const std::string& name) -> const zip::Entry* {
        const auto found = by_name.find(prefix + name);
        return found == by_name.end() ? nullptr : found->second;
    };
    bool big_endian = false;
    if (const zip::Entry* order = member("byteorder")) {
        const auto [at, length] = stored_member(file, size, *order);
        const std::string text(reinterpret_cast<const char*>(file + at), static_cast<std::size_t>(std::min<std::uint64_t>(length, 16)));
        if (text != "little" && text != "big")
            fail_input("the checkpoint's byteorder record says '" + text + "'; torch writes 'little' or 'big'");
        big_endian = text == "big";
    }

    const auto [pickle_at, pickle_size] = stored_member(file, size, *pickle_entry);
    Objects objects;
    pickle::Arena arena;
    pickle::Hooks hooks;
    hooks.call = [&](pickle::Arena& a, const std::string& global, Node* args) { return call(a, objects, global, args); };
    hooks.persistent_load = [&](pickle::Arena& a, Node* pid) { return persistent_load(a, objects, pid); };
    const Node* root = nullptr;
    try {
        root = pickle::load(file + pickle_at, static_cast<std::size_t>(pickle_size), arena, hooks);
    } catch (const Error& error) {
        fail_input("the checkpoint's " + pickle_entry->name + ": " + error.what());
    }
    std::vector<std::pair<std::string, std::size_t>> found;
    Walk(found).visit(root, "", 0);

    // Each storage's member, found once.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> storage_bytes(objects.storages.size());
    std::vector<bool> storage_found(objects.storages.size(), false);

    std::vector<ArrayInFile> arrays;
    arrays.reserve(found.size());
    for (const auto& [path, index] : found) {
        const Tensor& tensor = objects.tensors[index];
        const Storage& storage = objects.storages[tensor.storage];
        const std::string where = "the checkpoint's tensor '" + path + "'";
        if (!storage_found[tensor.storage]) {
            const zip::Entry* entry = member("data/" + storage.key);
            if (!entry)
                fail_input(where + ": its storage " + prefix + "data/" + storage.key + " is not in the archive");
            storage_bytes[tensor.storage] = stored_member(file, size, *entry);
            storage_found[tensor.storage] = true;
        }
        const auto [storage_at, storage_size] = storage_bytes[tensor.storage];
        const TypeRow& row = tensor.type ? *tensor.type : *storage.type;
        if (!*row.dtype) fail_input(where + " is a view of an untyped storage without a dtype");
        ArrayInFile array;
        array.name = path;
        array.type = element_type(row, big_endian, where);
        array.shape = tensor.sizes;
        const auto itemsize = static_cast<std::uint64_t>(array.type.itemsize());
        // The last element's index in the storage, overflow-checked: it and all before it
        // must lie inside data/KEY.
        bool empty = false, overflow = false;
        std::uint64_t last = static_cast<std::uint64_t>(tensor.offset), step = 0;
        for (std::size_t k = 0; k < tensor.sizes.size(); ++k) {
            if (tensor.sizes[k] == 0) empty = true;
            overflow |= __builtin_mul_overflow(static_cast<std::uint64_t>(tensor.sizes[k] > 0 ? tensor.sizes[k] - 1 : 0),
                                               static_cast<std::uint64_t>(tensor.strides[k]), &step);
            overflow |= __builtin_add_overflow(last, step, &last);
        }
        std::uint64_t first_byte = 0, end_byte = 0;
        overflow |= __builtin_mul_overflow(static_cast<std::uint64_t>(tensor.offset), itemsize, &first_byte);
        overflow |= __builtin_add_overflow(last, 1, &end_byte) || __builtin_mul_overflow(end_byte, itemsize, &end_byte);
        if (!empty && (overflow || end_byte > storage_size))
            fail_input(where + ": shape " + format_shape(tensor.sizes) + " with strides " +
                       format_shape(tensor.strides) + " from offset " + std::to_string(tensor.offset) +
                       " reaches past its storage of " + std::to_string(storage_size / itemsize) +
                       " elements (corrupt file)");
        if (empty) first_byte = end_byte = 0;
        array.bytes.kind = ArrayBytes::Kind::Mapped;
        array.bytes.offset = storage_at + first_byte;
        array.bytes.size = empty ? 0 : end_byte - first_byte;
        // Contiguous tensors keep the plain description, the rest their strides.
        const View c_order = View::contiguous(array.shape, 1, false);
        const View f_order = View::contiguous(array.shape, 1, true);
        const auto same = [&](const View& view) {
            for (std::size_t k = 0; k < array.shape.size(); ++k)
                if (array.shape[k] > 1 && view.byte_strides[k] != tensor.strides[k]) return false;
            return true;
        };
        if (!same(c_order)) {
            if (same(f_order)) array.fortran_order = true;
            else array.strides = tensor.strides;
        }
        arrays.push_back(std::move(array));
    }
    return arrays;
}

}  // namespace tslice
