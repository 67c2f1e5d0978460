// The files of a Zarr store, opened and read whole (store_files.hpp).
#include "source/store_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tslice/error.hpp"

namespace tslice {

OpenFile::~OpenFile() {
    if (fd >= 0) ::close(fd);
}

bool open_file(OpenFile& file, const std::string& path, const std::string& shown, std::uint64_t limit) {
    // O_NONBLOCK: a FIFO in a store's place opens at once (and is refused below) instead of
    // waiting for a writer; a regular file reads the same with it.
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (file.fd < 0) {
        if (errno == ENOENT) return false;
        fail_input("cannot open " + shown + ": " + std::strerror(errno));
    }
    struct stat info {};
    if (::fstat(file.fd, &info) != 0) fail_input("cannot read " + shown + ": " + std::strerror(errno));
    if (!S_ISREG(info.st_mode)) fail_input(shown + " is not a regular file");
    if (static_cast<std::uint64_t>(info.st_size) > limit)
        fail_input(shown + " holds " + std::to_string(info.st_size) + " bytes, more than it can (" + std::to_string(limit) + ")");
    file.size = static_cast<std::size_t>(info.st_size);
    return true;
}

void read_into(const OpenFile& file, std::vector<std::byte>& bytes, const std::string& shown) {
    bytes.resize(file.size);
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t got = ::pread(file.fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail_input("cannot read " + shown + ": " + std::strerror(errno));
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    bytes.resize(done);
}

std::optional<std::vector<std::byte>> read_file(const std::string& path, const std::string& shown, std::uint64_t limit) {
    OpenFile file;
    if (!open_file(file, path, shown, limit)) return std::nullopt;
    std::vector<std::byte> bytes;
    read_into(file, bytes, shown);
    return bytes;
}

}  // namespace tslice
