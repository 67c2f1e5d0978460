// Fuzz target: reading an .npz (whole file bytes in): the zip directory, each member's local
// header and .npy header, and inflating every deflated member to its end.
//
// Checks, besides "no crash, no sanitizer report, only tslice::Error(Input)":
//   - every stored member's array bytes lie inside the file, and its size is shape x item size;
//   - a deflated member's array lies inside its inflated size, and inflating it gives exactly
//     that many bytes or an Error (never more, never a hang: the output is bounded by the
//     directory's size, read in 64 KiB steps and thrown away); a member of at most 1 MiB
//     inflated whole (libdeflate) gives the same bytes, or an error exactly when the stream does;
//   - the one-member .npz tslice would write for each member's name reads back with that name.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "library_internals.hpp"
#include "fuzz_common.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

using namespace tslice;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto* file = reinterpret_cast<const std::byte*>(data);
    std::vector<ArrayInFile> arrays;
    try {
        arrays = list_npz(file, size);
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
        return 0;
    }
    for (const ArrayInFile& array : arrays) {
        TSLICE_FUZZ_CHECK(array.name.has_value());
        // A member's stored bytes, where its local header was read, lie in the file.
        const MemberBytes& member = array.member_bytes;
        if (member.offset != 0)
            TSLICE_FUZZ_CHECK(member.offset <= size && size - member.offset >= member.stored_size);
        if (!array.error.empty()) continue;  // listed with why, never read
        TSLICE_FUZZ_CHECK(array.type.itemsize() >= 1);
        if (array.bytes.kind == ArrayBytes::Kind::Mapped) {
            TSLICE_FUZZ_CHECK(array.bytes.offset <= size && size - array.bytes.offset >= array.bytes.size);
            TSLICE_FUZZ_CHECK(array.bytes.size == array.data_bytes());
            continue;
        }
        TSLICE_FUZZ_CHECK(array.bytes.offset <= size && size - array.bytes.offset >= array.bytes.size);
        TSLICE_FUZZ_CHECK(array.bytes.data_offset <= array.bytes.inflated_size &&
                          array.bytes.inflated_size - array.bytes.data_offset >= array.data_bytes());
        // A directory may promise far more than the stream holds; stop reading after 64 MiB.
        // A small member is also inflated whole (libdeflate): the same bytes or an error, as
        // the stream gives.
        const bool small = array.bytes.inflated_size <= (1 << 20);
        std::string streamed;
        bool stream_ok = true;
        try {
            InflateStream stream(file + array.bytes.offset, array.bytes.size, array.bytes.inflated_size,
                                 array.bytes.crc32, "member");
            std::vector<std::byte> buffer(65536);
            std::uint64_t total = 0;
            for (int step = 0; step < 1024; ++step) {
                const std::size_t got = stream.read(buffer.data(), buffer.size());
                total += got;
                if (small) streamed.append(reinterpret_cast<const char*>(buffer.data()), got);
                if (got < buffer.size()) break;
            }
            TSLICE_FUZZ_CHECK(total <= array.bytes.inflated_size);
            if (total < std::uint64_t{64} << 20) TSLICE_FUZZ_CHECK(total == array.bytes.inflated_size);
        } catch (const Error& error) {
            TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
            stream_ok = false;
        }
        if (!small) continue;
        try {
            const std::vector<std::byte> whole = inflate_whole(file + array.bytes.offset, array.bytes.size,
                                                               array.bytes.inflated_size, array.bytes.crc32, "member");
            TSLICE_FUZZ_CHECK(stream_ok);
            TSLICE_FUZZ_CHECK(streamed.size() == whole.size() &&
                              std::memcmp(streamed.data(), whole.data(), whole.size()) == 0);
        } catch (const Error& error) {
            TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
            TSLICE_FUZZ_CHECK(!stream_ok);
        }
    }
    // Every member copied as --update copies it (its stored bytes, method and CRC-32, under
    // a local header of tslice's) reads back as the same members.
    std::vector<zip::MemberFrame> frames;
    std::vector<std::uint64_t> sources;
    std::string copied;
    for (const ArrayInFile& array : arrays) {
        const MemberBytes& member = array.member_bytes;
        if (member.offset == 0 || member.stored_size > (1 << 20)) continue;
        zip::MemberFrame frame{array.member, member.method, member.crc32, member.stored_size, member.size,
                               copied.size(), false};
        copied += zip::local_header(frame);
        copied.append(reinterpret_cast<const char*>(file + member.offset), member.stored_size);
        frames.push_back(std::move(frame));
        sources.push_back(member.offset);
    }
    copied += zip::directory(frames, copied.size());
    const auto* archive = reinterpret_cast<const std::byte*>(copied.data());
    const auto copies = zip::read_directory(archive, copied.size());
    TSLICE_FUZZ_CHECK(copies.size() == frames.size());
    for (std::size_t i = 0; i < copies.size(); ++i) {
        TSLICE_FUZZ_CHECK(copies[i].method == frames[i].method && copies[i].crc32 == frames[i].crc32 &&
                          copies[i].compressed_size == frames[i].stored_size &&
                          copies[i].uncompressed_size == frames[i].size);
        const std::uint64_t at = zip::data_offset(archive, copied.size(), copies[i]);
        TSLICE_FUZZ_CHECK(std::memcmp(copied.data() + at, file + sources[i], frames[i].stored_size) == 0);
    }
    // The writer's framing around each member name reads back.
    for (const ArrayInFile& array : arrays) {
        const std::string member = "0123456789";
        const std::string archive = npz_prefix(array.member, member.size()) + member +
                                    npz_suffix(array.member, member.size(),
                                               crc32_update(0, reinterpret_cast<const std::byte*>(member.data()), 10));
        const auto entries = zip::read_directory(reinterpret_cast<const std::byte*>(archive.data()), archive.size());
        TSLICE_FUZZ_CHECK(entries.size() == 1 && entries[0].method == 0 && entries[0].compressed_size == 10);
        const std::uint64_t at =
            zip::data_offset(reinterpret_cast<const std::byte*>(archive.data()), archive.size(), entries[0]);
        TSLICE_FUZZ_CHECK(archive.compare(at, 10, member) == 0);
        // Names are UTF-8 on the way out; a name read as UTF-8 comes back unchanged.
        if (entries[0].flags & 0x0800) TSLICE_FUZZ_CHECK(entries[0].name == array.member);
    }
    return 0;
}
