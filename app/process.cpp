// The process around a run (process.hpp).
#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

#include "tslice/write.hpp"

namespace tslice_cli {
namespace {

void remove_temporary_and_exit(int signal_number) {
    tslice::remove_pending_temporary();
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

// The input is mapped: a file that shrinks while it is read (another program truncates or
// rewrites it in place) raises SIGBUS at the first page past its new end. Not a crash: one
// message, no temporary left behind, exit 1 as for any file that cannot be read.
void input_failed(int) {
    tslice::remove_pending_temporary();
    static const char message[] =
        "tslice: error: a mapped input could not be read (SIGBUS): the file was truncated while tslice read it, "
        "or its storage failed\n";
    (void)!::write(STDERR_FILENO, message, sizeof message - 1);
    ::_exit(1);
}

// The signals whose default action ends the process and that a handler can catch.
constexpr int kTerminatingSignals[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2,
                                       SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGPIPE};

// Started with a standard descriptor closed (`2>&-`), the first file tslice opens would get
// that number, and a message meant for stderr would land inside the output file. /dev/null
// takes the place of any closed one before anything else is opened.
void keep_standard_descriptors_open() {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (opened >= 0 && opened != fd) {
            ::dup2(opened, fd);
            ::close(opened);
        }
    }
}

}  // namespace

void set_up_process() {
    keep_standard_descriptors_open();
    // A file size limit (ulimit -f) is reported as a write error with a message: write()
    // fails with EFBIG instead of SIGXFSZ killing the process.
    std::signal(SIGXFSZ, SIG_IGN);
    // The command exits right after writing: a replaced checkpoint's blocks are freed by a
    // process that outlives it rather than before it returns (write.hpp).
    tslice::release_replaced_files_after_exit(true);
    std::signal(SIGBUS, input_failed);
    // Every other signal whose default action ends the process removes the temporary first,
    // then ends the process of the signal as it would have. SIGPIPE among them: a reader
    // that closes the pipe early (`tslice big.npy | head`) ends tslice quietly, as it ends
    // cat. A signal that whoever started tslice ignores (nohup, the shell for a background
    // job) stays ignored.
    for (const int signal_number : kTerminatingSignals) {
        struct sigaction current {};
        if (::sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler != SIG_IGN)
            std::signal(signal_number, remove_temporary_and_exit);
    }
}

}  // namespace tslice_cli
