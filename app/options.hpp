// The command line's options: what CLI11 fills in, and the texts that describe them.
#pragma once

#include <CLI/CLI.hpp>

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

// Declares every option and flag on `app`, to be parsed into `options`, with the checks CLI11
// makes itself (allowed values, ranges, options that exclude or need each other).
void setup_options(CLI::App& app, Options& options);

// What --version prints: the version, then what a bug report needs.
std::string version_text();

// The message for arguments CLI11 did not expect, where they look like an expression the shell
// split; empty where they do not.
std::string unquoted_expression_hint(const Options& options, const std::vector<std::string>& extras);

}  // namespace tslice_cli
