// tslice_io_floor [--pread] IN OUT NBYTES: the I/O floor of a whole-process run. Maps IN and
// write()s its first NBYTES bytes, straight from the mapping, to OUT (created or truncated):
// what any tool that reads a file and writes a result of that size must at least do.
// scripts/bench.sh runs it with NBYTES = the size of the .npy file tslice writes (header plus
// data). With --pread it reads each piece into a buffer with pread() and writes it from
// there instead, which on the benchmark machine is the faster of the two (a write() from a
// file mapping faults each page in first): the floor of the best plain way.
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
#include <vector>

static int fail(const char* what, const char* path) {
    std::fprintf(stderr, "tslice_io_floor: %s %s: %s\n", what, path, std::strerror(errno));
    return 1;
}

int main(int argc, char** argv) {
    const bool use_pread = argc == 5 && std::strcmp(argv[1], "--pread") == 0;
    if (use_pread) {
        --argc;
        ++argv;
    }
    if (argc != 4) {
        std::fprintf(stderr, "usage: tslice_io_floor [--pread] IN OUT NBYTES\n");
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
    constexpr unsigned long long kPiece = 1ULL << 20;
    const char* data = nullptr;
    std::vector<char> buffer(use_pread ? kPiece : 0);
    if (size > 0 && !use_pread) {
        void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) return fail("cannot map", in);
        data = static_cast<const char*>(map);
    }
    const int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (ofd < 0) return fail("cannot create", out);
    const auto write_all = [&](const char* from, unsigned long long bytes) {
        while (bytes > 0) {
            const ssize_t n = write(ofd, from, bytes);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return false;
            from += n;
            bytes -= static_cast<unsigned long long>(n);
        }
        return true;
    };
    for (unsigned long long done = 0; done < wanted;) {
        const unsigned long long part = wanted - done < kPiece ? wanted - done : kPiece;
        if (use_pread) {
            for (unsigned long long have = 0; have < part;) {
                const ssize_t got = pread(fd, buffer.data() + have, part - have, static_cast<off_t>(done + have));
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) return fail("cannot read", in);
                have += static_cast<unsigned long long>(got);
            }
        }
        if (!write_all(use_pread ? buffer.data() : data + done, part)) return fail("cannot write", out);
        done += part;
    }
    if (close(ofd) != 0) return fail("cannot write", out);
    return 0;
}
