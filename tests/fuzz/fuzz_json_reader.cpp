// Fuzz target: the JSON reader of safetensors headers, against nlohmann's parser.
//
// Checks, besides "no crash, no sanitizer report, only json::SyntaxError":
//   - the reader accepts a text as one JSON value exactly when nlohmann::json::accept does,
//     except nesting deeper than the reader's limit, a leading UTF-8 byte order mark (which
//     nlohmann skips) and a NUL byte (where nlohmann ends the text): RFC 8259 and serde_json,
//     the reference's parser, allow neither;
//   - a string value decodes to the bytes nlohmann decodes it to;
//   - a value's text as skip_value gives it is itself one valid value.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "library_internals.hpp"

using tslice::json::Reader;
using tslice::json::SyntaxError;

namespace {

// The deepest nesting of arrays and objects outside strings (the text need not be valid).
int nesting(std::string_view text) {
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    bool ours = true;
    std::string why;
    try {
        Reader reader(text);
        const std::string_view value = reader.skip_value();
        reader.finish();
        Reader again(value);
        again.skip_value();
        again.finish();
    } catch (const SyntaxError& error) {
        ours = false;
        why = error.what();
    }
    const bool theirs = nlohmann::json::accept(text.begin(), text.end());
    const bool excused = theirs && (nesting(text) > Reader::kMaxDepth || text.substr(0, 3) == "\xEF\xBB\xBF" ||
                                    text.find('\0') != std::string_view::npos);
    if (ours != theirs && !excused)
        tslice_fuzz::finding("the reader %s a text nlohmann %s (%s)", ours ? "accepts" : "refuses",
                             theirs ? "accepts" : "refuses", why.c_str());
    if (ours && !text.empty()) {
        Reader reader(text);
        if (reader.peek() == '"') {
            const std::string decoded = reader.string();
            TSLICE_FUZZ_CHECK(decoded == nlohmann::json::parse(text.begin(), text.end()).get<std::string>());
        }
    }
    return 0;
}
