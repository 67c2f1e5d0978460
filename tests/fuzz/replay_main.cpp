// The plain driver: runs a fuzz target's LLVMFuzzerTestOneInput over files, so that the
// corpora and every past crash replay in every test run, with any compiler and without
// libFuzzer (zstd's tests/fuzz/regression_driver.c does the same).
//
//     fuzz_expr_replay tests/fuzz/corpus/fuzz_expr tests/fuzz/regressions/fuzz_expr [FILE ...]
//
// A directory is walked recursively, in sorted order; hidden files (.gitkeep) and README files
// are skipped. A path that does not exist, or a run that replays nothing at all, is an error,
// so a renamed corpus cannot silently turn the test into a no-op. A finding aborts (the
// targets abort on a wrong result; the sanitizers abort on memory errors), so the test fails
// and the last "replaying" line names the file.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

bool skipped(const fs::path& path) {
    const std::string name = path.filename().string();
    return name.empty() || name[0] == '.' || name.rfind("README", 0) == 0;
}

std::vector<fs::path> files_of(const fs::path& root) {
    std::vector<fs::path> files;
    if (fs::is_regular_file(root)) {
        files.push_back(root);
        return files;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root))
        if (entry.is_regular_file() && !skipped(entry.path())) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t replayed = 0;
    for (int i = 1; i < argc; ++i) {
        const fs::path root = argv[i];
        std::error_code error;
        if (!fs::exists(root, error)) {
            std::fprintf(stderr, "%s: %s does not exist\n", argv[0], argv[i]);
            return 2;
        }
        for (const fs::path& file : files_of(root)) {
            std::ifstream stream(file, std::ios::binary);
            if (!stream) {
                std::fprintf(stderr, "%s: cannot read %s\n", argv[0], file.c_str());
                return 2;
            }
            const std::vector<char> bytes{std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
            // Named before the run (ctest shows it only on failure), so that a crash is
            // attributed to its file.
            std::fprintf(stderr, "replaying %s\n", file.c_str());
            std::fflush(stderr);
            // libFuzzer hands the target a buffer of exactly `size` bytes; so does this copy,
            // so that AddressSanitizer catches a read one past the end.
            std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
            const auto* data = exact.empty() ? nullptr : exact.data();
            LLVMFuzzerTestOneInput(data, exact.size());
            ++replayed;
        }
    }
    std::fprintf(stderr, "%s: replayed %zu inputs, all passed\n", argv[0], replayed);
    if (replayed == 0) {
        std::fprintf(stderr, "%s: nothing to replay (give corpus directories or files)\n", argv[0]);
        return 2;
    }
    return 0;
}
