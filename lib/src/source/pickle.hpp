// A pickle reader that executes nothing: it builds a tree of plain values from the opcodes and
// hands every call (REDUCE, NEWOBJ) and persistent id to its caller, who decides what the few
// callables it knows make and turns everything else into an opaque leaf.
//
// Why our own: Python's pickle runs whatever a file names (os.system is one GLOBAL and one
// REDUCE away), and no C++ library in Debian reads torch.save files short of linking all of
// libtorch, hundreds of MB, into a command-line tool. The subset torch.save writes is small
// and well defined: protocol 2 opcodes (and the common ones of protocols up to 5), containers,
// a handful of globals, and storages by persistent id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <functional>
#include <string>
#include <vector>

namespace tslice::pickle {

struct Node {
    enum class Kind : std::uint8_t {
        None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Global,
        Extern,  // made by the caller's hooks: `tag` says which of its objects
        Opaque,  // anything else: a call to an unknown global, an object of some class
    };
    Kind kind = Kind::None;
    std::int64_t integer = 0;  // Int (LONG values past 64 bits are Opaque), Bool, Extern's tag
    double real = 0;           // Float
    std::string text;          // String, Bytes; Global: "module.name"
    std::vector<Node*> items;  // Tuple, List; Dict: key, value, key, value, ...
};

// Owns every node of one load; nodes point at each other freely (a memo makes DAGs, and a
// list may hold itself), so they live and die together.
class Arena {
public:
    Node* make(Node::Kind kind);
    std::size_t size() const { return size_; }

private:
    // Nodes in chunks of kChunk, allocated as needed: a checkpoint of thousands of tensors
    // makes hundreds of thousands of nodes, one allocation each would be most of --list.
    static constexpr std::size_t kChunk = 4096;
    std::vector<std::unique_ptr<Node[]>> chunks_;
    std::size_t size_ = 0;
};

struct Hooks {
    // BINPERSID: the persistent id (any node) to the object it stands for.
    std::function<Node*(Arena&, Node* pid)> persistent_load;
    // REDUCE and NEWOBJ of a Global: `global` "module.name", `args` a Tuple. nullptr: an opaque
    // leaf. Containers (collections.OrderedDict) are known here already.
    std::function<Node*(Arena&, const std::string& global, Node* args)> call;
};

// The most nodes one load makes: each opcode makes at most one, so this bounds the memory a
// hostile pickle takes (about 100 bytes a node); torch.save of a model with thousands of tensors
// makes tens of thousands.
constexpr std::size_t kMaxNodes = 4'000'000;

// The object the pickle `bytes` describes. Throws Error(Input) naming the opcode and its byte
// offset for anything outside the subset, a truncated pickle, a stack or memo misused, or more
// than kMaxNodes nodes.
Node* load(const std::byte* bytes, std::size_t size, Arena& arena, const Hooks& hooks);

}  // namespace tslice::pickle
