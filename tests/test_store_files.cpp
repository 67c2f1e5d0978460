// A Zarr store's files read whole (source/store_files.cpp): what is not a regular file is an
// input error, a FIFO too, at once rather than waiting for a writer.

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>

#include "npy_fixture.hpp"
#include "source/store_files.hpp"
#include "tslice/error.hpp"

using namespace tslice;
using namespace tslice_test;

TEST_CASE("store files: a file is read whole within its limit, and nothing else is read") {
    TempDir dir;
    write_file(dir.path / ".zarray", "{\"zarr_format\": 2}");
    const auto bytes = read_file((dir.path / ".zarray").string(), "'.zarray'", 100);
    REQUIRE(bytes);
    CHECK(std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()) == "{\"zarr_format\": 2}");
    CHECK_FALSE(read_file((dir.path / "missing").string(), "'missing'", 100));
    CHECK_THROWS_AS(read_file((dir.path / ".zarray").string(), "'.zarray'", 5), Error);
    CHECK_THROWS_AS(read_file(dir.path.string(), "'dir'", 100), Error);
    // A FIFO with no writer: refused at once (opened blocking, it would wait forever).
    const fs::path fifo = dir.path / ".zmetadata";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    try {
        read_file(fifo.string(), "'g.zarr/.zmetadata'", 100);
        FAIL("a FIFO was read");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::Input);
        CHECK(std::string(error.what()) == "'g.zarr/.zmetadata' is not a regular file");
    }
}
