// Text as Python writes it: UTF-8 and Latin-1, the repr() of str and bytes, and
// str.isprintable(). The .npy header is a Python literal and the printer shows strings by
// Python's repr, so both use these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/utf8.hpp"

namespace tslice {

std::string latin1_to_utf8(std::string_view bytes);
// The Latin-1 bytes of a UTF-8 string, or nullopt if a character is beyond U+00FF.
std::optional<std::string> utf8_to_latin1(std::string_view text);

// `value`'s last `digits` hexadecimal digits.
void append_hex(std::string& out, std::uint32_t value, int digits, bool upper = false);

// Python 3.11's str.isprintable() of one character.
bool is_printable(char32_t code_point);

// repr() of a Python str: single quotes unless the text has a single quote and no double
// quote, and Python's escapes.
std::string str_repr(const std::u32string& text);
std::string str_repr_utf8(std::string_view utf8);
// repr() of a name that should be UTF-8 (a zip member's, an array's): a byte that is not
// shown as Python's surrogateescape decodes it ('\udcff' for 0xFF), so that no byte is hidden
// or taken for another character.
std::string name_repr(std::string_view utf8);
bool valid_utf8(std::string_view text);
// Whether a name can be shown as it is: valid UTF-8, every character printable.
bool plain_name(std::string_view utf8);
// repr() of Python bytes.
std::string bytes_repr(std::string_view bytes);
// Raw bytes for an error message: printable ASCII as is, the rest as \xNN.
std::string escape_bytes(std::string_view bytes);

}  // namespace tslice
