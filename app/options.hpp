// The command line's options: what CLI11 fills in from argv. CLI11 stays inside options.cpp,
// the one file that parses: it is most of a file's compile time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tslice/threads.hpp"

namespace tslice_cli {

struct Options {
    std::string input;
    std::optional<std::string> expression;
    std::optional<std::string> output;
    std::optional<std::string> op;
    std::vector<std::string> keys;
    std::optional<std::string> as_name;
    bool update = false;
    std::optional<std::string> format;
    std::optional<std::string> chunks;
    std::optional<std::string> compressor;
    bool list = false;
    bool shape_only = false;
    bool explain = false;
    bool quiet = false;
    bool sync = false;
    bool force = false;
    bool json = false;
    bool full = false;
    std::optional<std::string> astype;
    bool stats = false;
    int precision = 8;
    std::int64_t linewidth = 75;
    unsigned threads = tslice::default_thread_count();
};

// Parses the command line into `options`, with the checks CLI11 makes itself (allowed values,
// ranges, options that exclude or need each other). Returns the exit status where the command
// line is all there is to do: 0 after --help or --version (printed), 2 after a bad command
// line (said on standard error); nothing where the run goes on.
std::optional<int> parse_command_line(int argc, char** argv, Options& options);

}  // namespace tslice_cli
