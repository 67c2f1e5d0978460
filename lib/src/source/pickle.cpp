// The pickle virtual machine, reduced to building values (see pickle.hpp). Opcodes as Python's
// Lib/pickletools.py documents them; the text opcodes of protocol 0 and 1 (INT, STRING, PUT,
// INST, ...), extension registry codes and out-of-band buffers are outside the subset: torch.save
// never writes them.
#include "source/pickle.hpp"

#include <cstring>
#include <unordered_map>

#include "base/bytes.hpp"
#include "tslice/error.hpp"

namespace tslice::pickle {

Node* Arena::make(Node::Kind kind) {
    if (size_ >= kMaxNodes)
        fail_input("the pickle makes more than " + std::to_string(kMaxNodes) +
                   " objects; tslice stops there (an enormous or hostile pickle)");
    if (size_ % kChunk == 0) chunks_.push_back(std::make_unique<Node[]>(kChunk));
    Node* node = &chunks_.back()[size_++ % kChunk];
    node->kind = kind;
    return node;
}

namespace {

using Kind = Node::Kind;

class Machine {
public:
    Machine(const std::byte* bytes, std::size_t size, Arena& arena, const Hooks& hooks)
        : p_(bytes), size_(size), arena_(arena), hooks_(hooks) {}

    Node* run() {
        for (;;) {
            op_at_ = at_;
            const std::uint8_t op = u(1);
            if (op == '.') {
                if (stack_.empty()) fail("STOP with an empty stack");
                return stack_.back();
            }
            step(op);
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        fail_input("the pickle is not one tslice reads: " + what + " (opcode at byte " + std::to_string(op_at_) + ")");
    }

    const std::byte* take(std::uint64_t n) {
        if (n > size_ - at_) fail("it ends early (truncated)");
        const std::byte* out = p_ + at_;
        at_ += static_cast<std::size_t>(n);
        return out;
    }
    std::uint64_t u(int bytes) {
        const std::byte* b = take(static_cast<std::uint64_t>(bytes));
        return load_le(b, static_cast<std::size_t>(bytes));
    }
    std::string text(std::uint64_t n) {
        const std::byte* b = take(n);
        return std::string(reinterpret_cast<const char*>(b), static_cast<std::size_t>(n));
    }
    std::string line() {
        const void* end = std::memchr(p_ + at_, '\n', size_ - at_);
        if (!end) fail("GLOBAL without its newline (truncated)");
        const std::size_t n = static_cast<std::size_t>(static_cast<const std::byte*>(end) - (p_ + at_));
        std::string out = text(n);
        ++at_;
        return out;
    }

    Node* pop() {
        if (stack_.size() <= floor()) fail("an opcode takes more values than the stack holds");
        Node* top = stack_.back();
        stack_.pop_back();
        return top;
    }
    Node* top() {
        if (stack_.size() <= floor()) fail("an opcode needs a value and the stack holds none");
        return stack_.back();
    }
    std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    void push(Node* node) { stack_.push_back(node); }
    // The values since the last MARK, which goes.
    std::vector<Node*> pop_mark() {
        if (marks_.empty()) fail("an opcode needs a MARK and there is none");
        const std::size_t mark = marks_.back();
        marks_.pop_back();
        std::vector<Node*> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
        stack_.resize(mark);
        return items;
    }
    Node* make(Kind kind) { return arena_.make(kind); }
    Node* integer(std::int64_t value) {
        Node* node = make(Kind::Int);
        node->integer = value;
        return node;
    }
    Node* string(Kind kind, std::uint64_t n) {
        Node* node = make(kind);
        node->text = text(n);
        return node;
    }
    Node* tuple(std::vector<Node*> items) {
        Node* node = make(Kind::Tuple);
        node->items = std::move(items);
        return node;
    }
    // LONG1/LONG4: little-endian two's complement of n bytes; past 64 bits, an opaque number.
    Node* long_integer(std::uint64_t n) {
        const std::byte* b = take(n);
        if (n > 8) return make(Kind::Opaque);
        std::uint64_t value = load_le(b, static_cast<std::size_t>(n));
        if (n > 0 && n < 8 && (std::to_integer<unsigned>(b[n - 1]) & 0x80)) value |= ~std::uint64_t{0} << (8 * n);
        return integer(static_cast<std::int64_t>(value));
    }
    // Picklers number memo entries 0, 1, 2, ...: a vector while they do, a map past that.
    // MEMOIZE numbers an entry by how many there are, as Python's len(memo).
    void memo_put(std::uint64_t index) {
        Node* value = top();
        // The vector stays within twice the entries there are: indices that skip far ahead
        // (a hostile pickle's) go to the map instead of growing it.
        if (index < memo_.size() || index < 2 * memo_count_ + kMemoSlack) {
            if (index >= memo_.size()) memo_.resize(index + 1, nullptr);
            memo_count_ += memo_[index] == nullptr;
            memo_[index] = value;
        } else {
            Node*& slot = far_memo_[index];
            memo_count_ += slot == nullptr;
            slot = value;
        }
    }
    void memo_get(std::uint64_t index) {
        Node* found = nullptr;
        if (index < memo_.size()) {
            found = memo_[index];
        } else if (const auto far = far_memo_.find(index); far != far_memo_.end()) {
            found = far->second;
        }
        if (!found) fail("a memo entry is read before it is written");
        push(found);
    }
    Node* call(Node* callable, Node* args) {
        if (args->kind != Kind::Tuple) fail("a call's arguments are not a tuple");
        if (callable->kind != Kind::Global || !hooks_.call) return make(Kind::Opaque);
        if (callable->text == "collections.OrderedDict" || callable->text == "builtins.dict") {
            Node* dict = make(Kind::Dict);
            // OrderedDict(pairs) as Python's copyreg may write it; torch.save writes OrderedDict().
            if (!args->items.empty() && args->items[0]->kind == Kind::List)
                for (Node* pair : args->items[0]->items)
                    if (pair->kind == Kind::Tuple && pair->items.size() == 2)
                        dict->items.insert(dict->items.end(), pair->items.begin(), pair->items.end());
            return dict;
        }
        Node* made = hooks_.call(arena_, callable->text, args);
        return made ? made : make(Kind::Opaque);
    }
    void set_items(Node* dict, const std::vector<Node*>& items) {
        if (items.size() % 2) fail("SETITEMS with a key and no value");
        if (dict->kind == Kind::Dict) dict->items.insert(dict->items.end(), items.begin(), items.end());
        else if (dict->kind != Kind::Opaque) fail("SETITEM(S) on a value that is not a dict");
    }
    void append(Node* list, const std::vector<Node*>& items) {
        if (list->kind == Kind::List) list->items.insert(list->items.end(), items.begin(), items.end());
        else if (list->kind != Kind::Opaque) fail("APPEND(S) on a value that is not a list");
    }

    void step(std::uint8_t op) {
        switch (op) {
            case 0x80: {  // PROTO
                const auto version = u(1);
                if (version > 5) fail("protocol " + std::to_string(version) + " (tslice reads up to 5)");
                return;
            }
            case 0x95: u(8); return;  // FRAME: a length hint only
            case '(': marks_.push_back(stack_.size()); return;
            case '}': push(make(Kind::Dict)); return;
            case ']': push(make(Kind::List)); return;
            case ')': push(tuple({})); return;
            case 0x8f: push(make(Kind::Opaque)); return;  // EMPTY_SET
            case 't': push(tuple(pop_mark())); return;
            case 0x85: { Node* a = pop(); push(tuple({a})); return; }
            case 0x86: { Node* b = pop(); Node* a = pop(); push(tuple({a, b})); return; }
            case 0x87: { Node* c = pop(); Node* b = pop(); Node* a = pop(); push(tuple({a, b, c})); return; }
            case 'l': { Node* list = make(Kind::List); list->items = pop_mark(); push(list); return; }  // LIST
            case 'd': { Node* dict = make(Kind::Dict); set_items(dict, pop_mark()); push(dict); return; }  // DICT
            case 0x91: pop_mark(); push(make(Kind::Opaque)); return;  // FROZENSET
            case 0x90: { pop_mark(); top(); return; }  // ADDITEMS: to a set, which is opaque
            case 'J': push(integer(static_cast<std::int32_t>(u(4)))); return;
            case 'K': push(integer(static_cast<std::int64_t>(u(1)))); return;
            case 'M': push(integer(static_cast<std::int64_t>(u(2)))); return;
            case 0x8a: push(long_integer(u(1))); return;
            case 0x8b: push(long_integer(u(4))); return;
            case 'G': {
                const std::uint64_t bits = u(8);  // big-endian
                std::uint64_t swapped = __builtin_bswap64(bits);
                Node* node = make(Kind::Float);
                std::memcpy(&node->real, &swapped, 8);
                push(node);
                return;
            }
            case 'N': push(make(Kind::None)); return;
            case 0x88: case 0x89: { Node* node = make(Kind::Bool); node->integer = op == 0x88; push(node); return; }
            case 'X': push(string(Kind::String, u(4))); return;   // BINUNICODE
            case 0x8c: push(string(Kind::String, u(1))); return;  // SHORT_BINUNICODE
            case 0x8d: push(string(Kind::String, u(8))); return;  // BINUNICODE8
            case 'T': push(string(Kind::Bytes, u(4))); return;    // BINSTRING
            case 'U': push(string(Kind::Bytes, u(1))); return;    // SHORT_BINSTRING
            case 'B': push(string(Kind::Bytes, u(4))); return;    // BINBYTES
            case 'C': push(string(Kind::Bytes, u(1))); return;    // SHORT_BINBYTES
            case 0x8e: case 0x96: push(string(Kind::Bytes, u(8))); return;  // BINBYTES8, BYTEARRAY8
            case 'c': {  // GLOBAL
                Node* node = make(Kind::Global);
                node->text = line();
                node->text += "." + line();
                push(node);
                return;
            }
            case 0x93: {  // STACK_GLOBAL
                Node* name = pop();
                Node* module = pop();
                if (name->kind != Kind::String || module->kind != Kind::String)
                    fail("STACK_GLOBAL of values that are not strings");
                Node* node = make(Kind::Global);
                node->text = module->text + "." + name->text;
                push(node);
                return;
            }
            case 'R': { Node* args = pop(); Node* callable = pop(); push(call(callable, args)); return; }  // REDUCE
            case 0x81: { Node* args = pop(); Node* cls = pop(); push(call(cls, args)); return; }  // NEWOBJ
            case 0x92: {  // NEWOBJ_EX: keyword arguments are not used by anything known
                pop();
                Node* args = pop();
                Node* cls = pop();
                push(call(cls, args));
                return;
            }
            case 'b': pop(); top(); return;  // BUILD: the state of a known object carries no tensor
            case 'a': { Node* item = pop(); append(top(), {item}); return; }
            case 'e': { std::vector<Node*> items = pop_mark(); append(top(), items); return; }
            case 's': { Node* value = pop(); Node* key = pop(); set_items(top(), {key, value}); return; }
            case 'u': { std::vector<Node*> items = pop_mark(); set_items(top(), items); return; }
            case 'q': memo_put(u(1)); return;
            case 'r': memo_put(u(4)); return;
            case 0x94: memo_put(memo_count_); return;  // MEMOIZE
            case 'h': memo_get(u(1)); return;
            case 'j': memo_get(u(4)); return;
            case 'Q': {  // BINPERSID
                Node* pid = pop();
                Node* made = hooks_.persistent_load ? hooks_.persistent_load(arena_, pid) : nullptr;
                push(made ? made : make(Kind::Opaque));
                return;
            }
            case '0': pop(); return;
            case '1': pop_mark(); return;
            case '2': push(top()); return;
            default: break;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", op);
        fail(std::string("opcode ") + hex +
             (op >= 0x20 && op < 0x7f ? std::string(" ('") + static_cast<char>(op) + "')" : std::string()) +
             " is outside the subset torch.save writes");
    }

    const std::byte* p_;
    std::size_t size_;
    std::size_t at_ = 0, op_at_ = 0;
    Arena& arena_;
    const Hooks& hooks_;
    std::vector<Node*> stack_;
    std::vector<std::size_t> marks_;
    static constexpr std::uint64_t kMemoSlack = 1024;
    std::vector<Node*> memo_;
    std::unordered_map<std::uint64_t, Node*> far_memo_;
    std::uint64_t memo_count_ = 0;
};

}  // namespace

Node* load(const std::byte* bytes, std::size_t size, Arena& arena, const Hooks& hooks) {
    return Machine(bytes, size, arena, hooks).run();
}

}  // namespace tslice::pickle
