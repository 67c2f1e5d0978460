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
    fs::remove(path);
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
