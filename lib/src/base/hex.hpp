// Hexadecimal digits as escapes write them (\xHH in Python literals and index expressions,
// \uHHHH in JSON): the one reading of a digit.
#pragma once

namespace tslice {

// The value of hexadecimal digit `c` (either case), or -1 for any other character.
constexpr int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace tslice
