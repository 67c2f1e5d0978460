// The last release of a replaced file, left to a process that outlives tslice
// (replaced_release.hpp).
#include "write/replaced_release.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "tslice/write.hpp"

namespace tslice {

namespace {

std::atomic<bool> g_release_after_exit{false};

// Below this a replaced file is freed in well under a millisecond, less than the two forks.
constexpr off_t kReleasedAfterExitBytes = off_t{64} << 20;

// Closes every descriptor but `keep_a` and `keep_b`: a pipe this process writes into (a
// shell's `$(...)`, a caller's captured output) must reach its end when this process exits,
// not when its releaser does. False where the kernel cannot close ranges (before Linux 5.9).
bool close_all_but(int keep_a, int keep_b) {
    const unsigned low = static_cast<unsigned>(std::min(keep_a, keep_b));
    const unsigned high = static_cast<unsigned>(std::max(keep_a, keep_b));
    const auto close_range = [](unsigned first, unsigned last) {
        return first > last || ::syscall(SYS_close_range, first, last, 0) == 0;
    };
    return (low == 0 || close_range(0, low - 1)) && (high == low || close_range(low + 1, high - 1)) &&
           close_range(high + 1, ~0U);
}

// The releaser: waits until the process `parent` (a pidfd) has exited, every thread of it and
// so every descriptor and mapping it held, then exits, dropping the last reference to `held`.
// Between fork and exit only async-signal-safe calls: the parent may have had other threads.
[[noreturn]] void release_when_gone(int parent, int held) {
    // The parent's handlers clean up the parent's files; a signal here only ends the wait.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
        struct sigaction current {};
        if (::sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler != SIG_IGN &&
            current.sa_handler != SIG_DFL)
            ::sigaction(signal_number, &default_action, nullptr);
    }
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (!close_all_but(parent, held)) ::_exit(0);
    // Not to keep the parent's working directory's file system busy.
    (void)!::chdir("/");
    pollfd gone{parent, POLLIN, 0};
    while (::poll(&gone, 1, -1) < 0 && errno == EINTR) {
    }
    ::_exit(0);
}

}  // namespace

void release_replaced_files_after_exit(bool enabled) { g_release_after_exit = enabled; }

int hold_replaced_file(const std::string& path) {
    if (!g_release_after_exit) return -1;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return -1;
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size < kReleasedAfterExitBytes ||
        info.st_nlink != 1) {
        // Another name keeps a linked file's blocks anyway: nothing is freed by the rename.
        ::close(fd);
        return -1;
    }
    return fd;
}

void release_after_exit(int held) {
    if (held < 0) return;
    // A pidfd of this process polls readable once all of it has exited (Linux 5.3).
    const int self = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
    if (self >= 0) {
        // _Fork: no atfork handlers run, none of a host program's either. Two forks, so that the
        // releaser is nobody's child to reap but init's.
        const pid_t middle = ::_Fork();
        if (middle == 0) {
            if (::_Fork() == 0) release_when_gone(self, held);
            ::_exit(0);
        }
        if (middle > 0)
            while (::waitpid(middle, nullptr, 0) < 0 && errno == EINTR) {
            }
        ::close(self);
    }
    ::close(held);
}

}  // namespace tslice
