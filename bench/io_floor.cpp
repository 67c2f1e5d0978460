// tslice_io_floor IN OUT NBYTES: the I/O floor of a whole-process run. Maps IN and write()s its
// first NBYTES bytes, straight from the mapping, to OUT (created or truncated): what any tool
// that reads a file and writes a result of that size must at least do. scripts/bench.sh runs
// it with NBYTES = the size of the .npy file tslice writes (header plus data).
//
// It writes 1 MiB per write(): on the benchmark machine (2 MiB L2 per core, ext4) one 1 GiB
// write() took 600 ms where 512 KiB to 1 MiB pieces took 250 ms (64 KiB: 310 ms, 16 MiB:
// 460 ms), so a single call would be no floor at all.
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

static int fail(const char* what, const char* path) {
    std::fprintf(stderr, "tslice_io_floor: %s %s: %s\n", what, path, std::strerror(errno));
    return 1;
}

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: tslice_io_floor IN OUT NBYTES\n");
        return 2;
    }
    const char* in = argv[1];
    const char* out = argv[2];
    const unsigned long long wanted = std::strtoull(argv[3], nullptr, 10);
    const int fd = open(in, O_RDONLY);
    if (fd < 0) return fail("cannot open", in);
    struct stat st;
    if (fstat(fd, &st) != 0) return fail("cannot stat", in);
    const auto size = static_cast<unsigned long long>(st.st_size);
    if (wanted > size) {
        std::fprintf(stderr, "tslice_io_floor: %s has %llu bytes, fewer than %llu\n", in, size, wanted);
        return 1;
    }
    const char* data = nullptr;
    if (size > 0) {
        void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) return fail("cannot map", in);
        data = static_cast<const char*>(map);
    }
    const int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (ofd < 0) return fail("cannot create", out);
    unsigned long long done = 0;
    while (done < wanted) {
        constexpr unsigned long long kPiece = 1ULL << 20;
        const unsigned long long part = wanted - done < kPiece ? wanted - done : kPiece;
        const ssize_t n = write(ofd, data + done, part);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail("cannot write", out);
        }
        done += static_cast<unsigned long long>(n);
    }
    if (close(ofd) != 0) return fail("cannot write", out);
    return 0;
}
