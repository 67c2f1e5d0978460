// The write stage: numpy's bytes, whole files only, a source's own bytes, released pages.

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "npy_fixture.hpp"
#include "fake_pages.hpp"
#include "library_internals.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/gather.hpp"
#include "tslice/npy.hpp"
#include "tslice/text_values.hpp"
#include "tslice/write.hpp"

using namespace tslice;
using namespace tslice_test;

TEST_CASE("write_npy writes numpy's bytes and only whole files") {
    TempDir dir;
    const DType i4 = parse_dtype_descr("'<i4'");
    const std::string target = (dir.path / "out.npy").string();

    SUBCASE("the content is the header and the filled chunks") {
        write_npy(target, i4, {3, 4}, fill_counting);
        const std::string written = read_file(target);
        std::string expected = make_npy_header(i4, {3, 4});
        std::string data(48, '\0');
        fill_counting(reinterpret_cast<std::byte*>(data.data()), 0, 12);
        CHECK(written == expected + data);
        CHECK(dir.entries() == std::vector<std::string>{"out.npy"});
        struct stat info {};
        REQUIRE(::stat(target.c_str(), &info) == 0);
        const mode_t mask = ::umask(0);
        ::umask(mask);
        CHECK((info.st_mode & 07777) == (0666 & ~mask));
    }
    SUBCASE("large outputs are produced in bounded chunks") {
        std::int64_t next = 0, largest = 0;
        const std::int64_t total = 3'000'000;  // 12 MB of <i4
        write_npy(target, i4, {total}, [&](std::byte* dst, std::int64_t first, std::int64_t count) {
            CHECK(first == next);
            CHECK(count >= 1);
            next = first + count;
            largest = std::max(largest, count);
            fill_counting(dst, first, count);
        });
        CHECK(next == total);
        CHECK(largest * 4 <= (4 << 20));
        const NpyArray array = NpyArray::open(target);
        const auto* data = reinterpret_cast<const unsigned char*>(array.data());
        CHECK(data[4 * 2999999] == (2999999 & 0xFF));
    }
    SUBCASE("an element larger than a chunk is written one at a time") {
        const DType huge = parse_dtype_descr("'|V5000000'");
        int calls = 0;
        write_npy(target, huge, {3}, [&](std::byte* dst, std::int64_t, std::int64_t count) {
            CHECK(count == 1);
            std::memset(dst, 'a' + calls++, 5000000);
        });
        CHECK(calls == 3);
        CHECK(fs::file_size(target) == 128 + 15000000);
    }
    SUBCASE("an empty array and a 0-d array") {
        write_npy(target, i4, {0, 5}, [](std::byte*, std::int64_t, std::int64_t) { FAIL("no data to fill"); });
        CHECK(read_file(target) == make_npy_header(i4, {0, 5}));
        write_npy(target, i4, {}, fill_counting);
        CHECK(read_file(target).size() == 128 + 4);
    }
    SUBCASE("a failing fill leaves no file behind") {
        const auto failing = [](std::byte* dst, std::int64_t first, std::int64_t count) {
            if (first > 0) throw Error(ErrorKind::Usage, "the copy failed");
            fill_counting(dst, first, count);
        };
        CHECK_THROWS_WITH(write_npy(target, i4, {5'000'000}, failing), "the copy failed");
        CHECK(dir.entries().empty());
    }
    SUBCASE("a failing fill leaves an existing target byte for byte") {
        write_file(target, "precious bytes");
        ::chmod(target.c_str(), 0640);
        CHECK_THROWS_AS(write_npy(target, i4, {5'000'000},
                                  [](std::byte*, std::int64_t first, std::int64_t) {
                                      if (first > 0) throw std::runtime_error("boom");
                                  }),
                        std::runtime_error);
        CHECK(read_file(target) == "precious bytes");
        CHECK(dir.entries() == std::vector<std::string>{"out.npy"});
    }
    SUBCASE("replacing a file keeps its mode") {
        write_file(target, "old");
        ::chmod(target.c_str(), 0640);
        write_npy(target, i4, {2}, fill_counting);
        struct stat info {};
        REQUIRE(::stat(target.c_str(), &info) == 0);
        CHECK((info.st_mode & 07777) == 0640);
        CHECK(NpyArray::open(target).header().shape == std::vector<std::int64_t>{2});
    }
    SUBCASE("writing through a symbolic link replaces the file it points to") {
        const fs::path real = dir.path / "real.npy";
        write_file(real, "old");
        fs::create_symlink("real.npy", dir.path / "link.npy");
        write_npy((dir.path / "link.npy").string(), i4, {2}, fill_counting);
        CHECK(fs::is_symlink(dir.path / "link.npy"));
        CHECK(read_file(real).size() == 128 + 8);
    }
    SUBCASE("a chain of links, relative to their own directories, is followed to the real file") {
        fs::create_directories(dir.path / "a" / "b");
        const fs::path real = dir.path / "a" / "b" / "real.npy";
        write_file(real, "old");
        fs::create_symlink("b/real.npy", dir.path / "a" / "middle");
        fs::create_symlink("a/middle", dir.path / "link.npy");
        write_npy((dir.path / "link.npy").string(), i4, {2}, fill_counting);
        CHECK(fs::is_symlink(dir.path / "link.npy"));
        CHECK(fs::is_symlink(dir.path / "a" / "middle"));
        CHECK(read_file(real).size() == 128 + 8);
        CHECK(fs::directory_iterator(dir.path / "a" / "b")->path().filename() == "real.npy");
    }
    SUBCASE("a dangling link and a loop of links are refused, and stay as they were") {
        fs::create_symlink("missing.npy", dir.path / "dangling.npy");
        CHECK(error_message([&] { write_npy((dir.path / "dangling.npy").string(), i4, {2}, fill_counting); })
                  .find("it is a symbolic link to a file that does not exist") != std::string::npos);
        fs::create_symlink("loop2", dir.path / "loop1");
        fs::create_symlink("loop1", dir.path / "loop2");
        CHECK(error_message([&] { write_npy((dir.path / "loop1").string(), i4, {2}, fill_counting); }) ==
              "cannot write '" + (dir.path / "loop1").string() + "': Too many levels of symbolic links");
        CHECK(dir.entries() == std::vector<std::string>{"dangling.npy", "loop1", "loop2"});
        CHECK(fs::read_symlink(dir.path / "dangling.npy") == "missing.npy");
    }
    SUBCASE("a directory, a missing directory, an empty path") {
        CHECK(error_message([&] { write_npy(dir.path.string(), i4, {2}, fill_counting); }) ==
              "cannot write '" + dir.path.string() + "': it is a directory");
        const std::string nowhere = (dir.path / "no" / "such" / "out.npy").string();
        CHECK(error_message([&] { write_npy(nowhere, i4, {2}, fill_counting); }) ==
              "cannot write '" + nowhere + "': No such file or directory");
        CHECK(error_message([&] { write_npy("", i4, {2}, fill_counting); }).find("the output path is empty") != std::string::npos);
        CHECK(dir.entries().empty());
    }
    SUBCASE("a full device reports the error") {
        if (fs::exists("/dev/full")) {
            CHECK(error_message([&] { write_npy("/dev/full", i4, {2}, fill_counting); }) ==
                  "cannot write '/dev/full': No space left on device");
        }
    }
    SUBCASE("remove_pending_temporary removes the file being written") {
        bool checked = false;
        CHECK_THROWS_AS(write_npy(target, i4, {3'000'000},
                                  [&](std::byte* dst, std::int64_t first, std::int64_t count) {
                                      fill_counting(dst, first, count);
                                      if (first == 0) {
                                          CHECK(dir.entries().size() == 1);  // the temporary
                                          remove_pending_temporary();
                                          CHECK(dir.entries().empty());
                                          checked = true;
                                      }
                                  }),
                        Error);
        CHECK(checked);
        CHECK(dir.entries().empty());
        remove_pending_temporary();  // nothing pending: must do nothing
    }
    SUBCASE("bad shapes are refused before anything is written") {
        CHECK(error_message([&] { write_npy(target, i4, {-1}, fill_counting); }).find("negative dimension") != std::string::npos);
        CHECK(error_message([&] { write_npy(target, i4, {1LL << 62}, fill_counting); }).find("byte size overflows") != std::string::npos);
        CHECK(dir.entries().empty());
    }
}


TEST_CASE("write_npy writes a source's own bytes, and release keeps the data readable") {
    const auto dir = std::filesystem::temp_directory_path() / ("tslice-release-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    DType i4;
    i4.descr = "'<i4'";
    i4.type_string = "<i4";
    i4.kind = 'i';
    i4.byte_order = '<';
    i4.itemsize = 4;
    // A source that hands out its own bytes: nothing is copied into the scratch buffer.
    std::vector<std::int32_t> values(3'000'000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::int32_t>(i * 3);
    const std::string path = (dir / "direct.npy").string();
    write_npy(path, i4, {static_cast<std::int64_t>(values.size())},
              ChunkSource([&](std::int64_t first, std::int64_t, std::byte*) {
                  return reinterpret_cast<const std::byte*>(values.data() + first);
              }));
    const NpyArray array = NpyArray::open(path);
    REQUIRE(array.header().shape == std::vector<std::int64_t>{3'000'000});
    CHECK(std::memcmp(array.data(), values.data(), values.size() * 4) == 0);
    // Released pages come back from the file when read again.
    array.release(0, 12'000'000);
    array.release(5, 9);
    CHECK(std::memcmp(array.data(), values.data(), values.size() * 4) == 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("write_view: a view's elements in C order, byte-swapped when asked, with progress, released pages and read aheads") {
    TempDir dir;
    const std::int64_t n = 600000;  // 2.4 MB: several chunks, copied over two threads
    std::vector<std::uint32_t> data(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) data[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i * 2654435761u);
    View reversed = View::contiguous({n}, 4);
    reversed.byte_offset = (n - 1) * 4;
    reversed.byte_strides = {-4};

    std::vector<std::pair<std::int64_t, std::int64_t>> released, asked;
    FakePages fake(reinterpret_cast<const std::byte*>(data.data()));
    fake.on_release = [&](std::int64_t begin, std::int64_t end) { released.emplace_back(begin, end); };
    fake.on_read_ahead = [&](std::int64_t begin, std::int64_t end) { asked.emplace_back(begin, end); };
    const InputPages pages = fake.pages();
    std::int64_t progress = 0;
    WriteOptions options;
    options.threads = 2;
    options.swap_bytes = true;
    options.progress = [&](std::int64_t bytes, std::int64_t total) {
        CHECK(bytes > progress);
        CHECK(total == n * 4);
        progress = bytes;
    };
    const fs::path path = dir.path / "out.bin";
    // A test's chunk (64 KiB: 37 chunks, copied over two threads): the asks are then made on the
    // copy's thread, where the asking thread would drop what it has not asked for yet when the
    // copy ends first, which a loaded machine made happen (then no ask at all was seen). That
    // thread is tested in test_input_paging.cpp.
    set_read_chunk_for_tests(64 << 10);
    write_view(path.string(), OutputFraming{"HEAD", 0, {}}, reinterpret_cast<const std::byte*>(data.data()), reversed,
               pages, options);
    set_read_chunk_for_tests(0);

    const std::string bytes = read_file(path);
    REQUIRE(bytes.size() == 4 + static_cast<std::size_t>(n) * 4);
    CHECK(bytes.substr(0, 4) == "HEAD");
    bool all_equal = true;
    for (std::int64_t i = 0; i < n && all_equal; ++i) {
        const std::uint32_t expected = __builtin_bswap32(data[static_cast<std::size_t>(n - 1 - i)]);
        std::uint32_t got;
        std::memcpy(&got, bytes.data() + 4 + 4 * i, 4);
        all_equal = got == expected;
    }
    CHECK(all_equal);
    CHECK(progress == n * 4);
    // Pages are given back as the copy moves on, and only pages of the input.
    CHECK_FALSE(released.empty());
    for (const auto& [begin, end] : released) {
        CHECK(begin >= 0);
        CHECK(end <= n * 4);
    }
    // The input is asked for from its end down, as the reversed copy reads it, all of it once.
    REQUIRE_FALSE(asked.empty());
    CHECK(asked.front().second == n * 4);
    CHECK(asked.back().first == 0);
    for (std::size_t k = 1; k < asked.size(); ++k) CHECK(asked[k].second == asked[k - 1].first);
}

TEST_CASE("write_view: elements larger than a chunk are written in parts, whatever their size") {
    TempDir dir;
    // 5,000,000 splits into parts of 1,000,000 bytes; 1,048,583 is prime, so into single bytes.
    for (const std::int64_t itemsize : {std::int64_t{5000000}, std::int64_t{1048583}}) {
        CAPTURE(itemsize);
        const std::int64_t n = 3;
        std::vector<unsigned char> data(static_cast<std::size_t>(n * itemsize));
        for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 131 + i / 4099);
        for (const bool reversed : {false, true}) {
            CAPTURE(reversed);
            View view = View::contiguous({n}, static_cast<std::size_t>(itemsize));
            if (reversed) {
                view.byte_offset = (n - 1) * itemsize;
                view.byte_strides = {-itemsize};
            }
            std::int64_t progress = 0, largest_step = 0;
            WriteOptions options;
            options.threads = 2;
            options.progress = [&](std::int64_t bytes, std::int64_t total) {
                CHECK(total == n * itemsize);
                largest_step = std::max(largest_step, bytes - progress);
                progress = bytes;
            };
            const fs::path path = dir.path / "out.bin";
            write_view(path.string(), OutputFraming{"HEAD", 0, {}}, reinterpret_cast<const std::byte*>(data.data()),
                       view, {}, options);
            // Each chunk is at most a MiB, so no buffer holds a whole element.
            CHECK(progress == n * itemsize);
            CHECK(largest_step <= std::int64_t{1} << 20);
            const std::string bytes = read_file(path);
            REQUIRE(bytes.size() == 4 + data.size());
            bool all_equal = true;
            for (std::int64_t e = 0; e < n && all_equal; ++e) {
                const std::int64_t from = (reversed ? n - 1 - e : e) * itemsize;
                all_equal = std::memcmp(bytes.data() + 4 + e * itemsize, data.data() + from,
                                        static_cast<std::size_t>(itemsize)) == 0;
            }
            CHECK(all_equal);
        }
    }
}

TEST_CASE("write_view and text: a gather read window by window, or row by row, writes what the mapped copy writes") {
    TempDir dir;
    const std::int64_t rows = 20000, row_length = 150;  // 12 MB of int32
    std::vector<std::int32_t> data(static_cast<std::size_t>(rows * row_length));
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::int32_t>(i * 2654435761u);
    const auto* bytes = reinterpret_cast<const std::byte*>(data.data());
    const ElementType type{parse_dtype_descr("'<i4'"), ""};
    std::vector<std::int64_t> indices;
    for (std::int64_t k = 0; k < 9000; ++k) indices.push_back((k * 7919) % rows);
    indices[5] = -1;
    const auto gathered = [&](std::int64_t row_elements) {
        GatherSpec spec;
        spec.indices = IntArray{{static_cast<std::int64_t>(indices.size())}, indices};
        spec.axis = 0;
        const std::vector<std::int64_t> shape = {rows * row_length / row_elements, row_elements};
        return apply_gather(plan_gather(spec, shape, "op"), View::contiguous(shape, 4));
    };

    std::vector<std::pair<std::int64_t, std::int64_t>> unmapped, read;
    std::mutex mutex;  // the callbacks are called from the worker threads
    FakePages fake(bytes);
    fake.on_unmap = [&](std::int64_t begin, std::int64_t end) {
        const std::lock_guard<std::mutex> lock(mutex);
        unmapped.emplace_back(begin, end);
    };
    fake.on_read = [&](std::int64_t begin, std::int64_t size, std::byte* dst) {
        std::memcpy(dst, bytes + begin, static_cast<std::size_t>(size));
        const std::lock_guard<std::mutex> lock(mutex);
        read.emplace_back(begin, begin + size);
    };
    // Nothing in the page cache: every row read with pread is a waiting read, recorded.
    fake.on_read_cached = [](std::int64_t, std::int64_t, std::byte*) -> std::int64_t { return 0; };
    const InputPages pages = fake.pages();
    // Chunks that end inside rows, and with them windows of 64,000 bytes (many) of regions of
    // 2 KiB (many), for a gather spread over more than 64,000 bytes (this one).
    constexpr std::size_t kChunk = 1000;
    const ReadSizes sizes(kChunk);
    // `mapping`: the input as its mapping holds it.
    const auto written = [&](const View& view, const InputPages& with, bool text, const std::byte* mapping) {
        set_read_chunk_for_tests(kChunk);
        const fs::path path = dir.path / (text ? "out.json" : "out.bin");
        WriteOptions options;
        options.threads = 2;
        if (text)
            write_values_as_text(path.string(), TextFormat::Json, mapping, view, type, with, options);
        else
            write_view(path.string(), OutputFraming{"", 0, {}}, mapping, view, with, options);
        set_read_chunk_for_tests(0);
        return read_file(path);
    };
    // A mapping whose pages are not in memory: never touched, they hold zeros, not the input,
    // if anything reads them; a gather of long rows then reads the file (the folio probe).
    const std::size_t data_bytes = data.size() * sizeof(data[0]);
    void* cold = ::mmap(nullptr, data_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(cold != MAP_FAILED);
    for (const bool text : {false, true})
        for (const std::int64_t row_elements : {6, 150}) {  // rows of 24 bytes, of 600 (read with pread, cold)
            CAPTURE(text);
            CAPTURE(row_elements);
            const View view = gathered(row_elements);
            unmapped.clear();
            read.clear();
            const std::string mapped = written(view, InputPages{}, text, bytes);
            CHECK(unmapped.empty());
            CHECK(read.empty());
            CHECK(written(view, pages, text, bytes) == mapped);
            if (row_elements * 4 >= sizes.read_row_bytes) {
                // Pages in memory that map whole: copied window by window as the short rows.
                CHECK(read.empty());
                CHECK_FALSE(unmapped.empty());
                unmapped.clear();
                CHECK(written(view, pages, text, static_cast<const std::byte*>(cold)) == mapped);
            }
            if (row_elements * 4 < sizes.read_row_bytes) {
                CHECK(read.empty());
                CHECK(unmapped.size() > 9000 * 24 / 10000);  // regions unmapped in every window
            } else {
                // Rows read where they lie: each gathered row inside a read.
                CHECK(unmapped.empty());
                std::sort(read.begin(), read.end());
                std::vector<std::pair<std::int64_t, std::int64_t>> merged;
                for (const auto& range : read)
                    if (!merged.empty() && range.first <= merged.back().second)
                        merged.back().second = std::max(merged.back().second, range.second);
                    else
                        merged.push_back(range);
                read = merged;
                bool covered = true;
                for (std::int64_t index : indices) {
                    const std::int64_t row = (index + rows) % rows * row_length * 4;
                    const auto after = std::upper_bound(read.begin(), read.end(), std::make_pair(row, INT64_MAX));
                    covered = covered && after != read.begin() && std::prev(after)->second >= row + row_length * 4;
                }
                CHECK(covered);
            }
            for (const auto& [begin, end] : unmapped) {
                CHECK(begin >= 0);
                CHECK(end <= rows * row_length * 4);
            }
        }
    ::munmap(cold, data_bytes);
}

TEST_CASE("write_view: a contiguous result of a file is read from it chunk by chunk, in order") {
    TempDir dir;
    const std::int64_t n = 700000;  // several chunks
    std::vector<std::uint32_t> file(static_cast<std::size_t>(n)), mapped(static_cast<std::size_t>(n), 0);
    for (std::int64_t i = 0; i < n; ++i) file[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(i * 2654435761u);
    View middle = View::contiguous({n - 2}, 4);
    middle.byte_offset = 4;
    std::vector<std::pair<std::int64_t, std::int64_t>> reads;
    FakePages fake(reinterpret_cast<const std::byte*>(mapped.data()));
    // What the file holds; the "mapping" holds zeros, so a chunk written from it would show.
    fake.on_read = [&](std::int64_t begin, std::int64_t bytes, std::byte* dst) {
        std::memcpy(dst, reinterpret_cast<const std::byte*>(file.data()) + begin, static_cast<std::size_t>(bytes));
        reads.emplace_back(begin, bytes);
    };
    const InputPages pages = fake.pages();
    const fs::path path = dir.path / "out.bin";
    write_view(path.string(), OutputFraming{"", 0, {}}, reinterpret_cast<const std::byte*>(mapped.data()), middle,
               pages, WriteOptions{});
    const std::string bytes = read_file(path);
    REQUIRE(bytes.size() == static_cast<std::size_t>(n - 2) * 4);
    CHECK(std::memcmp(bytes.data(), file.data() + 1, bytes.size()) == 0);
    REQUIRE(reads.size() > 1);
    CHECK(reads.front().first == 4);
    for (std::size_t k = 1; k < reads.size(); ++k) CHECK(reads[k].first == reads[k - 1].first + reads[k - 1].second);
    CHECK(reads.back().first + reads.back().second == (n - 1) * 4);
}
