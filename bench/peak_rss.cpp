// tslice_peak_rss RESULT CMD [ARGS...]: runs CMD and writes its peak resident memory in KiB
// (getrusage's ru_maxrss of the waited child) to the file RESULT; exits with CMD's status.
// Built static and tiny: Linux counts the RSS a child inherits from its parent before exec
// in ru_maxrss, so the wrapper must be small (scripts/bench.sh prints what /bin/true reads).
#include <sys/resource.h>
#include <sys/wait.h>
#include <spawn.h>

#include <cstdio>
#include <cstring>

extern char** environ;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: tslice_peak_rss RESULT CMD [ARGS...]\n");
        return 2;
    }
    pid_t pid = 0;
    const int error = posix_spawnp(&pid, argv[2], nullptr, nullptr, argv + 2, environ);
    if (error != 0) {
        std::fprintf(stderr, "tslice_peak_rss: cannot run %s: %s\n", argv[2], std::strerror(error));
        return 127;
    }
    int status = 0;
    struct rusage usage;
    std::memset(&usage, 0, sizeof usage);
    if (wait4(pid, &status, 0, &usage) != pid) {
        std::perror("tslice_peak_rss: wait4");
        return 1;
    }
    FILE* result = std::fopen(argv[1], "w");
    if (result == nullptr || std::fprintf(result, "%ld\n", usage.ru_maxrss) < 0 || std::fclose(result) != 0) {
        std::perror("tslice_peak_rss: cannot write the result");
        return 1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}
