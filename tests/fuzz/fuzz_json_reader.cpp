// Fuzz target: tslice's one JSON reading path (base/json_sax.hpp: nlohmann's SAX parser with
// a cursor, the NUL check and plain syntax errors), against nlohmann's own acceptance.
//
// Checks, besides "no crash, no sanitizer report":
//   - read_sax accepts a text exactly when nlohmann::json::accept does, except a NUL byte
//     (where nlohmann ends the text): RFC 8259 allows none;
//   - a refused text's problem names a byte inside the text (or its end);
//   - the cursor is where json_sax.hpp says it is at every event: an array's or object's text,
//     from its bracket to the cursor at its end, is itself one valid JSON value; a string's
//     event comes just past its closing quote, a number's one byte past its last digit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "library_internals.hpp"

namespace {

class Spans {
public:
    using nj = nlohmann::json;
    explicit Spans(const tslice::json::Cursor& cursor) : cursor_(cursor) {}

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(nj::number_integer_t) { return number(); }
    bool number_unsigned(nj::number_unsigned_t) { return number(); }
    bool number_float(nj::number_float_t, const nj::string_t&) { return number(); }
    bool string(nj::string_t&) { return quote(); }
    bool key(nj::string_t&) { return quote(); }
    bool start_object(std::size_t) { return open('{'); }
    bool start_array(std::size_t) { return open('['); }
    bool end_object() { return close('}'); }
    bool end_array() { return close(']'); }

private:
    bool number() {
        const std::size_t at = cursor_.offset();
        const std::string_view text = cursor_.text();
        const auto digit = [](char c) { return c >= '0' && c <= '9'; };
        // At the end of the text there is no look-ahead byte to be past.
        TSLICE_FUZZ_CHECK((at >= 2 && digit(text[at - 2])) || (at == text.size() && at >= 1 && digit(text[at - 1])));
        return true;
    }
    bool quote() {
        TSLICE_FUZZ_CHECK(cursor_.offset() > 0 && cursor_.text()[cursor_.offset() - 1] == '"');
        return true;
    }
    bool open(char bracket) {
        TSLICE_FUZZ_CHECK(cursor_.offset() > 0 && cursor_.text()[cursor_.offset() - 1] == bracket);
        starts_.push_back(cursor_.offset() - 1);
        return true;
    }
    bool close(char bracket) {
        const std::size_t end = cursor_.offset();
        TSLICE_FUZZ_CHECK(end > 0 && cursor_.text()[end - 1] == bracket);
        const std::string_view value = cursor_.text().substr(starts_.back(), end - starts_.back());
        starts_.pop_back();
        TSLICE_FUZZ_CHECK(nlohmann::json::accept(value.begin(), value.end()));
        return true;
    }

    const tslice::json::Cursor& cursor_;
    std::vector<std::size_t> starts_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    tslice::json::Cursor cursor(text);
    Spans spans(cursor);
    const auto problem = tslice::json::read_sax(cursor, spans);
    const bool ours = !problem;
    const bool theirs = nlohmann::json::accept(text.begin(), text.end());
    const bool excused = theirs && text.find('\0') != std::string_view::npos;
    if (ours != theirs && !excused)
        tslice_fuzz::finding("read_sax %s a text nlohmann %s (%s)", ours ? "accepts" : "refuses",
                             theirs ? "accepts" : "refuses", problem ? problem->what.c_str() : "");
    if (problem) TSLICE_FUZZ_CHECK(problem->offset <= text.size());
    return 0;
}
