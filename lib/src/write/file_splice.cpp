#include "write/file_splice.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "write/chunk_stream.hpp"

namespace tslice {

namespace {

// As much as an unprivileged process may ask for (/proc/sys/fs/pipe-max-size, 1 MiB by
// default): fewer calls than the default 64 KiB. Less where the system allows less.
constexpr int kPipeBytes = 1 << 20;

}  // namespace

FileSplice::FileSplice(int file, int out) : file_(file), out_(out) {
    if (file < 0 || out < 0) return;
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) return;
    pipe_read_ = ends[0];
    pipe_write_ = ends[1];
    const int size = ::fcntl(pipe_write_, F_SETPIPE_SZ, kPipeBytes);
    capacity_ = size > 0 ? size : ::fcntl(pipe_write_, F_GETPIPE_SZ);
    if (capacity_ <= 0) stop();
}

FileSplice::~FileSplice() { stop(); }

void FileSplice::stop() {
    // A pipe that may still hold bytes no output took is never used again.
    if (pipe_read_ >= 0) ::close(pipe_read_);
    if (pipe_write_ >= 0) ::close(pipe_write_);
    pipe_read_ = pipe_write_ = -1;
}

FileSplice::Sent FileSplice::send(std::int64_t offset, std::int64_t bytes, std::string_view before,
                                  const std::string& target) {
    Sent sent;
    auto at = static_cast<loff_t>(offset);
    while (pipe_read_ >= 0 && sent.bytes < bytes) {
        const ssize_t in = ::splice(file_, &at, pipe_write_, nullptr,
                                    static_cast<std::size_t>(std::min(capacity_, bytes - sent.bytes)), 0);
        if (in < 0 && errno == EINTR) continue;
        // 0: the file ended early (truncated); < 0: no splice here, or a read error. The
        // caller's pread meets either and reports it.
        if (in <= 0) break;
        if (!sent.before) {
            write_all(out_, before.data(), before.size(), target);
            sent.before = true;
        }
        for (std::int64_t left = in; left > 0;) {
            const ssize_t out = ::splice(pipe_read_, nullptr, out_, nullptr, static_cast<std::size_t>(left), 0);
            if (out < 0 && errno == EINTR) continue;
            if (out <= 0) {
                stop();
                return sent;
            }
            left -= out;
            sent.bytes += out;
        }
    }
    if (sent.bytes < bytes) stop();
    return sent;
}

}  // namespace tslice
