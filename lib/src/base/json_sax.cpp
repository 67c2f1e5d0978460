#include "base/json_sax.hpp"

#include <string>

namespace tslice::json {

std::optional<SyntaxProblem> find_nul(std::string_view text) {
    const std::size_t nul = text.find('\0');
    if (nul == std::string_view::npos) return std::nullopt;
    return SyntaxProblem{nul, "a NUL byte (0x00), which JSON text may not hold (in a string, write it as \\u0000)"};
}

// The start of the JSON token that holds the byte at `offset`: a string, a structural
// character, or a run of other characters (a number or a literal).
std::size_t token_start(std::string_view text, std::size_t offset) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size() && i <= offset;) {
        const char c = text[i];
        start = i;
        if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i)
                if (text[i] == '\\') ++i;
            ++i;
        } else if (c == '[' || c == ']' || c == '{' || c == '}' || c == ':' || c == ',' || c == ' ' || c == '\t' ||
                   c == '\n' || c == '\r') {
            ++i;
        } else {
            while (i < text.size() && std::string_view("[]{}:, \t\n\r\"").find(text[i]) == std::string_view::npos) ++i;
        }
    }
    return offset >= text.size() ? offset : start;
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error
// while parsing value - unexpected ']'; expected '[', '{', or a literal" in plain words:
// "unexpected ']'; expected '[', '{', or a literal".
std::string plain_parse_error(const std::string& what) {
    std::string text = what;
    if (const auto at = text.find("] "); at != std::string::npos && text.rfind("[json.exception", 0) == 0)
        text.erase(0, at + 2);
    if (const auto colon = text.find(": "); colon != std::string::npos && text.rfind("parse error", 0) == 0)
        text.erase(0, colon + 2);
    if (const auto dash = text.find(" - "); dash != std::string::npos && text.rfind("syntax error", 0) == 0)
        text.erase(0, dash + 3);
    if (text.rfind("number overflow parsing", 0) == 0) text = "the number " + text.substr(24) + " is too large";
    return text;
}

SyntaxProblem syntax_problem(std::string_view text, std::size_t position, const std::string& what) {
    // nlohmann's position counts the bytes read (the end of input counting as one).
    std::size_t offset = position > 0 ? position - 1 : 0;
    if (what.find(" - unexpected ") != std::string::npos || what.find("number overflow") != std::string::npos)
        offset = token_start(text, offset);
    return SyntaxProblem{offset, plain_parse_error(what)};
}

}  // namespace tslice::json
