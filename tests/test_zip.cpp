// The zip directory reader, the streaming inflate, and the framing of a one-member .npz: the
// archives are built byte by byte (tests/zip_fixture.hpp) as Python's zipfile writes them,
// then cut short and corrupted field by field.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "library_internals.hpp"
#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "zip_fixture.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

const std::byte* bytes_of(const std::string& s) { return reinterpret_cast<const std::byte*>(s.data()); }

std::vector<zip::Entry> directory(const std::string& archive) {
    return zip::read_directory(bytes_of(archive), archive.size());
}


std::string inflate_all(const std::string& compressed, std::uint64_t size, std::uint32_t crc, std::size_t step = 7) {
    InflateStream stream(bytes_of(compressed), compressed.size(), size, crc, "member 'x.npy'");
    std::string out;
    for (;;) {
        std::string buffer(step, '\0');
        const std::size_t got = stream.read(reinterpret_cast<std::byte*>(buffer.data()), step);
        out += buffer.substr(0, got);
        if (got < step) break;
    }
    return out;
}

}  // namespace

TEST_CASE("the directory of stored and deflated members, plain and zip64, with data in front") {
    const std::string a = npy_counting(10), b = npy_counting(1000);
    for (const bool zip64 : {false, true}) {
        for (const std::string prepend : {std::string(), std::string(100, 'x')}) {
            CAPTURE(zip64);
            CAPTURE(prepend.size());
            const std::string archive = make_zip({{"a.npy", a, false}, {"dir/b.npy", b, true}}, zip64, prepend);
            const auto entries = directory(archive);
            REQUIRE(entries.size() == 2);
            CHECK(entries[0].name == "a.npy");
            CHECK(entries[0].method == 0);
            CHECK(entries[0].compressed_size == a.size());
            CHECK(entries[0].uncompressed_size == a.size());
            CHECK(entries[0].crc32 == crc_of(a));
            const std::uint64_t at = zip::data_offset(bytes_of(archive), archive.size(), entries[0]);
            CHECK(archive.substr(at, a.size()) == a);
            CHECK(entries[1].name == "dir/b.npy");
            CHECK(entries[1].method == 8);
            CHECK(entries[1].uncompressed_size == b.size());
            const std::uint64_t at_b = zip::data_offset(bytes_of(archive), archive.size(), entries[1]);
            CHECK(inflate_all(archive.substr(at_b, entries[1].compressed_size), b.size(), crc_of(b)) == b);
        }
    }
}

TEST_CASE("an empty archive has no entries; a comment after the end record is skipped") {
    CHECK(directory(make_zip({})).empty());
    std::string archive = make_zip({{"a.npy", npy_counting(3), false}});
    archive[archive.size() - 2] = 5;  // comment length
    archive += "hello";
    CHECK(directory(archive).size() == 1);
}

TEST_CASE("names without the UTF-8 flag are code page 437, as Python's zipfile reads them") {
    std::string archive = make_zip({{"\x81.npy", npy_counting(1), false}});
    const auto at = archive.find("PK\x01\x02");
    archive[at + 9] = 0;  // clear bit 11 of the central directory's flags
    CHECK(directory(archive)[0].name == "\xC3\xBC.npy");  // u with diaeresis
}

TEST_CASE("every truncation of an archive is an input error, never a crash") {
    for (const bool zip64 : {false, true}) {
        const std::string archive = make_zip({{"a.npy", npy_counting(5), false}, {"b.npy", npy_counting(5), true}}, zip64);
        for (std::size_t size = 0; size < archive.size(); ++size) {
            CAPTURE(size);
            const std::string cut = archive.substr(0, size);
            CHECK(thrown_by([&] {
                      for (const auto& entry : directory(cut)) (void)zip::data_offset(bytes_of(cut), cut.size(), entry);
                  }).kind() == ErrorKind::Input);
        }
    }
}

TEST_CASE("corrupt directories name what is wrong") {
    const std::string good = make_zip({{"a.npy", npy_counting(5), false}});
    const auto end = good.rfind("PK\x05\x06");
    const auto central = good.find("PK\x01\x02");
    auto with = [&](std::size_t at, const std::string& bytes) {
        std::string bad = good;
        bad.replace(at, bytes.size(), bytes);
        return bad;
    };
    CHECK(input_error([&] { directory("not a zip at all, just some text that is long enough"); })
              .find("no end of central directory") != std::string::npos);
    CHECK(input_error([&] { directory(with(end + 4, std::string("\x01\x00", 2))); }).find("several disks") !=
          std::string::npos);
    CHECK(input_error([&] { directory(with(end + 16, std::string("\xFF\xFF\x00\x00", 4))); }).find("outside the file") !=
          std::string::npos);
    CHECK(input_error([&] { directory(with(end + 10, std::string("\x09\x00", 2))); }).find("entries") !=
          std::string::npos);
    CHECK(input_error([&] { directory(with(central, "XXXX")); }).find("no signature") != std::string::npos);
    CHECK(input_error([&] {
              const std::string bad = with(0, "XXXX");
              zip::data_offset(bytes_of(bad), bad.size(), directory(bad)[0]);
          }).find("no local header") != std::string::npos);
    // A compressed size past the end of the file.
    CHECK(input_error([&] {
              const std::string bad = with(central + 20, std::string("\x00\x00\x01\x00", 4));
              zip::data_offset(bytes_of(bad), bad.size(), directory(bad)[0]);
          }).find("past the end") != std::string::npos);
    // A 0xFFFFFFFF size without the zip64 extra field that should hold it.
    CHECK(input_error([&] { directory(with(central + 20, "\xFF\xFF\xFF\xFF")); }).find("zip64") != std::string::npos);
}

TEST_CASE("inflate: the member's bytes in any read size; corrupt, short, long and CRC errors") {
    const std::string member = npy_counting(5000);
    const std::string compressed = deflate_raw(member);
    for (const std::size_t step : {1, 7, 4096, 1 << 20}) {
        CAPTURE(step);
        CHECK(inflate_all(compressed, member.size(), crc_of(member), step) == member);
    }
    CHECK(input_error([&] { inflate_all(compressed, member.size(), crc_of(member) ^ 1); }).find("CRC-32") !=
          std::string::npos);
    CHECK(input_error([&] { inflate_all(compressed, member.size() + 1, crc_of(member)); }).find("inflates to") !=
          std::string::npos);
    CHECK(input_error([&] { inflate_all(compressed, member.size() - 1, crc_of(member)); }).find("more than") !=
          std::string::npos);
    CHECK(input_error([&] { inflate_all(compressed.substr(0, compressed.size() / 2), member.size(), crc_of(member)); })
              .find("cut short") != std::string::npos);
    std::string corrupt = compressed;
    corrupt[0] = static_cast<char>(0xFF);  // a reserved block type
    CHECK(input_error([&] { inflate_all(corrupt, member.size(), crc_of(member)); }).find("corrupt") !=
          std::string::npos);
    // Every truncation and every single-byte corruption: an error or the right bytes, nothing else.
    for (std::size_t i = 0; i < compressed.size(); i += 3) {
        std::string bad = compressed;
        bad[i] = static_cast<char>(bad[i] ^ 0x5A);
        try {
            const std::string got = inflate_all(bad, member.size(), crc_of(member), 1000);
            CHECK(got == member);
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::Input);
        }
    }
}

TEST_CASE("inflate whole (libdeflate): the same bytes and the same errors as the stream") {
    const std::string member = npy_counting(5000);
    const std::string compressed = deflate_raw(member);
    const auto whole = [&](const std::string& stream, std::uint64_t size, std::uint32_t crc) {
        const std::vector<std::byte> out = inflate_whole(bytes_of(stream), stream.size(), size, crc, "member 'x.npy'");
        return std::string(reinterpret_cast<const char*>(out.data()), out.size());
    };
    CHECK(whole(compressed, member.size(), crc_of(member)) == member);
    CHECK(whole(deflate_raw(""), 0, 0).empty());
    CHECK(input_error([&] { whole(compressed, member.size(), crc_of(member) ^ 1); }).find("CRC-32") != std::string::npos);
    CHECK(input_error([&] { whole(compressed, member.size() + 1, crc_of(member)); }).find("inflates to") !=
          std::string::npos);
    CHECK(input_error([&] { whole(compressed, member.size() - 1, crc_of(member)); }).find("more than") !=
          std::string::npos);
    CHECK(input_error([&] { whole(compressed.substr(0, compressed.size() / 2), member.size(), crc_of(member)); })
              .find("cut short") != std::string::npos);
    for (std::size_t i = 0; i < compressed.size(); i += 3) {
        std::string bad = compressed;
        bad[i] = static_cast<char>(bad[i] ^ 0x5A);
        try {
            const std::string got = whole(bad, member.size(), crc_of(member));
            CHECK(got == member);
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::Input);
        }
    }
}

TEST_CASE("the .npz framing reads back: name, sizes, CRC, data right after the local header") {
    for (const std::string name : {std::string("arr_0.npy"), std::string("\xC3\xA9t\xC3\xA9.npy")}) {
        const std::string member = npy_counting(33);
        const std::string prefix = npz_prefix(name, member.size());
        const std::string archive = prefix + member + npz_suffix(name, member.size(), crc_of(member));
        const auto entries = directory(archive);
        REQUIRE(entries.size() == 1);
        CHECK(entries[0].name == name);
        CHECK(entries[0].method == 0);
        CHECK((entries[0].flags & 0x0008) != 0);
        CHECK(entries[0].crc32 == crc_of(member));
        CHECK(entries[0].compressed_size == member.size());
        CHECK(zip::data_offset(bytes_of(archive), archive.size(), entries[0]) == prefix.size());
    }
}

TEST_CASE("the .npz framing of a member of 4 GiB and more is zip64 (a sparse file)") {
    const std::uint64_t member_size = (std::uint64_t{4} << 30) + 12345;
    const std::string prefix = npz_prefix("big.npy", member_size);
    const std::string suffix = npz_suffix("big.npy", member_size, 0x12345678);
    const std::uint64_t total = prefix.size() + member_size + suffix.size();
    char path[] = "/tmp/tslice-zip64-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::unlink(path);
    REQUIRE(::ftruncate(fd, static_cast<off_t>(total)) == 0);
    REQUIRE(::pwrite(fd, prefix.data(), prefix.size(), 0) == static_cast<ssize_t>(prefix.size()));
    REQUIRE(::pwrite(fd, suffix.data(), suffix.size(), static_cast<off_t>(total - suffix.size())) ==
            static_cast<ssize_t>(suffix.size()));
    void* map = ::mmap(nullptr, total, PROT_READ, MAP_PRIVATE, fd, 0);
    REQUIRE(map != MAP_FAILED);
    const auto* file = static_cast<const std::byte*>(map);
    const auto entries = zip::read_directory(file, total);
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].compressed_size == member_size);
    CHECK(entries[0].uncompressed_size == member_size);
    CHECK(entries[0].crc32 == 0x12345678);
    CHECK(zip::data_offset(file, total, entries[0]) == prefix.size());
    ::munmap(map, total);
    ::close(fd);
}

TEST_CASE("crc32_update continues a CRC across pieces") {
    const std::string text = "The quick brown fox jumps over the lazy dog";
    CHECK(crc32_update(0, bytes_of(text), text.size()) == 0x414FA339);
    const std::uint32_t half = crc32_update(0, bytes_of(text), 10);
    CHECK(crc32_update(half, bytes_of(text) + 10, text.size() - 10) == 0x414FA339);
}
