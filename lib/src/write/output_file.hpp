// Where a written result lands: the descriptor a path names ("-", /dev/stdout, /dev/fd/N), a
// device or pipe written in place, or a temporary file beside the target that commit() renames
// over it, so that a failure leaves no partial file and never harms an existing one.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tslice {

class Temporary;

// The mode a new file (0666) or directory (0777) gets from `requested`: as open and mkdir
// give it, the umask's bits cleared. For what is made under another mode first (a temporary).
mode_t new_entry_mode(mode_t requested);

class OutputFile {
public:
    // Resolves `path` (a symbolic link is written through: the kernel follows it, a dangling one
    // is refused), refuses what must not be replaced (a directory, a file the user may not
    // write), and opens the destination. A replacing temporary gets the replaced file's owner,
    // mode and extended attributes.
    explicit OutputFile(const std::string& path);
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    // Unless commit() finished, the temporary is removed and the target left as it was.
    ~OutputFile();

    int fd() const { return fd_; }
    // The destination as errors name it: "'out.npy'", "to standard output".
    const std::string& name() const { return name_; }

    // Where the written bytes start in fd(), if they may be placed in any order (pwrite) at no
    // extra cost: a temporary (at 0), or a named descriptor of a regular file not opened to
    // append (at its offset), on a file system that keeps unwritten stretches as holes. None
    // for a pipe, a device, an appending file or another file system: they take the bytes in
    // order.
    std::optional<std::int64_t> placed_from() const;

    // Whether fd() is a pipe or a socket: a reader takes the bytes as they come, and the bytes
    // of a file are moved into it without a copy (file_splice.hpp).
    bool is_pipe() const;
    // About `bytes` will be written. A pipe holding less than 1 MiB (Linux's default is 64 KiB)
    // is made to hold up to 1 MiB, as much as an unprivileged process may ask for by default,
    // so that a large result is not handed over 64 KiB at a time (docs/performance.md). A
    // temporary that will replace an existing file on ext4 gets its blocks allocated now
    // (beyond its end, which grows as it is written): ext4 flushes a file renamed over another
    // whose blocks are still to be allocated (its auto_da_alloc), which made replacing a 1 GiB
    // file cost about a third more than writing a new one; and a disk too full for the result
    // is then said before anything is written. Advice otherwise: where the system refuses,
    // the output stays as it is.
    void expect(std::int64_t bytes);

    // Everything is written: put it in place. `sync`: fsync the data first and, after the
    // rename, the directory, so the result is on stable storage when commit() returns.
    void commit(bool sync);

private:
    void allocate_ahead(std::int64_t bytes);

    std::string name_;
    std::string final_path_, directory_;
    int fd_ = -1;
    bool owns_fd_ = false;  // a device or pipe opened here
    bool replaces_ = false;  // the temporary replaces an existing file
    std::int64_t allocated_ = 0;  // bytes allocated ahead by expect()
    std::unique_ptr<Temporary> temporary_;
};

}  // namespace tslice
