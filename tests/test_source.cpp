// Inputs as one mapping: files in place, streams spooled (a .npy only as far as its header
// promises, a container to its end), deflated members inflated into a spool.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "library_internals.hpp"
#include "machine_skips.hpp"
#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/source.hpp"
#include "zip_fixture.hpp"

using namespace tslice;
using namespace tslice_test;
namespace fs = std::filesystem;

namespace {

// Runs `action` with standard input reading `bytes` from a pipe (fed by a thread).
template <typename Action>
void with_stdin_pipe(const std::string& bytes, Action action) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::thread feeder([&] {
        std::size_t at = 0;
        while (at < bytes.size()) {
            const ssize_t n = ::write(fds[1], bytes.data() + at, bytes.size() - at);
            if (n <= 0) break;
            at += static_cast<std::size_t>(n);
        }
        ::close(fds[1]);
    });
    const int saved = ::dup(0);
    ::dup2(fds[0], 0);
    ::close(fds[0]);
    try {
        action();
    } catch (...) {
        ::dup2(saved, 0);
        ::close(saved);
        feeder.join();
        throw;
    }
    // Drain what the action left, so the feeder can finish.
    char sink[4096];
    while (::read(0, sink, sizeof sink) > 0) {
    }
    ::dup2(saved, 0);
    ::close(saved);
    feeder.join();
}

std::string as_string(const InputBytes& input) {
    return std::string(reinterpret_cast<const char*>(input.data()), input.size());
}

}  // namespace

TEST_CASE("a file is mapped whole; a missing file or a directory is an input error") {
    const fs::path path = fs::temp_directory_path() / "tslice-source-test.npz";
    const std::string archive = make_zip({{"a.npy", npy_counting(7), false}});
    std::ofstream(path, std::ios::binary) << archive;
    CHECK(as_string(InputBytes::open(path.string())) == archive);
    fs::remove(path);
    CHECK_THROWS_AS(InputBytes::open(path.string()), Error);
    CHECK_THROWS_AS(InputBytes::open(fs::temp_directory_path().string()), Error);
}

TEST_CASE("standard input: a .npy is spooled as far as its header promises, a container to its end") {
    const std::string npy = npy_counting(5000);
    with_stdin_pipe(npy + "trailing bytes", [&] { CHECK(as_string(InputBytes::open("-")) == npy); });
    const std::string archive = make_zip({{"a.npy", npy, true}, {"b.npy", npy, false}});
    with_stdin_pipe(archive, [&] { CHECK(as_string(InputBytes::open("-")) == archive); });
    with_stdin_pipe("", [&] { CHECK_THROWS_AS(InputBytes::open("-"), Error); });
    // A safetensors stream is read as far as its tensors reach.
    const std::string header = R"({"a":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}})";
    const std::string tensors = std::string(1, static_cast<char>(header.size())) + std::string(7, '\0') + header + "xyz";
    with_stdin_pipe(tensors + std::string(100000, 'q'), [&] { CHECK(as_string(InputBytes::open("-")) == tensors); });
    // Not a .npy: only the first bytes are read; the parser reports the rest.
    with_stdin_pipe(std::string(100000, 'x'), [&] { CHECK(InputBytes::open("-").size() == 12); });
}

TEST_CASE("a deflated member is inflated into a spool; a stored one is pointed at in place") {
    const std::string npy = npy_counting(300000);
    const std::string archive = make_zip({{"a.npy", npy, true}, {"b.npy", npy, false}});
    const fs::path path = fs::temp_directory_path() / "tslice-source-test2.npz";
    std::ofstream(path, std::ios::binary) << archive;
    const InputBytes input = InputBytes::open(path.string());
    const auto arrays = list_arrays(input.data(), input.size());
    for (const ArrayInFile& array : arrays) {
        const ArrayData data = ArrayData::open(input, array, "member");
        CHECK(std::memcmp(data.data(), npy.data() + (npy.size() - 1200000), 1200000) == 0);
        CHECK(data.view().shape == std::vector<std::int64_t>{300000});
        data.release(0, 600000);
        CHECK(std::memcmp(data.data(), npy.data() + (npy.size() - 1200000), 1200000) == 0);
        // What the copy is told about where its input lies (copy.hpp): the small inflated
        // member is memory the process holds, the stored one the file's mapping.
        CHECK(input_memory(data.pages()) ==
              (array.bytes.kind == ArrayBytes::Kind::Mapped ? InputMemory::Mapped : InputMemory::Resident));
    }
    fs::remove(path);
}

TEST_CASE("a deflated member over the in-memory budget streams through a spool") {
    const std::string npy = npy_counting(9'000'000);  // 36 MB, more than kWholeInflateBytes
    const std::string archive = make_zip({{"big.npy", npy, true}});
    const fs::path path = fs::temp_directory_path() / "tslice-source-test3.npz";
    std::ofstream(path, std::ios::binary) << archive;
    const InputBytes input = InputBytes::open(path.string());
    const auto arrays = list_arrays(input.data(), input.size());
    REQUIRE(arrays.size() == 1);
    const ArrayData data = ArrayData::open(input, arrays[0], "member");
    CHECK(std::memcmp(data.data(), npy.data() + (npy.size() - 36'000'000), 36'000'000) == 0);
    data.release(0, 8'000'000);
    CHECK(std::memcmp(data.data(), npy.data() + (npy.size() - 36'000'000), 36'000'000) == 0);
    CHECK(input_memory(data.pages()) == InputMemory::Mapped);  // the spool's mapping
    fs::remove(path);
}

TEST_CASE("a range read in is in the page cache when the call returns; one read ahead is asked for") {
    // In the build directory, on a disk's file system, where dropped pages really leave the
    // page cache (a tmpfs keeps them).
    const fs::path path = fs::current_path() / "tslice-source-test-read-ahead.npy";
    const std::string npy = npy_counting(2 << 20);  // 8 MiB of data
    std::ofstream(path, std::ios::binary) << npy;
    const auto drop = [&] {
        const int fd = ::open(path.c_str(), O_RDONLY);
        REQUIRE(fd >= 0);
        REQUIRE(::fdatasync(fd) == 0);
        REQUIRE(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
        ::close(fd);
    };
    const InputBytes input = InputBytes::open(path.string());
    const auto arrays = list_arrays(input.data(), input.size());
    const ArrayData data = ArrayData::open(input, arrays[0], "the array");
    const InputPages pages = data.pages();
    std::vector<std::byte> got(4096);
    const std::int64_t mib = std::int64_t{1} << 20;
    // (The header's pages stay: reading it mapped them, up to a 2 MiB folio.)
    drop();
    if (pages.read_cached(3 * mib, 4096, got.data()) != 0 || pages.read_cached(6 * mib, 4096, got.data()) != 0) {
        // A file system that keeps its pages whatever is asked (tmpfs), or a kernel whose reads
        // cannot be told not to wait (no RWF_NOWAIT): nothing here tells a cached page apart.
        machine_skips::skip("read_in and read_ahead of dropped pages",
                            "the dropped pages still read as cached (tmpfs, or no RWF_NOWAIT)");
        fs::remove(path);
        return;
    }
    REQUIRE(pages.mapped());
    pages.read_in(4 * mib, 6 * mib + 4096);
    // Read, not asked for: there when the call returns.
    CHECK(pages.read_cached(4 * mib, 4096, got.data()) == 4096);
    CHECK(pages.read_cached(6 * mib, 4096, got.data()) == 4096);
    CHECK(std::memcmp(got.data(), data.data() + 6 * mib, 4096) == 0);
    // Asked for, the pages may still be on their way: only no failure to see.
    drop();
    pages.read_ahead(3 * mib, 3 * mib + 4096);
    std::error_code ignored;
    fs::remove(path, ignored);
}

TEST_CASE("whether a page is in the page cache is told without reading it in") {
    // On a disk's file system, as above: dropped pages leave the page cache.
    const fs::path path = fs::current_path() / "tslice-source-test-cached.npy";
    const std::string npy = npy_counting(2 << 20);  // 8 MiB of data
    std::ofstream(path, std::ios::binary) << npy;
    const InputBytes input = InputBytes::open(path.string());
    const auto arrays = list_arrays(input.data(), input.size());
    const ArrayData data = ArrayData::open(input, arrays[0], "the array");
    const InputPages pages = data.pages();
    REQUIRE(pages.mapped());
    const std::int64_t mib = std::int64_t{1} << 20;
    CHECK(pages.cached(5 * mib));  // just written
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::fdatasync(fd) == 0);
    REQUIRE(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
    ::close(fd);
    if (pages.cached(5 * mib)) {
        machine_skips::skip("mincore of a dropped page", "the build directory's file system kept the dropped pages");
        fs::remove(path);
        return;
    }
    // Asking started no read: a read that must not wait would have had the kernel read the
    // page ahead by now.
    for (int ask = 0; ask < 3; ++ask) CHECK_FALSE(pages.cached(5 * mib + ask));
    ::usleep(50000);
    CHECK_FALSE(pages.cached(5 * mib));
    pages.read_in(5 * mib, 5 * mib + 4096);
    CHECK(pages.cached(5 * mib));
    std::error_code ignored;
    fs::remove(path, ignored);
}

TEST_CASE("a spool holds what was appended; an empty one maps to nothing") {
    Spool spool("test bytes");
    const std::string text = "hello spool";
    spool.append(reinterpret_cast<const std::byte*>(text.data()), text.size());
    const Mapping mapping = spool.map();
    CHECK(std::string(reinterpret_cast<const char*>(mapping.data()), mapping.size()) == text);
    Spool empty("nothing");
    CHECK(empty.map().size() == 0);
}

TEST_CASE("an array's bytes read without mapping them: from a file, a spool, or memory") {
    const std::string npy = npy_counting(100000);  // 400 KB of data
    const fs::path path = fs::temp_directory_path() / "tslice-source-test-read.npy";
    std::ofstream(path, std::ios::binary) << npy;
    const auto check_reads = [&](const InputBytes& input) {
        const auto arrays = list_arrays(input.data(), input.size());
        REQUIRE(arrays.size() == 1);
        const ArrayData data = ArrayData::open(input, arrays[0], "the array");
        const InputPages pages = data.pages();
        REQUIRE(pages.mapped());
        std::vector<std::byte> got(5000);
        pages.read(123456, 5000, got.data());
        CHECK(std::memcmp(got.data(), data.data() + 123456, 5000) == 0);
        // The file was just written (or spooled): its pages are in the page cache.
        std::fill(got.begin(), got.end(), std::byte{0});
        CHECK(pages.read_cached(1000, 5000, got.data()) == 5000);
        CHECK(std::memcmp(got.data(), data.data() + 1000, 5000) == 0);
        pages.read_ahead(0, 400000);  // advice: nothing to see but no failure
    };
    check_reads(InputBytes::open(path.string()));
    {
        const int saved = ::dup(0);
        const int file = ::open(path.c_str(), O_RDONLY);
        REQUIRE(::dup2(file, 0) == 0);
        ::close(file);
        check_reads(InputBytes::open("-"));  // standard input redirected from the file
        ::dup2(saved, 0);
        ::close(saved);
    }
    with_stdin_pipe(npy, [&] { check_reads(InputBytes::open("-")); });  // spooled

    // A file cut short under the read is the input's fault, said so.
    const InputBytes input = InputBytes::open(path.string());
    const auto arrays = list_arrays(input.data(), input.size());
    const ArrayData data = ArrayData::open(input, arrays[0], "the array");
    fs::resize_file(path, 1000);
    std::vector<std::byte> got(5000);
    CHECK(data.pages().read_cached(200000, 5000, got.data()) == 0);
    CHECK(input_error([&] { data.pages().read(200000, 5000, got.data()); }).find("truncated while tslice read it") !=
          std::string::npos);
    fs::remove(path);
}

TEST_CASE("a stored member's CRC-32 is checked over all of it before its data is used, file and pipe") {
    const std::string npy = npy_counting(300000);
    const std::string good = make_zip({{"a.npy", npy, false}, {"b.npy", npy, false}});
    const std::size_t data_at = good.find(npy) + npy.size() - 4;  // a's last element
    const std::size_t header_at = good.find(npy) + npy.find("300000");  // a's shape: 300000 -> 200000
    for (const std::size_t at : {data_at, header_at}) {
        std::string bad = good;
        bad[at] = static_cast<char>(bad[at] ^ 0x01);
        const fs::path path = fs::temp_directory_path() / "tslice-source-crc.npz";
        std::ofstream(path, std::ios::binary) << bad;
        const auto check_input = [&](const InputBytes& input) {
            const auto arrays = list_arrays(input.data(), input.size());
            REQUIRE(arrays.size() == 2);
            CHECK(arrays[0].bytes.member_size == npy.size());
            const std::string message =
                message_of(ErrorKind::Input, [&] { ArrayData::open(input, arrays[0], "the .npz member 'a.npy'"); });
            CHECK(message.rfind("the .npz member 'a.npy' is corrupt: its bytes have CRC-32 ", 0) == 0);
            CHECK(message.find("but the zip directory says") != std::string::npos);
            // The other member is untouched.
            const ArrayData data = ArrayData::open(input, arrays[1], "the .npz member 'b.npy'");
            CHECK(std::memcmp(data.data(), npy.data() + (npy.size() - 1200000), 1200000) == 0);
        };
        check_input(InputBytes::open(path.string()));
        with_stdin_pipe(bad, [&] { check_input(InputBytes::open("-")); });
        fs::remove(path);
    }
}
