// torch.save files built byte by byte: the pickle machine's subset and its limits, tensors as
// strided views of their storages, byte order, and every way a file can lie. The files torch
// itself writes are checked against torch by tests/differential/torch_differential.py.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "source/pickle.hpp"
#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "zip_fixture.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

// Pickle pieces, protocol 2.
std::string global(const std::string& module, const std::string& name) { return "c" + module + "\n" + name + "\n"; }
std::string unicode(const std::string& text) { return "\x8c" + std::string(1, static_cast<char>(text.size())) + text; }
std::string int1(int value) { return "K" + std::string(1, static_cast<char>(value)); }
std::string tuple_of(const std::vector<int>& values) {
    std::string out = "(";
    for (const int v : values) out += int1(v);
    return out + "t";
}
// _rebuild_tensor_v2(storage KEY of TYPE, offset, sizes, strides, False, OrderedDict())
std::string tensor(const std::string& key, const std::string& type, int offset, const std::vector<int>& sizes,
                   const std::vector<int>& strides) {
    return global("torch._utils", "_rebuild_tensor_v2") + "(" + "(" + unicode("storage") + global("torch", type) +
           unicode(key) + unicode("cpu") + int1(64) + "tQ" + int1(offset) + tuple_of(sizes) + tuple_of(strides) +
           "\x89" + global("collections", "OrderedDict") + ")Rt" + "R";
}
std::string dict(const std::vector<std::pair<std::string, std::string>>& items) {
    std::string out = "}(";
    for (const auto& [key, value] : items) out += unicode(key) + value;
    return out + "u";
}

std::string checkpoint(const std::string& pickle, const std::vector<Member>& storages, const std::string& byteorder = {}) {
    std::vector<Member> members{{"archive/data.pkl", "\x80\x02" + pickle + "."}};
    if (!byteorder.empty()) members.push_back({"archive/byteorder", byteorder});
    for (const Member& m : storages) members.push_back({"archive/data/" + m.name, m.bytes});
    members.push_back({"archive/version", "3\n"});
    return make_zip(members);
}

std::vector<ArrayInFile> arrays_of(const std::string& file) {
    return list_arrays(reinterpret_cast<const std::byte*>(file.data()), file.size());
}

std::string floats(int count) {
    std::string out;
    for (int i = 0; i < count; ++i) {
        const float f = static_cast<float>(i);
        out.append(reinterpret_cast<const char*>(&f), 4);
    }
    return out;
}

}  // namespace

TEST_CASE("torch: tensors by their path, views of shared storages with their strides") {
    const std::string file = checkpoint(
        dict({{"w", tensor("0", "FloatStorage", 0, {2, 3}, {3, 1})},
              {"t", tensor("0", "FloatStorage", 0, {3, 2}, {1, 3})},
              {"s", tensor("0", "FloatStorage", 1, {2, 2}, {3, 1})},
              {"nested", "](" + tensor("1", "LongStorage", 0, {}, {}) + "e"}}),
        {{"0", floats(6)}, {"1", std::string(8, '\1')}});
    REQUIRE(detect_format(reinterpret_cast<const std::byte*>(file.data()), file.size()) == ContainerFormat::Torch);
    const auto arrays = arrays_of(file);
    REQUIRE(arrays.size() == 4);
    CHECK(*arrays[0].name == "w");
    CHECK(arrays[0].strides.empty());
    CHECK_FALSE(arrays[0].fortran_order);
    CHECK(arrays[0].bytes.size == 24);
    CHECK(*arrays[1].name == "t");
    CHECK(arrays[1].fortran_order);  // a transpose of C order is Fortran order
    CHECK(arrays[1].bytes.offset == arrays[0].bytes.offset);
    CHECK(*arrays[2].name == "s");
    CHECK(arrays[2].strides == std::vector<std::int64_t>{3, 1});
    CHECK(arrays[2].bytes.offset == arrays[0].bytes.offset + 4);
    CHECK(arrays[2].bytes.size == 4 * 5);  // elements 1 .. 1 + 3 + 1
    CHECK(*arrays[3].name == "nested.0");
    CHECK(arrays[3].type.dtype.type_string == "<i8");
    CHECK(arrays[3].shape.empty());
}

TEST_CASE("torch: byteorder big gives big-endian types; other objects are not listed") {
    const std::string evil = global("os", "system") + "(" + unicode("touch /tmp/x") + "tR";
    const auto arrays = arrays_of(checkpoint(dict({{"x", evil}, {"h", tensor("0", "HalfStorage", 0, {2}, {1})}}),
                                             {{"0", std::string(4, '\0')}}, "big"));
    REQUIRE(arrays.size() == 1);
    CHECK(*arrays[0].name == "h");
    CHECK(arrays[0].type.dtype.type_string == ">f2");
}

TEST_CASE("torch: of two members of one name the last counts, as zipfile finds it") {
    // torch 2 writes a byteorder record itself; a copy that adds another holds two.
    const std::string file = make_zip({{"archive/data.pkl", "\x80\x02" + dict({{"h", tensor("0", "HalfStorage", 0, {2}, {1})}}) + "."},
                                       {"archive/byteorder", "little"},
                                       {"archive/data/0", std::string(4, '\0')},
                                       {"archive/byteorder", "big"},
                                       {"archive/version", "3\n"}});
    const auto arrays = arrays_of(file);
    REQUIRE(arrays.size() == 1);
    CHECK(arrays[0].type.dtype.type_string == ">f2");
}

TEST_CASE("torch: a key set twice keeps its first place and its last value") {
    const auto arrays = arrays_of(checkpoint(dict({{"a", tensor("0", "IntStorage", 0, {1}, {1})},
                                                   {"b", tensor("0", "IntStorage", 0, {1}, {1})},
                                                   {"a", tensor("0", "IntStorage", 0, {2}, {1})}}),
                                             {{"0", std::string(8, '\0')}}));
    REQUIRE(arrays.size() == 2);
    CHECK(*arrays[0].name == "a");
    CHECK(arrays[0].shape == std::vector<std::int64_t>{2});
    CHECK(*arrays[1].name == "b");
}

TEST_CASE("torch: a lying file is an input error naming what lies") {
    CHECK(input_error([] { arrays_of(checkpoint(dict({{"w", tensor("0", "FloatStorage", 4, {2, 3}, {3, 1})}}),
                                                   {{"0", floats(6)}})); })
              .find("reaches past its storage") != std::string::npos);
    CHECK(input_error([] { arrays_of(checkpoint(dict({{"w", tensor("9", "FloatStorage", 0, {1}, {1})}}), {})); })
              .find("not in the archive") != std::string::npos);
    CHECK(input_error([] { arrays_of(checkpoint("(S'x'\nt", {})); }).find("opcode 0x53 ('S')") != std::string::npos);
    CHECK(input_error([] { arrays_of(checkpoint("t", {})); }).find("needs a MARK") != std::string::npos);
    CHECK(input_error([] { arrays_of(checkpoint("h\x05", {})); }).find("memo entry") != std::string::npos);
    CHECK(input_error([] { arrays_of(checkpoint("X\xff\xff\xff\x7f", {})); }).find("truncated") != std::string::npos);
    CHECK(input_error([] { arrays_of(checkpoint(dict({{"b", tensor("0", "BoolStorage", 0, {1}, {1})}}), {{"0", "\1"}}, "middle")); })
              .find("byteorder") != std::string::npos);
    // A list that holds itself: nested without end.
    CHECK(input_error([] { arrays_of(checkpoint(std::string("]q\x00h\x00" "a", 6), {})); }).find("nest deeper") != std::string::npos);
    std::string legacy = "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.";
    CHECK(input_error([&] { arrays_of(legacy); }).find("legacy") != std::string::npos);
}

TEST_CASE("pickle: more objects than the bound is an error, not memory") {
    std::string many = "\x80\x02]";
    many.reserve(pickle::kMaxNodes + 16);
    for (std::size_t i = 0; i < pickle::kMaxNodes; ++i) many += "N";
    pickle::Arena arena;
    CHECK(input_error([&] { pickle::load(reinterpret_cast<const std::byte*>(many.data()), many.size(), arena, {}); })
              .find("more than") != std::string::npos);
}

TEST_CASE("pickle: memo entries by BINPUT near and far, and by MEMOIZE in order") {
    // [1, 2, 1, 2]: 1 put at 0 and got back; 2 memoized (index 1) and got back; 3 put at
    // 2**31, far past the vector, and got back.
    const std::string bytes = std::string("\x80\x04](K\x01q\x00K\x02\x94h\x00h\x01K\x03r\x00\x00\x00\x80j\x00\x00\x00\x80" "e.", 29);
    pickle::Arena arena;
    const pickle::Node* list = pickle::load(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), arena, {});
    REQUIRE(list->kind == pickle::Node::Kind::List);
    std::vector<std::int64_t> values;
    for (const pickle::Node* item : list->items) values.push_back(item->integer);
    CHECK(values == std::vector<std::int64_t>{1, 2, 1, 2, 3, 3});
}

TEST_CASE("torch: a chain of subclass rebuilds inside each other is an opaque leaf, not a deep recursion") {
    // _rebuild_from_type_v2(G, None, (G, None, (G, None, ...))), 200000 deep.
    std::string pickle = global("torch._tensor", "_rebuild_from_type_v2") + std::string("q\x00" "0)", 4);
    const std::string put = std::string("r\x01\x00\x00\x00", 5), get = std::string("j\x01\x00\x00\x00", 5);
    for (int i = 0; i < 200000; ++i) pickle += put + "0" + std::string("h\x00N", 3) + get + "\x87";
    pickle += put + "0" + std::string("h\x00", 2) + get + "R";
    CHECK(arrays_of(checkpoint(pickle, {})).empty());
}
