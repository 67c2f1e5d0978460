// Python literals, the subset a .npy header can hold (its dict, the dtype descr inside it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tslice {

// Deep enough for any real dtype, shallow enough that hostile input cannot exhaust the stack.
constexpr int kMaxLiteralDepth = 64;

struct PyValue {
    enum class Kind { Dict, List, Tuple, Str, Int, Float, Bool, None };
    Kind kind = Kind::None;
    std::string text;            // Str: the decoded value (UTF-8); Float: the source text
    std::int64_t integer = 0;    // Int
    bool boolean = false;        // Bool
    std::vector<PyValue> items;  // List, Tuple; Dict: key, value, key, value, ...
};

// The whole of `text` as one literal (spaces around it allowed). Throws Error(Input) naming
// `what` ("the .npy header") and the column; `trailing_problem` is the message for text after
// the literal.
PyValue parse_py_literal(std::string_view text, const std::string& what, const std::string& trailing_problem);

// repr() of the value, as Python would print it.
std::string py_repr(const PyValue& value);
// The repr for an error message, cut after 200 characters (a hostile header can make it huge).
std::string shown(const PyValue& value);
// "a dict", "an integer", ...
const char* kind_name(PyValue::Kind kind);

}  // namespace tslice
