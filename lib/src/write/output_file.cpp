// Where a written result lands. A path that names an open descriptor is written into it as it
// is; a device or a pipe is written in place; anything else gets a temporary file beside the
// target that is renamed over it only once everything is written, so a failure leaves no
// partial file and never harms an existing one.
#include "write/output_file.hpp"

#include "tslice/zarr_write.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "tslice/error.hpp"
#include "tslice/write.hpp"
#include "write/replaced_release.hpp"

namespace tslice {

namespace {

std::string errno_text(int error) { return std::strerror(error); }

// The temporary file being written, for remove_pending_temporary() in a signal handler: a
// fixed buffer and a flag, because a handler may neither allocate nor lock.
char g_pending_path[8192];
volatile std::sig_atomic_t g_pending = 0;

// The descriptor a path names without being a file of its own: "-" (standard output), and
// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. Writing into the descriptor keeps
// what the shell set up (`>> log` appends, a file opened before stays the same file), where
// following the link and renaming a new file over its target would replace the shell's file.
std::optional<int> open_descriptor_named(const std::string& path) {
    if (path == "-" || path == "/dev/stdout") return STDOUT_FILENO;
    if (path == "/dev/stderr") return STDERR_FILENO;
    for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) continue;
        int fd = 0;
        for (std::size_t i = prefix.size(); i < path.size(); ++i) {
            if (path[i] < '0' || path[i] > '9' || fd > 1'000'000) return std::nullopt;
            fd = fd * 10 + (path[i] - '0');
        }
        return fd;
    }
    return std::nullopt;
}

// fsync for --sync; a pipe or a terminal has nothing to sync (EINVAL).
void sync_descriptor(int fd, const std::string& target) {
    if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        fail_input("cannot sync " + target + ": " + errno_text(errno));
}

// The replaced file's extended attributes (its ACLs among them, as system.posix_acl_access)
// go to the file that replaces it. Best effort, as for the owner: a file system without
// them, or an attribute only a privileged user may set, must not fail the write.
void copy_extended_attributes(const std::string& from, int to_fd) {
    const ssize_t size = ::listxattr(from.c_str(), nullptr, 0);
    if (size <= 0) return;
    std::string names(static_cast<std::size_t>(size), '\0');
    const ssize_t got = ::listxattr(from.c_str(), names.data(), names.size());
    if (got <= 0) return;
    names.resize(static_cast<std::size_t>(got));
    for (std::size_t at = 0; at < names.size();) {
        const std::string name = names.c_str() + at;
        at += name.size() + 1;
        const ssize_t length = ::getxattr(from.c_str(), name.c_str(), nullptr, 0);
        if (length < 0) continue;
        std::string value(static_cast<std::size_t>(length), '\0');
        const ssize_t read = ::getxattr(from.c_str(), name.c_str(), value.data(), value.size());
        if (read < 0) continue;
        (void)::fsetxattr(to_fd, name.c_str(), value.data(), static_cast<std::size_t>(read), 0);
    }
}

// The file a symbolic link `path` leads to, and its status. The kernel follows the links
// (open with O_PATH), so its protections apply (fs.protected_symlinks refuses to follow another
// user's link in a sticky world-writable directory) and loops end in ELOOP; the real path is
// then read back from the descriptor, and checked to be that same file. The link is written
// through, not replaced, so the rename goes to the real path. A dangling link is refused, as
// cp refuses it: writing through it would create a file where the user may not expect one.
std::string resolve_link(const std::string& path, const std::string& target, struct stat& info) {
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            fail_input("cannot write " + target +
                       ": it is a symbolic link to a file that does not exist (tslice writes through a link only to an "
                       "existing file; remove the link or create the file)");
        fail_input("cannot write " + target + ": " + errno_text(errno));
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    if (::fstat(fd, &info) != 0) fail_input("cannot write " + target + ": " + errno_text(errno));
    // A device or a pipe is opened by its own path later (its link text need not be a path).
    if (!S_ISREG(info.st_mode)) return path;
    std::string real(4096, '\0');
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t length = ::readlink(proc.c_str(), real.data(), real.size());
    if (length <= 0 || static_cast<std::size_t>(length) >= real.size())
        fail_input("cannot write " + target + ": cannot find where its symbolic link leads (" + proc + ": " +
                   errno_text(length < 0 ? errno : ENAMETOOLONG) + "; is /proc mounted?)");
    real.resize(static_cast<std::size_t>(length));
    struct stat again {};
    if (::lstat(real.c_str(), &again) != 0 || again.st_dev != info.st_dev || again.st_ino != info.st_ino)
        fail_input("cannot write " + target + ": the file its symbolic link leads to moved while tslice opened it");
    return real;
}


}  // namespace

// The temporary beside the target: removed unless commit() renamed it into place.
class Temporary {
public:
    Temporary(const std::string& directory, const std::string& base, const std::string& target)
        : target_(target) {
        // A long target name must not push the temporary past NAME_MAX.
        std::string name = "." + base.substr(0, 200) + ".tslice-XXXXXX";
        path_ = directory.empty() ? name : directory == "/" ? "/" + name : directory + "/" + name;
        // No signal may arrive between creating the temporary and registering it for
        // remove_pending_temporary(): a handler would then leave it behind.
        sigset_t all, previous;
        ::sigfillset(&all);
        ::pthread_sigmask(SIG_BLOCK, &all, &previous);
        fd_ = ::mkostemp(path_.data(), O_CLOEXEC);
        const int error = errno;
        if (fd_ >= 0 && path_.size() < sizeof g_pending_path) {
            std::memcpy(g_pending_path, path_.c_str(), path_.size() + 1);
            g_pending = 1;
        }
        ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        if (fd_ < 0) fail_input("cannot write " + target_ + ": " + errno_text(error));
    }
    Temporary(const Temporary&) = delete;
    Temporary& operator=(const Temporary&) = delete;
    ~Temporary() {
        if (fd_ >= 0) ::close(fd_);
        if (!committed_) ::unlink(path_.c_str());
        g_pending = 0;
    }

    int fd() const { return fd_; }

    void commit(const std::string& final_path) {
        const int fd = std::exchange(fd_, -1);
        if (::close(fd) != 0) fail_input("cannot write " + target_ + ": " + errno_text(errno));
        const int replaced = hold_replaced_file(final_path);
        if (::rename(path_.c_str(), final_path.c_str()) != 0) {
            const int error = errno;
            if (replaced >= 0) ::close(replaced);
            fail_input("cannot write " + target_ + ": " + errno_text(error));
        }
        committed_ = true;
        g_pending = 0;
        release_after_exit(replaced);
    }

private:
    std::string target_;
    std::string path_;
    int fd_ = -1;
    bool committed_ = false;
};

OutputFile::OutputFile(const std::string& path) {
    if (const std::optional<int> fd = open_descriptor_named(path)) {
        name_ = *fd == STDOUT_FILENO ? "to standard output" : "'" + path + "'";
        if (::fcntl(*fd, F_GETFL) == -1) fail_input("cannot write " + name_ + ": it is not open");
        fd_ = *fd;
        return;
    }
    name_ = "'" + path + "'";
    const std::string& target = name_;
    if (path.empty()) fail_input("cannot write '': the output path is empty");

    std::string final_path = path;
    struct stat info {};
    bool exists = false;
    if (::lstat(path.c_str(), &info) == 0) {
        exists = true;
        if (S_ISLNK(info.st_mode)) final_path = resolve_link(path, target, info);
    } else if (errno != ENOENT) {
        fail_input("cannot write " + target + ": " + errno_text(errno));
    }
    if (exists && S_ISDIR(info.st_mode)) fail_input("cannot write " + target + ": it is a directory");
    if (exists && !S_ISREG(info.st_mode)) {
        // A device or a pipe cannot be replaced by a rename (and must not be: /dev/null), so it is
        // written to directly.
        fd_ = ::open(final_path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd_ < 0) fail_input("cannot write " + target + ": " + errno_text(errno));
        owns_fd_ = true;
        return;
    }

    const auto slash = final_path.rfind('/');
    directory_ =
        slash == std::string::npos ? std::string() : (slash == 0 ? std::string("/") : final_path.substr(0, slash));
    const std::string base = slash == std::string::npos ? final_path : final_path.substr(slash + 1);
    if (base.empty() || base == "." || base == "..")
        fail_input("cannot write " + target + ": it names a directory, not a file");

    // Replacing is writing: a file the user could not have opened for writing (0444, or
    // another user's) is refused as cp and np.save refuse it, and stays as it was.
    if (exists && ::faccessat(AT_FDCWD, final_path.c_str(), W_OK, AT_EACCESS) != 0)
        fail_input("cannot write " + target + ": " + errno_text(errno) +
                   " (the file exists and is not writable by you; tslice does not replace it)");
    const mode_t mode = exists ? (info.st_mode & 07777) : new_entry_mode(0666);
    temporary_ = std::make_unique<Temporary>(directory_, base, target);
    fd_ = temporary_->fd();
    final_path_ = final_path;
    replaces_ = exists;
    // Best effort: some file systems (vfat) cannot set owners or modes, which must not fail the
    // write. The owner first, since changing it may clear set-id bits of the mode.
    if (exists) (void)!::fchown(fd_, info.st_uid, info.st_gid);
    (void)!::fchmod(fd_, mode);
    if (exists) copy_extended_attributes(final_path, fd_);
}

OutputFile::~OutputFile() {
    if (owns_fd_) ::close(fd_);
}

namespace {

// Whether the file system of `fd` keeps a file's unwritten stretches as holes, so that writing
// its end first costs nothing more. FAT and exFAT fill such a stretch with zeros, which would
// write the result twice; a file system not known here is written in order.
bool keeps_holes(int fd) {
    struct statfs info {};
    if (::fstatfs(fd, &info) != 0) return false;
    switch (static_cast<unsigned long>(info.f_type)) {
        case 0xEF53:      // ext2, ext3, ext4
        case 0x58465342:  // XFS
        case 0x9123683E:  // Btrfs
        case 0x01021994:  // tmpfs
        case 0xF2F52010:  // F2FS
        case 0x2FC12FC1:  // ZFS
        case 0xCA451A4E:  // bcachefs
            return true;
        default:
            return false;
    }
}

}  // namespace

std::optional<std::int64_t> OutputFile::placed_from() const {
    if (owns_fd_ || !keeps_holes(fd_)) return std::nullopt;
    if (temporary_) return 0;
    struct stat info {};
    const int flags = ::fcntl(fd_, F_GETFL);
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode) || flags == -1 || (flags & O_APPEND) != 0)
        return std::nullopt;
    const off_t offset = ::lseek(fd_, 0, SEEK_CUR);
    if (offset < 0) return std::nullopt;
    return static_cast<std::int64_t>(offset);
}

bool OutputFile::is_pipe() const {
    struct stat info {};
    return ::fstat(fd_, &info) == 0 && (S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode));
}

void OutputFile::expect(std::int64_t bytes) {
    if (temporary_) {
        allocate_ahead(bytes);
        return;
    }
    constexpr int kPipeBytes = 1 << 20;
    struct stat info {};
    if (::fstat(fd_, &info) != 0 || !S_ISFIFO(info.st_mode)) return;
    const int size = ::fcntl(fd_, F_GETPIPE_SZ);
    if (size < 0 || size >= kPipeBytes || bytes <= size) return;
    // The kernel rounds up to a power of two pages.
    ::fcntl(fd_, F_SETPIPE_SZ, static_cast<int>(std::min<std::int64_t>(bytes, kPipeBytes)));
}

void OutputFile::allocate_ahead(std::int64_t bytes) {
    constexpr unsigned long kExt4 = 0xEF53;
    struct statfs info {};
    if (!replaces_ || bytes <= allocated_ || ::fstatfs(fd_, &info) != 0 ||
        static_cast<unsigned long>(info.f_type) != kExt4)
        return;
    if (::fallocate(fd_, FALLOC_FL_KEEP_SIZE, 0, bytes) == 0) {
        allocated_ = bytes;
    } else if (errno == ENOSPC) {
        fail_input("cannot write " + name_ + ": no space left on the device for its " + std::to_string(bytes) +
                   " bytes (the file is left as it was)");
    }
}

void OutputFile::commit(bool sync) {
    if (allocated_ > 0) {
        // Blocks allocated ahead and not written (a result smaller than expected) are freed:
        // ext4 truncates them even when the size stays as it is (a hole punched past the end
        // frees nothing there).
        struct stat info {};
        if (::fstat(fd_, &info) == 0 && info.st_size < allocated_) (void)!::ftruncate(fd_, info.st_size);
    }
    if (sync) sync_descriptor(fd_, name_);
    if (owns_fd_) {
        owns_fd_ = false;
        if (::close(fd_) != 0) fail_input("cannot write " + name_ + ": " + errno_text(errno));
    }
    if (!temporary_) return;
    temporary_->commit(final_path_);
    if (sync) {
        // The rename itself is durable only once the directory is.
        const int dir = ::open(directory_.empty() ? "." : directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0) fail_input("cannot sync the directory of " + name_ + ": " + errno_text(errno));
        const bool synced = ::fsync(dir) == 0 || errno == EINVAL;
        const int error = errno;
        ::close(dir);
        if (!synced) fail_input("cannot sync the directory of " + name_ + ": " + errno_text(error));
    }
}

mode_t new_entry_mode(mode_t requested) {
    // umask can only be read by setting it; it is put back at once.
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return requested & ~mask;
}

void remove_pending_temporary() noexcept {
    if (g_pending) ::unlink(g_pending_path);
    remove_pending_zarr_store();
}

}  // namespace tslice
