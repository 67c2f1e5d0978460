// The framing of an archive of several members: read back by the zip reader as the members
// that went in, copied members with their method and CRC-32, zip64 fields where sizes or
// offsets need them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "library_internals.hpp"
#include "tslice/container.hpp"
#include "zip_fixture.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

std::uint64_t get_le(const std::string& bytes, std::size_t at, int width) {
    std::uint64_t value = 0;
    for (int k = width - 1; k >= 0; --k) value = (value << 8) | static_cast<unsigned char>(bytes[at + k]);
    return value;
}

}  // namespace

TEST_CASE("an archive of a streamed member and a copied deflated one reads back as written") {
    const std::string first = npy_counting(10), second = npy_counting(300);
    const std::string compressed = deflate_raw(second);
    std::vector<zip::MemberFrame> frames(2);
    frames[0].name = "\xc3\xa9.npy";
    frames[0].descriptor = true;
    frames[0].size = frames[0].stored_size = first.size();
    frames[1].name = "b.npy";
    frames[1].method = 8;
    frames[1].crc32 = crc_of(second);
    frames[1].stored_size = compressed.size();
    frames[1].size = second.size();

    std::string archive = zip::local_header(frames[0]) + first;
    frames[0].crc32 = crc_of(first);
    archive += zip::data_descriptor(frames[0]);
    frames[1].offset = archive.size();
    archive += zip::local_header(frames[1]) + compressed;
    archive += zip::directory(frames, archive.size());

    const auto* bytes = reinterpret_cast<const std::byte*>(archive.data());
    const std::vector<zip::Entry> entries = zip::read_directory(bytes, archive.size());
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].name == "\xc3\xa9.npy");
    CHECK(entries[0].flags == 0x0808);  // a data descriptor; a UTF-8 name
    CHECK(entries[0].crc32 == crc_of(first));
    CHECK(entries[1].method == 8);
    CHECK(entries[1].crc32 == crc_of(second));
    CHECK(entries[1].compressed_size == compressed.size());
    CHECK(archive.substr(zip::data_offset(bytes, archive.size(), entries[1]), compressed.size()) == compressed);
    const std::vector<ArrayInFile> arrays = list_npz(bytes, archive.size());
    REQUIRE(arrays.size() == 2);
    CHECK(arrays[0].error.empty());
    CHECK(arrays[1].error.empty());
    CHECK(arrays[1].member_bytes.crc32 == crc_of(second));
}

TEST_CASE("zip64 fields: a member of 4 GiB or more, an offset past 4 GiB, 65535 members or more") {
    zip::MemberFrame large;
    large.name = "big.npy";
    large.size = large.stored_size = std::uint64_t{5} << 30;
    const std::string header = zip::local_header(large);
    CHECK(get_le(header, 18, 4) == 0xFFFFFFFF);
    CHECK(get_le(header, 30 + 7 + 4, 8) == large.size);
    CHECK(zip::data_descriptor(large).size() == 24);

    zip::MemberFrame far;
    far.name = "far.npy";
    far.size = far.stored_size = 100;
    far.offset = std::uint64_t{6} << 30;
    const std::string directory = zip::directory({far}, far.offset + 200);
    // The central entry's zip64 extra holds the offset alone; the end records say zip64.
    CHECK(get_le(directory, 42, 4) == 0xFFFFFFFF);
    CHECK(get_le(directory, 30, 2) == 12);
    CHECK(get_le(directory, 46 + 7 + 4, 8) == far.offset);
    CHECK(directory.find(std::string("PK\x06\x06", 4)) != std::string::npos);

    std::vector<zip::MemberFrame> many(70000);
    for (std::size_t i = 0; i < many.size(); ++i) many[i].name = std::to_string(i);
    const std::string end = zip::directory(many, 0);
    CHECK(end.find(std::string("PK\x06\x06", 4)) != std::string::npos);
    CHECK(get_le(end, end.size() - 22 + 10, 2) == 0xFFFF);
}

TEST_CASE("npz_prefix and npz_suffix frame a one-member archive as the several-member framing does") {
    // Sizes around the zip64 limits: the member's own (4 GiB - 1) and the directory's offset.
    const std::uint64_t sizes[] = {0, 33, 0xFFFFFFFEull - 100, 0xFFFFFFFEull, 0xFFFFFFFFull, std::uint64_t{5} << 30};
    for (const std::string name : {std::string("arr_0.npy"), std::string("\xC3\xA9t\xC3\xA9.npy")}) {
        for (const std::uint64_t size : sizes) {
            CAPTURE(size);
            zip::MemberFrame frame;
            frame.name = name;
            frame.descriptor = true;
            frame.crc32 = 0x89ABCDEF;
            frame.size = frame.stored_size = size;
            const std::string header = zip::local_header(frame), descriptor = zip::data_descriptor(frame);
            CHECK(npz_prefix(name, size) == header);
            CHECK(npz_suffix(name, size, frame.crc32) ==
                  descriptor + zip::directory({frame}, header.size() + size + descriptor.size()));
        }
    }
}

TEST_CASE("an end record past 4 GiB keeps the counts that fit, as Python's zipfile writes them") {
    zip::MemberFrame frame;
    frame.name = "a.npy";
    frame.size = frame.stored_size = std::uint64_t{5} << 30;
    const std::string end = zip::directory({frame}, frame.size + 100);
    CHECK(end.find(std::string("PK\x06\x06", 4)) != std::string::npos);
    const std::size_t record = end.size() - 22;
    CHECK(get_le(end, record + 8, 2) == 1);
    CHECK(get_le(end, record + 10, 2) == 1);
    CHECK(get_le(end, record + 12, 4) == end.find(std::string("PK\x06\x06", 4)));
    CHECK(get_le(end, record + 16, 4) == 0xFFFFFFFF);
}
