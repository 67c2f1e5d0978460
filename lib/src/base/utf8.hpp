// UTF-8, the encoding of every name and string tslice reads or writes (JSON, the .npy header's
// Python literal, zip member names, printed strings): one encoder and one decoder.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tslice {

// Appends `code_point` (at most U+10FFFF) in UTF-8.
void append_utf8(std::string& out, char32_t code_point);
// Decodes one code point at `i` and advances past it. Returns nullopt (leaving `i`) for a
// malformed, overlong or surrogate sequence, so callers can both validate and decode.
std::optional<char32_t> next_utf8(std::string_view text, std::size_t& i);

}  // namespace tslice
