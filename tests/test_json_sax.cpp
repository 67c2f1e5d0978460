// The one JSON reading path (base/json_sax.hpp): nlohmann's SAX events with a cursor into the
// text, NUL bytes refused, syntax errors in plain words at their byte.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "library_internals.hpp"

using namespace tslice::json;

namespace {

// Records the cursor at each event, as "event@offset".
class Trail {
public:
    using nj = nlohmann::json;
    explicit Trail(const Cursor& cursor) : cursor_(cursor) {}
    std::vector<std::string> events;

    bool null() { return at("null"); }
    bool boolean(bool) { return at("bool"); }
    bool number_integer(nj::number_integer_t) { return at("int"); }
    bool number_unsigned(nj::number_unsigned_t) { return at("uint"); }
    bool number_float(nj::number_float_t, const nj::string_t&) { return at("float"); }
    bool string(nj::string_t&) { return at("string"); }
    bool key(nj::string_t&) { return at("key"); }
    bool start_object(std::size_t) { return at("{"); }
    bool start_array(std::size_t) { return at("["); }
    bool end_object() { return at("}"); }
    bool end_array() { return at("]"); }

private:
    bool at(const char* what) {
        events.push_back(std::string(what) + "@" + std::to_string(cursor_.offset()));
        return true;
    }
    const Cursor& cursor_;
};

}  // namespace

TEST_CASE("json sax: the cursor stands just past each token, a number's look-ahead included") {
    const std::string_view text = R"({"k" : [12, -3, 1.5, "s", null, true]} )";
    Cursor cursor(text);
    Trail trail(cursor);
    CHECK_FALSE(read_sax(cursor, trail).has_value());
    CHECK(trail.events == std::vector<std::string>{"{@1", "key@4", "[@8", "uint@11", "int@15", "float@20", "string@24",
                                                   "null@30", "bool@36", "]@37", "}@38"});
    CHECK(cursor.value_start(4) == 7);  // past " : "
}

TEST_CASE("json sax: a NUL byte and malformed text are refused at their byte, in plain words") {
    const auto problem = [](std::string_view text) {
        Cursor cursor(text);
        Trail trail(cursor);
        return read_sax(cursor, trail);
    };
    const auto nul = problem(std::string_view("{}\0{", 4));
    REQUIRE(nul.has_value());
    CHECK(nul->offset == 2);
    CHECK(nul->what == "a NUL byte (0x00), which JSON text may not hold (in a string, write it as \\u0000)");
    const auto unexpected = problem("[1, ]");
    REQUIRE(unexpected.has_value());
    CHECK(unexpected->offset == 4);
    CHECK(unexpected->what == "unexpected ']'; expected '[', '{', or a literal");
    const auto overflow = problem("[1e999]");
    REQUIRE(overflow.has_value());
    CHECK(overflow->offset == 1);
    CHECK(overflow->what.find("1e999") != std::string::npos);
    CHECK(problem("{\"a\": 1} x").has_value());
    CHECK_FALSE(problem("  {\"a\": [1, {\"b\": null}]}  ").has_value());
}

TEST_CASE("json sax: a handler that stops the parse keeps its own reason") {
    struct Stop : Trail {
        using Trail::Trail;
        bool start_array(std::size_t) { return false; }
    };
    const std::string_view text = "[[1]]";
    Cursor cursor(text);
    Stop stop(cursor);
    CHECK_FALSE(read_sax(cursor, stop).has_value());
}
