// A replaced file's last release left to a process that outlives the writer
// (release_replaced_files_after_exit, write/replaced_release.cpp). Each writer runs in a
// forked process of its own, since the releaser waits for its writer to exit.

#include <doctest/doctest.h>

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "machine_skips.hpp"
#include "npy_fixture.hpp"
#include "tslice/npy.hpp"
#include "tslice/write.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

// The processes other than `except` with a descriptor open on the unlinked file once at `path`.
std::vector<pid_t> holders_of_replaced(const fs::path& path, pid_t except) {
    const std::string unlinked = path.string() + " (deleted)";
    std::vector<pid_t> pids;
    std::error_code error;
    for (const auto& process : fs::directory_iterator("/proc", error)) {
        const std::string name = process.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        const auto pid = static_cast<pid_t>(std::stol(name));
        if (pid == except) continue;
        std::error_code unreadable;  // another user's process, or one that has just exited
        for (const auto& fd : fs::directory_iterator(process.path() / "fd", unreadable)) {
            std::error_code gone;
            if (fs::read_symlink(fd.path(), gone).string() == unlinked) {
                pids.push_back(pid);
                break;
            }
        }
    }
    return pids;
}

// In a forked process: replaces a file of `bytes` bytes at `target` by a small .npy, with the
// release after exit `enabled`; exits with the number of other processes then holding the
// replaced file (at most 100).
int holders_while_writer_runs(const fs::path& target, std::int64_t bytes, bool enabled) {
    {
        std::ofstream out(target, std::ios::binary);
    }
    fs::resize_file(target, static_cast<std::uintmax_t>(bytes));
    const pid_t writer = ::fork();
    REQUIRE(writer >= 0);
    if (writer == 0) {
        int holders = 100;
        try {
            release_replaced_files_after_exit(enabled);
            write_npy(target.string(), parse_dtype_descr("'<i4'"), {3}, fill_counting);
            holders = static_cast<int>(std::min<std::size_t>(holders_of_replaced(target, ::getpid()).size(), 99));
        } catch (...) {
        }
        ::_exit(holders);
    }
    int status = 0;
    REQUIRE(::waitpid(writer, &status, 0) == writer);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

}  // namespace

TEST_CASE("a replaced file of 64 MiB or more is released by a process that outlives the writer") {
    TempDir dir;
    const fs::path target = dir.path / "checkpoint.npy";
    SUBCASE("enabled: another process holds the replaced file until the writer has exited") {
        // The releaser waits on a pidfd (Linux 5.3) and closes ranges of descriptors (5.9);
        // without them the file is released by the rename, as if not enabled.
        const long pidfd = ::syscall(SYS_pidfd_open, ::getpid(), 0);
        if (pidfd < 0)
            return machine_skips::skip("the release after exit", "this kernel has no pidfd_open");
        ::close(static_cast<int>(pidfd));
        if (::syscall(SYS_close_range, ~0U, ~0U, 0) != 0)
            return machine_skips::skip("the release after exit", "this kernel has no close_range");
        CHECK(holders_while_writer_runs(target, std::int64_t{64} << 20, true) == 1);
        // The writer is gone: the releaser lets the file go (a disk that discards freed blocks
        // takes a moment) and exits.
        std::vector<pid_t> left = holders_of_replaced(target, 0);
        for (int waited = 0; !left.empty() && waited < 200; ++waited) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            left = holders_of_replaced(target, 0);
        }
        CHECK(left.empty());
        CHECK(fs::file_size(target) == make_npy_header(parse_dtype_descr("'<i4'"), {3}).size() + 12);
    }
    SUBCASE("off by default: the rename frees the replaced file") {
        CHECK(holders_while_writer_runs(target, std::int64_t{64} << 20, false) == 0);
    }
    SUBCASE("a smaller file is freed by the rename") {
        CHECK(holders_while_writer_runs(target, (std::int64_t{64} << 20) - 1, true) == 0);
    }
}
