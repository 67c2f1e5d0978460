// Moving a file's bytes into an output by splice (FileSplice), the pipe an output grows for a
// large result (OutputFile::expect), and write_view's use of both for a contiguous result.

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "fake_pages.hpp"
#include "machine_skips.hpp"
#include "library_internals.hpp"
#include "npy_fixture.hpp"
#include "tslice/write.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

std::string pattern(std::size_t size) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((i * 2654435761u) >> 13);
    return bytes;
}

// A pipe whose bytes a thread of its own reads until every writer closed it.
struct DrainedPipe {
    int read_end = -1, write_end = -1;
    std::string received;
    std::thread reader;

    DrainedPipe() {
        int ends[2];
        REQUIRE(::pipe2(ends, O_CLOEXEC) == 0);
        read_end = ends[0];
        write_end = ends[1];
        reader = std::thread([this] {
            char buffer[65536];
            for (ssize_t got; (got = ::read(read_end, buffer, sizeof buffer)) != 0;)
                if (got > 0) received.append(buffer, static_cast<std::size_t>(got));
        });
    }
    // Everything written, once the writing end is closed.
    const std::string& all() {
        if (write_end >= 0) ::close(write_end);
        write_end = -1;
        if (reader.joinable()) reader.join();
        return received;
    }
    ~DrainedPipe() {
        all();
        ::close(read_end);
    }
};

}  // namespace

TEST_CASE("FileSplice: a stretch of a file after a prefix, into a pipe or a file, chunk after chunk") {
    TempDir dir;
    const std::string bytes = pattern(3 << 20);
    write_file(dir.path / "in.bin", bytes);
    const int in = ::open((dir.path / "in.bin").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(in >= 0);

    DrainedPipe pipe;
    {
        FileSplice splice(in, pipe.write_end);
        const FileSplice::Sent first = splice.send(100, 1500000, "HEAD", "the pipe");
        CHECK(first.before);
        CHECK(first.bytes == 1500000);
        const FileSplice::Sent second = splice.send(1500100, 700001, "", "the pipe");
        CHECK(second.bytes == 700001);
    }
    CHECK(pipe.all() == "HEAD" + bytes.substr(100, 2200001));

    const int out = ::open((dir.path / "out.bin").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(out >= 0);
    {
        FileSplice splice(in, out);
        CHECK(splice.send(7, 2 << 20, "H", "the file").bytes == 2 << 20);
    }
    ::close(out);
    CHECK(read_file(dir.path / "out.bin") == "H" + bytes.substr(7, 2 << 20));
    ::close(in);
}

TEST_CASE("FileSplice: what it cannot move it leaves to the caller, and a prefix goes out only with data") {
    TempDir dir;
    const std::string bytes = pattern(200000);
    write_file(dir.path / "in.bin", bytes);
    const int in = ::open((dir.path / "in.bin").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(in >= 0);

    // Past the file's end nothing is read, so not even the prefix is written; from a file
    // shorter than asked, what it has, then nothing more.
    struct Case {
        std::int64_t offset, bytes, sent;
    };
    for (const Case& at : {Case{200000, 10, 0}, Case{150000, 100000, 50000}}) {
        CAPTURE(at.offset);
        DrainedPipe pipe;
        FileSplice splice(in, pipe.write_end);
        const FileSplice::Sent sent = splice.send(at.offset, at.bytes, "HEAD", "the pipe");
        CHECK(sent.before == (at.sent > 0));
        CHECK(sent.bytes == at.sent);
        CHECK_FALSE(splice.send(0, 10, "", "the pipe").before);
        CHECK(pipe.all() == (at.sent > 0 ? "HEAD" + bytes.substr(static_cast<std::size_t>(at.offset)) : ""));
    }
    SUBCASE("an output opened to append takes no splice: the prefix is written, the data left") {
        const int out = ::open((dir.path / "out.bin").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        REQUIRE(out >= 0);
        FileSplice splice(in, out);
        const FileSplice::Sent sent = splice.send(0, 1000, "HEAD", "the file");
        CHECK(sent.before);
        CHECK(sent.bytes == 0);
        CHECK(splice.send(1000, 1000, "", "the file").bytes == 0);
        ::close(out);
        CHECK(read_file(dir.path / "out.bin") == "HEAD");
    }
    SUBCASE("no file") {
        DrainedPipe pipe;
        FileSplice splice(-1, pipe.write_end);
        CHECK_FALSE(splice.send(0, 10, "HEAD", "the pipe").before);
    }
    ::close(in);
}

TEST_CASE("OutputFile::expect: a pipe grows to 1 MiB for a large result, no further, and only then") {
    DrainedPipe pipe;
    OutputFile output("/dev/fd/" + std::to_string(pipe.write_end));
    CHECK(output.is_pipe());
    const int before = ::fcntl(pipe.write_end, F_GETPIPE_SZ);
    REQUIRE(before < (1 << 20));
    output.expect(before);  // fits already
    CHECK(::fcntl(pipe.write_end, F_GETPIPE_SZ) == before);
    output.expect(std::int64_t{1} << 30);
    CHECK(::fcntl(pipe.write_end, F_GETPIPE_SZ) == 1 << 20);

    TempDir dir;
    OutputFile file((dir.path / "out.bin").string());
    CHECK_FALSE(file.is_pipe());
    file.expect(std::int64_t{1} << 30);  // nothing to grow
}

TEST_CASE("OutputFile::expect: a file replacing another on ext4 has its blocks allocated ahead, none left over") {
    TempDir dir;
    const std::string path = (dir.path / "out.bin").string();
    struct statfs fs {};
    REQUIRE(::statfs(dir.path.c_str(), &fs) == 0);
    if (static_cast<unsigned long>(fs.f_type) != 0xEF53) {
        machine_skips::skip("blocks allocated ahead of a replacing file", "the temporary directory is not on ext4");
        return;
    }
    const auto blocks_of = [](int fd) {
        struct stat info {};
        REQUIRE(::fstat(fd, &info) == 0);
        return std::pair<std::int64_t, std::int64_t>(info.st_size, info.st_blocks * 512);
    };
    {  // a new file: nothing ahead
        OutputFile fresh(path);
        fresh.expect(8 << 20);
        CHECK(blocks_of(fresh.fd()).second == 0);
        fresh.commit(false);
    }
    // Replacing it: 8 MiB allocated past a size of 0; 1 MiB written; the rest freed on commit.
    OutputFile output(path);
    output.expect(8 << 20);
    const auto [size, allocated] = blocks_of(output.fd());
    CHECK(size == 0);
    CHECK(allocated >= (8 << 20));
    const std::string bytes = pattern(1 << 20);
    REQUIRE(::write(output.fd(), bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    output.commit(false);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    const auto [final_size, final_blocks] = blocks_of(fd);
    CHECK(final_size == (1 << 20));
    CHECK(final_blocks < (2 << 20));
    std::string back(bytes.size(), '\0');
    CHECK(::pread(fd, back.data(), back.size(), 0) == static_cast<ssize_t>(back.size()));
    CHECK(back == bytes);
    ::close(fd);
}

TEST_CASE("write_view: a contiguous result of a file is spliced into a pipe, read into anything else") {
    TempDir dir;
    const std::int64_t header = 128, n = 600000;  // 2.4 MB of data: several chunks
    const std::string file = pattern(static_cast<std::size_t>(header + 4 * n));
    write_file(dir.path / "in.bin", file);
    const int in = ::open((dir.path / "in.bin").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(in >= 0);
    // The "mapping": zeros, never read; the descriptor is the input's, read with pread.
    const std::size_t mapped_bytes = static_cast<std::size_t>(header + 4 * n);
    void* map = ::mmap(nullptr, mapped_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    FakePages fake(map, mapped_bytes, ::fcntl(in, F_DUPFD_CLOEXEC, 3), static_cast<std::size_t>(header));
    const std::byte* const zeros = fake.data() + header;
    View middle = View::contiguous({n - 3}, 4);
    middle.byte_offset = 4;
    std::int64_t read_bytes = 0;
    fake.on_read = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
        REQUIRE(::pread(in, dst, static_cast<std::size_t>(bytes), header + begin) == bytes);
        read_bytes += bytes;
    };
    const InputPages pages = fake.pages();
    const std::string expected =
        "HEAD" + file.substr(static_cast<std::size_t>(header + 4), static_cast<std::size_t>(4 * (n - 3)));
    std::vector<std::pair<std::int64_t, std::int64_t>> progress;
    WriteOptions options;
    options.progress = [&](std::int64_t done, std::int64_t total) { progress.emplace_back(done, total); };

    {
        DrainedPipe pipe;
        write_view("/dev/fd/" + std::to_string(pipe.write_end), OutputFraming{"HEAD", 0, {}}, zeros, middle,
                   pages, options);
        CHECK(pipe.all() == expected);
        CHECK(read_bytes == 0);  // all of it spliced
        REQUIRE(progress.size() > 1);
        CHECK(progress.back() == std::make_pair(4 * (n - 3), 4 * (n - 3)));
    }

    // Into a file, read with pread and written (faster cold with two threads: write.cpp).
    const fs::path out = dir.path / "out.bin";
    write_view(out.string(), OutputFraming{"HEAD", 0, {}}, zeros, middle, pages, WriteOptions{});
    CHECK(read_file(out) == expected);
    CHECK(read_bytes == 4 * (n - 3));

    // A file that ends before the result does: reported as the read reports it.
    read_bytes = 0;
    fake.on_read = [&](std::int64_t, std::int64_t, std::byte*) { throw std::runtime_error("the file was truncated"); };
    View past = middle;
    past.shape = {n + 1000};
    DrainedPipe pipe;
    CHECK_THROWS_WITH(write_view("/dev/fd/" + std::to_string(pipe.write_end), OutputFraming{"HEAD", 0, {}},
                                 zeros, past, pages, WriteOptions{}),
                      "the file was truncated");
    ::close(in);
}
