// A stretch of a file moved to a descriptor without being copied into this process: splice()
// from the file into a pipe of this object's own, which takes the file's pages by reference,
// and from the pipe into the output: into another pipe the pages move on by reference, into a
// file they are copied once. pread() into a buffer and write() from it copies every byte
// twice, once through this process's memory (docs/performance.md). A reader of the output pipe reads what the file holds when it reads:
// at most a pipe's worth after the send, as a mapping shows what the file holds as it copies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tslice {

class FileSplice {
public:
    // Moves bytes of `file` to `out` (neither is closed here). Without a pipe (out of
    // descriptors), send() moves nothing.
    FileSplice(int file, int out);
    FileSplice(const FileSplice&) = delete;
    FileSplice& operator=(const FileSplice&) = delete;
    ~FileSplice();

    struct Sent {
        bool before = false;     // whether `before` was written
        std::int64_t bytes = 0;  // the file's bytes written after it
    };
    // Writes `before`, then `bytes` bytes of the file from `offset`, to `out`. `before` goes
    // out only with the first of the file's bytes, once they were read: a file that cannot be
    // read leaves the output as it was. Fewer bytes than asked for where splicing stopped: the
    // file system or the output takes no splice (an output opened to append), or an error
    // that a read or write of the rest will meet and report; later calls then send nothing.
    // An error writing `before` throws, naming `target`.
    Sent send(std::int64_t offset, std::int64_t bytes, std::string_view before, const std::string& target);

private:
    void stop();

    int file_ = -1;
    int out_ = -1;
    int pipe_read_ = -1;
    int pipe_write_ = -1;
    std::int64_t capacity_ = 0;
};

}  // namespace tslice
