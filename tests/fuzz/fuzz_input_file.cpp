// Fuzz target: the input readers as the command line opens them, not only from bytes in
// memory: the input as a file (mapped), the same bytes on standard input through a pipe
// (spooled), each also header-only (--shape, --list); then every array listed is opened
// (pointed at in the mapping, inflated in memory, or inflated through a spool) and read whole.
//
// Input: the file's bytes (the corpus holds .npy, .npz and .safetensors files).
// Checks, besides "no crash, no sanitizer report, only tslice::Error":
//   - every error is Error(Input): a file that cannot be read is never a usage error;
//   - each listed array's data lies inside what was opened, or inside its inflated member;
//   - the file and the stream agree where both read: the same arrays (names, dtypes, shapes)
//     with the same bytes;
//   - a header-only read of a .npy lists the same array as the full read.
// The stream is a pipe filled before the read (so no thread is needed): inputs larger than the
// pipe can hold are read as a file only.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "tslice/container.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/source.hpp"

using namespace tslice;
using tslice_fuzz::finding;

namespace {

// Arrays larger than this are listed and opened but not copied, to keep the fuzzer fast.
constexpr std::uint64_t kCopyLimit = std::uint64_t{64} << 20;

struct ReadArray {
    ArrayInFile array;
    std::vector<std::byte> bytes;  // empty when not copied
};

// What reading `path` gives: every array and its bytes, or nullopt for an Error(Input).
std::optional<std::vector<ReadArray>> read_all(const std::string& path, bool headers_only) {
    try {
        const InputBytes input = InputBytes::open(path, headers_only);
        const std::vector<ArrayInFile> arrays = list_arrays(input.data(), input.size(), input.complete());
        std::vector<ReadArray> read;
        for (const auto& array : arrays) {
            if (!array.error.empty()) {  // listed with why; choosing it is an input error
                read.push_back({array, {}});
                continue;
            }
            const std::uint64_t data_bytes = array.data_bytes();
            if (array.bytes.kind == ArrayBytes::Kind::Mapped) {
                if (input.complete())
                    TSLICE_FUZZ_CHECK(array.bytes.offset <= input.size() &&
                                      data_bytes <= input.size() - array.bytes.offset);
            } else {
                TSLICE_FUZZ_CHECK(array.bytes.data_offset <= array.bytes.inflated_size &&
                                  data_bytes <= array.bytes.inflated_size - array.bytes.data_offset);
            }
            read.push_back({array, {}});
            if (!input.complete() || data_bytes > kCopyLimit) continue;
            const ArrayData data = ArrayData::open(input, array, "the array");
            const View view = data.view();
            read.back().bytes.resize(static_cast<std::size_t>(data_bytes));
            copy_view(data.data(), view, read.back().bytes.data(), 0, view.element_count());
        }
        return read;
    } catch (const Error& error) {
        if (error.kind() != ErrorKind::Input) finding("a bad input is not an input error: %s", error.what());
        return std::nullopt;
    }
}

bool same_arrays(const std::vector<ReadArray>& a, const std::vector<ReadArray>& b, bool compare_bytes) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].array.name != b[i].array.name || a[i].array.shape != b[i].array.shape ||
            a[i].array.type_name() != b[i].array.type_name() || a[i].array.fortran_order != b[i].array.fortran_order ||
            a[i].array.error.empty() != b[i].array.error.empty())
            return false;
        if (compare_bytes && a[i].bytes != b[i].bytes) return false;
    }
    return true;
}

// The input as a file no disk holds: a memfd, opened again by its /proc path.
class MemoryFile {
public:
    MemoryFile(const std::uint8_t* data, std::size_t size) {
        fd_ = ::memfd_create("tslice-fuzz-input", MFD_CLOEXEC);
        if (fd_ < 0) finding("memfd_create: %s", std::strerror(errno));
        for (std::size_t at = 0; at < size;) {
            const ssize_t wrote = ::write(fd_, data + at, size - at);
            if (wrote <= 0) finding("writing the memfd: %s", std::strerror(errno));
            at += static_cast<std::size_t>(wrote);
        }
    }
    ~MemoryFile() { ::close(fd_); }
    std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

private:
    int fd_ = -1;
};

// Standard input as a pipe holding the input, for one read; put back afterwards. Empty when
// the pipe cannot hold the whole input.
class StdinPipe {
public:
    StdinPipe(const std::uint8_t* data, std::size_t size) {
        static const int saved = ::dup(STDIN_FILENO);
        saved_ = saved;
        int ends[2];
        if (::pipe2(ends, O_CLOEXEC) != 0) finding("pipe2: %s", std::strerror(errno));
        (void)::fcntl(ends[1], F_SETPIPE_SZ, 1 << 20);
        (void)::fcntl(ends[1], F_SETFL, O_NONBLOCK);
        std::size_t at = 0;
        while (at < size) {
            const ssize_t wrote = ::write(ends[1], data + at, size - at);
            if (wrote <= 0) break;
            at += static_cast<std::size_t>(wrote);
        }
        ::close(ends[1]);
        filled_ = at == size;
        if (::dup2(ends[0], STDIN_FILENO) < 0) finding("dup2: %s", std::strerror(errno));
        ::close(ends[0]);
    }
    ~StdinPipe() { ::dup2(saved_, STDIN_FILENO); }
    bool filled() const { return filled_; }

private:
    int saved_ = -1;
    bool filled_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const MemoryFile file(data, size);
    const auto from_file = read_all(file.path(), false);
    const auto file_headers = read_all(file.path(), true);
    if (from_file && file_headers) TSLICE_FUZZ_CHECK(same_arrays(*from_file, *file_headers, false));

    std::optional<std::vector<ReadArray>> from_stream, stream_headers;
    {
        const StdinPipe pipe(data, size);
        if (!pipe.filled()) return 0;
        from_stream = read_all("-", false);
    }
    {
        const StdinPipe pipe(data, size);
        stream_headers = read_all("-", true);
    }
    if (from_file && from_stream) TSLICE_FUZZ_CHECK(same_arrays(*from_file, *from_stream, true));
    if (from_stream && stream_headers) TSLICE_FUZZ_CHECK(same_arrays(*from_stream, *stream_headers, false));
    return 0;
}
