// tslice_read_floor IN: the floor of a reduction over a whole file: map IN and read every byte
// of it once, on one thread (a sum of its 64-bit words, printed so the reads cannot be left
// out). What any tool that looks at every value of a file must at least do; scripts/bench.sh
// sets --stats against it.
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: tslice_read_floor IN\n");
        return 2;
    }
    const int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        std::fprintf(stderr, "tslice_read_floor: %s: %s\n", argv[1], std::strerror(errno));
        return 1;
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    std::uint64_t sum = 0;
    if (size > 0) {
        void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            std::fprintf(stderr, "tslice_read_floor: cannot map %s: %s\n", argv[1], std::strerror(errno));
            return 1;
        }
        const auto* bytes = static_cast<const unsigned char*>(map);
        std::size_t i = 0;
        std::uint64_t lanes[4] = {0, 0, 0, 0};
        for (; i + 32 <= size; i += 32)
            for (int k = 0; k < 4; ++k) {
                std::uint64_t word;
                std::memcpy(&word, bytes + i + 8 * k, 8);
                lanes[k] += word;
            }
        for (; i < size; ++i) sum += bytes[i];
        sum += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    }
    std::printf("%llu\n", static_cast<unsigned long long>(sum));
    return 0;
}
