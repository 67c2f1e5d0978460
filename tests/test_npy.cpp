// Opening .npy files: in memory, from files (mapped), from standard input; the sample files.

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "npy_fixture.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/write.hpp"

using namespace tslice;
using namespace tslice_test;

TEST_CASE("NpyArray::from_bytes: data, views, sizes") {
    const std::string data = "ABCDEFGHIJKLMNOPQRSTUVWX";  // 24 bytes: 2x3 of <i4
    SUBCASE("C order") {
        const NpyArray array = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)")), 1, data));
        CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        const View view = array.view();
        CHECK(view.shape == std::vector<std::int64_t>{2, 3});
        CHECK(view.byte_strides == std::vector<std::int64_t>{12, 4});
        CHECK(view.itemsize == 4);
        CHECK(view.byte_offset == 0);
    }
    SUBCASE("Fortran order") {
        const NpyArray array =
            NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)", "True")), 1, data));
        CHECK(array.view().byte_strides == std::vector<std::int64_t>{4, 8});
    }
    SUBCASE("trailing bytes after the data are allowed") {
        const NpyArray array = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)")), 1, data + "junk"));
        CHECK(array.header().data_bytes() == 24);
    }
    SUBCASE("an empty array needs no data") {
        const NpyArray array = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<f4'", "(0, 3)"))));
        CHECK(array.header().element_count() == 0);
    }
    SUBCASE("data cut short") {
        const std::string message = error_message(
            [&] { NpyArray::from_bytes(npy_bytes(padded(dict_for("'<f4'", "(2, 3)")), 1, data.substr(0, 20))); });
        CHECK(message == "the file is too short for its header: shape (2, 3) of '<f4' needs 24 data bytes, the file has 20");
    }
    SUBCASE("a 0-d array needs its one element") {
        const std::string message =
            error_message([&] { NpyArray::from_bytes(npy_bytes(padded(dict_for("'<f8'", "()")), 1, "1234")); });
        CHECK(message.find("shape () of '<f8' needs 8 data bytes, the file has 4") != std::string::npos);
    }
    SUBCASE("moving keeps data() pointing at the data") {
        // Short enough for the small-string buffer: the bytes move with the object.
        NpyArray first = NpyArray::from_bytes(npy_bytes("{'descr':'|u1','fortran_order':False,'shape':(2,)}", 1, "xy"));
        NpyArray second = std::move(first);
        CHECK(std::memcmp(second.data(), "xy", 2) == 0);
        NpyArray third = NpyArray::from_bytes(npy_bytes(padded(dict_for("'<i4'", "(2, 3)")), 1, data));
        third = std::move(second);
        CHECK(std::memcmp(third.data(), "xy", 2) == 0);
        CHECK(third.header().shape == std::vector<std::int64_t>{2});
    }
}

TEST_CASE("NpyArray::open and read_header on files") {
    TempDir dir;
    const std::string data(48, 'z');
    const std::string bytes = make_npy_header(parse_dtype_descr("'<f4'"), {3, 4}) + data;
    const fs::path good = dir.path / "good.npy";
    write_file(good, bytes);

    SUBCASE("a good file is mapped") {
        NpyArray array = NpyArray::open(good.string());
        CHECK(array.header().shape == std::vector<std::int64_t>{3, 4});
        CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        NpyArray moved = std::move(array);
        CHECK(std::memcmp(moved.data(), data.data(), data.size()) == 0);
    }
    SUBCASE("read_header refuses a file too short for its header, from its size alone") {
        const fs::path headless = dir.path / "headless.npy";
        write_file(headless, bytes.substr(0, 128));  // all its data missing
        const std::string expected = "'" + headless.string() + "'" +
                                     ": the file is too short for its header: shape (3, 4) of '<f4' needs 48 "
                                     "data bytes, the file has 0";
        CHECK(error_message([&] { NpyArray::read_header(headless.string()); }) == expected);
        CHECK(error_message([&] { NpyArray::open(headless.string()); }) == expected);
    }
    SUBCASE("read_header of a file cut inside its header") {
        const fs::path cut = dir.path / "cut.npy";
        write_file(cut, bytes.substr(0, 40));
        CHECK(error_message([&] { NpyArray::read_header(cut.string()); }) ==
              "'" + cut.string() + "': the .npy header is cut short: expected 118 bytes of header, file has 30");
    }
    SUBCASE("read_header of a big file that is not a .npy reads only its start") {
        const fs::path other = dir.path / "other.bin";
        write_file(other, std::string("\x93NUMPX\x02\x00\xff\xff\xff\xff", 12) + std::string(1000, 'x'));
        CHECK(error_message([&] { NpyArray::read_header(other.string()); }).find("wrong magic") != std::string::npos);
    }
    SUBCASE("errors name the file") {
        const fs::path missing = dir.path / "missing.npy";
        CHECK(error_message([&] { NpyArray::open(missing.string()); }) ==
              "cannot open '" + missing.string() + "': No such file or directory");
        CHECK(error_message([&] { NpyArray::read_header(missing.string()); }) ==
              "cannot open '" + missing.string() + "': No such file or directory");
        CHECK(error_message([&] { NpyArray::open(dir.path.string()); }) ==
              "'" + dir.path.string() + "' is a directory, not a .npy file");
        CHECK(error_message([&] { NpyArray::read_header(dir.path.string()); }) ==
              "'" + dir.path.string() + "' is a directory, not a .npy file");
        const fs::path empty = dir.path / "empty.npy";
        write_file(empty, "");
        CHECK(error_message([&] { NpyArray::open(empty.string()); }) ==
              "'" + empty.string() + "': not a .npy file: the file is empty");
        CHECK(error_message([&] { NpyArray::read_header(empty.string()); }) ==
              "'" + empty.string() + "': not a .npy file: the file is empty");
        const fs::path text = dir.path / "text.npy";
        write_file(text, "just text\n");
        CHECK(error_message([&] { NpyArray::open(text.string()); }).rfind("'" + text.string() + "': not a .npy file: wrong magic", 0) == 0);
    }
    SUBCASE("a non-regular file (a pipe) is read rather than mapped") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        ::close(fds[1]);
        const std::string path = "/dev/fd/" + std::to_string(fds[0]);
        const NpyArray array = NpyArray::open(path);
        ::close(fds[0]);
        CHECK(array.header().shape == std::vector<std::int64_t>{3, 4});
        CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
    }
}

namespace {

// Runs `action` with file descriptor `target` (0 or 1) replaced by `replacement`.
template <typename Action>
void with_fd(int target, int replacement, Action action) {
    const int saved = ::dup(target);
    REQUIRE(saved >= 0);
    REQUIRE(::dup2(replacement, target) == target);
    try {
        action();
    } catch (...) {
        ::dup2(saved, target);
        ::close(saved);
        throw;
    }
    ::dup2(saved, target);
    ::close(saved);
}

}  // namespace

TEST_CASE("standard input and standard output") {
    TempDir dir;
    const DType i4 = parse_dtype_descr("'<i4'");
    std::string data(12, '\0');
    fill_counting(reinterpret_cast<std::byte*>(data.data()), 0, 3);
    const std::string bytes = make_npy_header(i4, {3}) + data;

    SUBCASE("a pipe on standard input is read whole") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        ::close(fds[1]);
        with_fd(0, fds[0], [&] {
            const NpyArray array = NpyArray::open("-");
            CHECK(array.header().shape == std::vector<std::int64_t>{3});
            CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        });
        ::close(fds[0]);
    }
    SUBCASE("read_header takes only the header from standard input") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
        ::close(fds[1]);
        with_fd(0, fds[0], [&] {
            CHECK(NpyArray::read_header("-").shape == std::vector<std::int64_t>{3});
            char rest[64];
            CHECK(::read(0, rest, sizeof rest) == 12);  // the data is still there
        });
        ::close(fds[0]);
    }
    SUBCASE("a regular file on standard input is mapped from its current offset") {
        const fs::path file = dir.path / "in.npy";
        write_file(file, "skip" + bytes);
        const int fd = ::open(file.c_str(), O_RDONLY);
        REQUIRE(::lseek(fd, 4, SEEK_SET) == 4);
        with_fd(0, fd, [&] {
            const NpyArray array = NpyArray::open("-");
            CHECK(std::memcmp(array.data(), data.data(), data.size()) == 0);
        });
        ::close(fd);
    }
    SUBCASE("empty standard input") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        ::close(fds[1]);
        with_fd(0, fds[0], [&] {
            CHECK(error_message([] { NpyArray::open("-"); }) ==
                  "standard input: not a .npy file: standard input is empty");
        });
        ::close(fds[0]);
    }
    SUBCASE("-o - writes the .npy bytes to standard output") {
        const fs::path file = dir.path / "stdout.npy";
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        with_fd(1, fd, [&] { write_npy("-", i4, {3}, fill_counting); });
        ::close(fd);
        CHECK(read_file(file) == bytes);
    }
    SUBCASE("a closed pipe on standard output") {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        ::close(fds[0]);
        const auto old_handler = std::signal(SIGPIPE, SIG_IGN);
        with_fd(1, fds[1], [&] {
            CHECK(error_message([&] { write_npy("-", i4, {3}, fill_counting); }) ==
                  "cannot write to standard output: Broken pipe");
        });
        std::signal(SIGPIPE, old_handler);
        ::close(fds[1]);
    }
}

#ifdef TSLICE_SOURCE_DIR
TEST_CASE("the sample files in data/ open") {
    struct Case {
        const char* name;
        std::vector<std::int64_t> shape;
        const char* descr;
        bool fortran;
    };
    const Case cases[] = {
        {"arange_2x3x4_f4.npy", {2, 3, 4}, "'<f4'", false},
        {"fortran_3x4_i8.npy", {3, 4}, "'<i8'", true},
        {"bigendian_5_i4.npy", {5}, "'>i4'", false},
        {"strings_4_U3.npy", {4}, "'<U3'", false},
        {"structured_3.npy", {3}, "[('x', '<i4'), ('y', '<f8')]", false},
        {"scalar_f8.npy", {}, "'<f8'", false},
        {"empty_0x3_f4.npy", {0, 3}, "'<f4'", false},
        {"image_8x8x3_u1.npy", {8, 8, 3}, "'|u1'", false},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.name));
        const NpyArray array = NpyArray::open(std::string(TSLICE_SOURCE_DIR) + "/data/" + c.name);
        CHECK(array.header().shape == c.shape);
        CHECK(array.header().dtype.descr == c.descr);
        CHECK(array.header().fortran_order == c.fortran);
    }
}
#endif
