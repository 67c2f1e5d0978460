// .npz archives as arrays: each member's .npy header read in place (stored) or inflated as
// far as the header (deflated), and where the data is; broken members name themselves.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "zip_fixture.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

std::vector<ArrayInFile> arrays_of(const std::string& file) {
    return list_arrays(reinterpret_cast<const std::byte*>(file.data()), file.size());
}


}  // namespace

TEST_CASE("stored and deflated members: names without .npy, header, and where the data is") {
    const std::string a = npy_counting(10), b = npy_counting(1000);
    for (const bool zip64 : {false, true}) {
        const std::string archive = make_zip({{"a.npy", a, false}, {"b.npy", b, true}, {"raw", a, false}}, zip64);
        CHECK(detect_format(reinterpret_cast<const std::byte*>(archive.data()), archive.size()) == ContainerFormat::Npz);
        const auto arrays = arrays_of(archive);
        REQUIRE(arrays.size() == 3);
        CHECK(*arrays[0].name == "a");
        CHECK(arrays[0].member == "a.npy");
        CHECK(arrays[0].type.name() == "<i4");
        CHECK(arrays[0].shape == std::vector<std::int64_t>{10});
        CHECK(arrays[0].bytes.kind == ArrayBytes::Kind::Mapped);
        CHECK(arrays[0].bytes.size == 40);
        CHECK(archive.substr(arrays[0].bytes.offset, 40) == a.substr(a.size() - 40));
        CHECK(*arrays[1].name == "b");
        CHECK(arrays[1].bytes.kind == ArrayBytes::Kind::Deflated);
        CHECK(arrays[1].bytes.inflated_size == b.size());
        CHECK(arrays[1].bytes.data_offset == b.size() - 4000);
        CHECK(arrays[1].bytes.crc32 == crc_of(b));
        CHECK(arrays[1].shape == std::vector<std::int64_t>{1000});
        CHECK(*arrays[2].name == "raw");  // np.load keeps a name without .npy as it is
    }
}

TEST_CASE("an empty archive holds no arrays") {
    CHECK(arrays_of(make_zip({})).empty());
}

// A broken member is listed with what is wrong with it (np.load reads the others); choosing it
// is an input error with that message.
std::string member_error(const std::string& archive, std::size_t index = 0) {
    const std::vector<ArrayInFile> arrays = arrays_of(archive);
    REQUIRE(arrays.size() > index);
    const std::string error = arrays[index].error;
    if (!error.empty()) {
        CHECK(input_error([&] { select_arrays(arrays, {*arrays[index].name}); }) == error);
        CHECK(select_arrays(arrays, {*arrays[index].name}, false).size() == 1);
    }
    return error;
}

TEST_CASE("broken members: the member is named, and what is wrong with it; the others read") {
    const std::string good = npy_counting(10);
    CHECK(member_error(make_zip({{"a.npy", "not a npy file at all", false}})).find("member 'a.npy'") !=
          std::string::npos);
    CHECK(member_error(make_zip({{"a.npy", good.substr(0, good.size() - 1), false}}))
              .find("too short for its header") != std::string::npos);
    CHECK(member_error(make_zip({{"a.npy", good.substr(0, good.size() - 1), true}}))
              .find("too short for its header") != std::string::npos);
    CHECK(member_error(make_zip({{"a.npy", good.substr(0, 30), true}})).find("member 'a.npy'") != std::string::npos);
    std::string method = make_zip({{"a.npy", good, false}});
    method[method.find("PK\x01\x02") + 10] = 12;  // bzip2
    CHECK(member_error(method).find("compression method 12") != std::string::npos);
    std::string encrypted = make_zip({{"a.npy", good, false}});
    encrypted[encrypted.find("PK\x01\x02") + 8] |= 1;
    CHECK(member_error(encrypted).find("encrypted") != std::string::npos);
    // Members tslice cannot read are still found, to be copied whole (--update); an encrypted
    // one is marked, since a copy would lose what decrypts it.
    CHECK(arrays_of(method)[0].member_bytes.found());
    CHECK(arrays_of(method)[0].member_bytes.method == 12);
    CHECK(arrays_of(encrypted)[0].member_bytes.encrypted);
    // A corrupt deflate stream in the header part of a member.
    std::string corrupt = make_zip({{"a.npy", npy_counting(1000), true}});
    corrupt[30 + 5] = static_cast<char>(0xFF);
    CHECK(member_error(corrupt).find("member 'a.npy'") != std::string::npos);
    // Beside good members, in either place: each good one still reads, the bad one is listed.
    for (const bool deflated : {false, true}) {
        const std::string archive = make_zip(
            {{"a.npy", good, deflated}, {"meta.json", "{}", deflated}, {"d/", "", false}, {"b.npy", good, deflated}});
        const std::vector<ArrayInFile> arrays = arrays_of(archive);
        REQUIRE(arrays.size() == 4);
        CHECK(arrays[0].error.empty());
        CHECK(arrays[3].error.empty());
        CHECK(member_error(archive, 1).find("member 'meta.json': not a .npy file") != std::string::npos);
        CHECK(member_error(archive, 2).find("member 'd/'") != std::string::npos);
        CHECK(arrays[1].type_name() == "?");
        CHECK_FALSE(arrays[1].shape_known);
        // A glob over all of them fails on the first bad one; over the good ones, it does not.
        CHECK(input_error([&] { select_arrays(arrays, {"*"}); }) == arrays[1].error);
        const auto chosen = select_arrays(arrays, {"?"});
        REQUIRE(chosen.size() == 2);
        CHECK(chosen[0] == &arrays[0]);
        CHECK(chosen[1] == &arrays[3]);
    }
}

TEST_CASE("every truncation and every corrupted byte of an .npz: arrays or an input error") {
    const std::string archive =
        make_zip({{"a.npy", npy_counting(20), false}, {"b.npy", npy_counting(300), true}});
    for (std::size_t size = 0; size < archive.size(); ++size) {
        CAPTURE(size);
        input_error([&] { arrays_of(archive.substr(0, size)); });
    }
    for (std::size_t i = 0; i < archive.size(); ++i) {
        std::string bad = archive;
        bad[i] = static_cast<char>(bad[i] ^ 0x21);
        try {
            for (const auto& array : arrays_of(bad))
                if (array.bytes.kind == ArrayBytes::Kind::Mapped) CHECK(array.bytes.offset + array.bytes.size <= bad.size());
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::Input);
        }
    }
}

TEST_CASE("members of the same name: the last one counts, unread earlier ones are counted, --list says so") {
    const std::string a = npy_counting(3), b = npy_counting(5);
    for (const bool deflate : {false, true}) {
        const auto arrays = arrays_of(make_zip({{"a.npy", a, deflate},
                                                {"x.npy", a, false},
                                                {"a.npy", "not a npy file at all", deflate},
                                                {"a.npy", b, deflate}}));
        REQUIRE(arrays.size() == 2);
        CHECK(*arrays[0].name == "x");
        CHECK(arrays[0].duplicates == 0);
        CHECK(*arrays[1].name == "a");
        CHECK(arrays[1].shape == std::vector<std::int64_t>{5});
        CHECK(arrays[1].duplicates == 2);
        CHECK(&select_array(arrays, std::string("a")) == &arrays[1]);
        CHECK(format_array_list(arrays, false) ==
              "x  <i4  (3,)\n"
              "a  <i4  (5,)  (the last of 3 members named 'a.npy', which np.load reads)\n");
        CHECK(format_array_list(arrays, true) ==
              "[{\"name\": \"x\", \"dtype\": \"<i4\", \"shape\": [3]}, "
              "{\"name\": \"a\", \"dtype\": \"<i4\", \"shape\": [5], \"duplicates\": 2}]\n");
    }
    // Members "a" and "a.npy": a key is first a member's whole name, as np.load looks it up.
    const auto arrays = arrays_of(make_zip({{"a.npy", a, false}, {"a", b, false}}));
    REQUIRE(arrays.size() == 2);
    CHECK(select_array(arrays, std::string("a")).member == "a");
    CHECK(select_array(arrays, std::string("a.npy")).member == "a.npy");
}

TEST_CASE("member names in --list and messages: as repr() shows them where they need it") {
    const std::string a = npy_counting(2);
    const auto arrays = arrays_of(make_zip({{"line\nbreak.npy", a, false}, {"plain.npy", a, false},
                                            {std::string("bad\xff") + ".npy", a, false}}));
    REQUIRE(arrays.size() == 3);
    CHECK(format_array_list(arrays, false) ==
          "'line\\nbreak'  <i4  (2,)\n"
          "plain          <i4  (2,)\n"
          "'bad\\udcff'    <i4  (2,)\n");
    CHECK(quoted_name("it's") == "\"it's\"");
    CHECK(quoted_name("tab\there") == "'tab\\there'");
    CHECK(array_what(arrays[0]) == "the .npz member 'line\\nbreak.npy'");
    // A member that is not a .npy is listed with why, its name escaped in the message.
    CHECK(arrays_of(make_zip({{"new\nline.npy", "not a npy file", false}}))[0].error.find("member 'new\\nline.npy'") !=
          std::string::npos);
    const std::string message = message_of(ErrorKind::Usage, [&] { select_array(arrays, std::string("nope")); });
    CHECK(message.find("'line\\nbreak'") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
}
