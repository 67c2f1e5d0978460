// xtensor's copy and numpy's (see bench_contenders.hpp).
#include "bench_contenders.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>
#include <xtensor/xadapt.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xtensor.hpp>
#include <xtensor/xview.hpp>

#ifndef TSLICE_BENCH_SOURCE_DIR
#define TSLICE_BENCH_SOURCE_DIR "bench"
#endif

namespace tslice::bench {

// ---------------------------------------------------------------------------------------------
// xtensor: xt::adapt over the input, xt::view with xt::range / xt::keep, assigned with
// xt::noalias into a preallocated xt::xtensor (what a user of xtensor writes).

namespace {

template <class T, std::size_t InRank, std::size_t OutRank, class ViewOf>
XtRunner make_xt(const std::byte* in, const std::vector<std::int64_t>& in_shape,
                 const std::vector<std::int64_t>& out_shape, ViewOf view_of) {
    std::array<std::size_t, InRank> ish{};
    std::size_t n = 1;
    for (std::size_t k = 0; k < InRank; ++k) n *= ish[k] = static_cast<std::size_t>(in_shape[k]);
    std::array<std::size_t, OutRank> osh{};
    for (std::size_t k = 0; k < OutRank; ++k) osh[k] = static_cast<std::size_t>(out_shape[k]);
    auto out = std::make_shared<xt::xtensor<T, OutRank>>(osh);
    std::memset(static_cast<void*>(out->data()), 0, out->size() * sizeof(T));  // fault the pages in
    T* p = reinterpret_cast<T*>(const_cast<std::byte*>(in));
    auto a = xt::adapt(p, n, xt::no_ownership(), ish);
    XtRunner runner;
    runner.run = [a, out, view_of]() mutable { xt::noalias(*out) = view_of(a); };
    runner.data = [out] { return reinterpret_cast<const std::byte*>(out->data()); };
    runner.bytes = [out] { return out->size() * sizeof(T); };
    return runner;
}

template <class T>
std::optional<XtRunner> xt_reversed_inner(const std::byte* in, const std::vector<std::int64_t>& in_shape,
                                          const std::vector<std::int64_t>& out_shape) {
    using namespace xt::placeholders;
    return make_xt<T, 3, 3>(in, in_shape, out_shape,
                            [](auto& a) { return xt::view(a, xt::all(), xt::all(), xt::range(_, _, -1)); });
}

}  // namespace

std::optional<XtRunner> xtensor_runner(const CaseSpec& spec, const std::byte* in, std::size_t itemsize,
                                       const std::vector<std::int64_t>& in_shape,
                                       const std::vector<std::int64_t>& out_shape,
                                       const std::vector<std::int64_t>& indices) {
    using namespace xt::placeholders;
    const std::string expr = spec.expr;
    if (spec.kind == Kind::GatherRows || spec.kind == Kind::GatherColumns) {
        if (itemsize != 4) return std::nullopt;
        const std::vector<std::size_t> keep(indices.begin(), indices.end());
        if (spec.kind == Kind::GatherRows)
            return make_xt<float, 2, 2>(in, in_shape, out_shape,
                                        [keep](auto& a) { return xt::view(a, xt::keep(keep), xt::all()); });
        return make_xt<float, 2, 2>(in, in_shape, out_shape,
                                    [keep](auto& a) { return xt::view(a, xt::all(), xt::keep(keep)); });
    }
    if (in_shape.size() != 3) return std::nullopt;
    if (expr == "[:, :, ::-1]") {
        switch (itemsize) {
            case 1: return xt_reversed_inner<std::uint8_t>(in, in_shape, out_shape);
            case 4: return xt_reversed_inner<float>(in, in_shape, out_shape);
            case 8: return xt_reversed_inner<double>(in, in_shape, out_shape);
            default: return std::nullopt;
        }
    }
    if (itemsize != 4) return std::nullopt;
    const auto n0 = static_cast<std::ptrdiff_t>(in_shape[0]);
    if (expr == "[1:-1, :, :]")
        return make_xt<float, 3, 3>(in, in_shape, out_shape, [n0](auto& a) {
            return xt::view(a, xt::range(1, n0 - 1), xt::all(), xt::all());
        });
    if (expr == "[:, 100:900, 100:900]")
        return make_xt<float, 3, 3>(in, in_shape, out_shape, [](auto& a) {
            return xt::view(a, xt::all(), xt::range(100, 900), xt::range(100, 900));
        });
    if (expr == "[:, :, ::2]")
        return make_xt<float, 3, 3>(in, in_shape, out_shape,
                                    [](auto& a) { return xt::view(a, xt::all(), xt::all(), xt::range(_, _, 2)); });
    if (expr == "[::-1, ::-1, ::-1]")
        return make_xt<float, 3, 3>(in, in_shape, out_shape, [](auto& a) {
            return xt::view(a, xt::range(_, _, -1), xt::range(_, _, -1), xt::range(_, _, -1));
        });
    if (expr == "[..., 5]")
        return make_xt<float, 3, 2>(in, in_shape, out_shape,
                                    [](auto& a) { return xt::view(a, xt::all(), xt::all(), 5); });
    if (expr == "[:, ::3, 1::4]")
        return make_xt<float, 3, 3>(in, in_shape, out_shape, [](auto& a) {
            return xt::view(a, xt::all(), xt::range(_, _, 3), xt::range(1, _, 4));
        });
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// numpy, in its own process

namespace {

constexpr std::size_t kSampleStride = 4093;

std::string shell_quote(const std::string& text) {
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

}  // namespace

std::uint64_t sample_sum(const std::byte* data, std::size_t bytes) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < bytes; i += kSampleStride) sum += static_cast<std::uint8_t>(data[i]);
    return sum;
}

NumpyServer::NumpyServer(const Options& options, const CaseSpec& spec) {
    // TSLICE_BENCH_SCRIPTS: where numpy_copy.py is, for a bench binary run away from its sources.
    const char* scripts = std::getenv("TSLICE_BENCH_SCRIPTS");
    const std::string script_dir = scripts != nullptr && *scripts != '\0' ? scripts : TSLICE_BENCH_SOURCE_DIR;
    std::vector<std::string> args = {options.python, script_dir + "/numpy_copy.py", "--serve", "--file",
                                     path_of(options, spec.input), "--sample-stride", std::to_string(kSampleStride)};
    if (spec.kind == Kind::GatherRows || spec.kind == Kind::GatherColumns) {
        args.insert(args.end(), {"--indices", path_of(options, spec.indices), "--axis", std::to_string(spec.gather_axis)});
    } else {
        args.insert(args.end(), {"--expr", spec.expr});
    }
    for (const std::string& arg : args) {
        if (!command_.empty()) command_ += ' ';
        command_ += shell_quote(arg);
    }
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) die("cannot make pipes for numpy");
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    if (spawned != 0) die("cannot run " + command_ + ": " + std::strerror(spawned));
    pid_ = pid;
    to_ = ::fdopen(to_child[1], "w");
    from_ = ::fdopen(from_child[0], "r");
    if (to_ == nullptr || from_ == nullptr) die("cannot talk to numpy");
}

NumpyServer::~NumpyServer() {
    if (to_ != nullptr) std::fclose(to_);
    if (from_ != nullptr) std::fclose(from_);
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
}

std::string NumpyServer::read_line() {
    std::string line;
    int c = 0;
    while ((c = std::fgetc(from_)) != EOF && c != '\n') line += static_cast<char>(c);
    if (c == EOF && line.empty()) {
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        die("numpy ended early (status " + std::to_string(status) + "): " + command_);
    }
    return line;
}

double NumpyServer::round() {
    if (!ready_) {
        if (read_line() != "ready") die("numpy did not start: " + command_);
        ready_ = true;
    }
    std::fputs("\n", to_);
    std::fflush(to_);
    const std::string text = read_line();  // the round's times; the medians come at the end
    try {
        return nlohmann::json::parse(text).at("copy").get<double>();
    } catch (const std::exception& error) {
        die("cannot read numpy's round '" + text + "': " + error.what());
    }
}

NumpyResult NumpyServer::finish() {
    if (!ready_ && read_line() != "ready") die("numpy did not start: " + command_);
    std::fclose(to_);
    to_ = nullptr;
    const std::string text = read_line();
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (status != 0) die("numpy failed (status " + std::to_string(status) + "): " + command_);
    try {
        const auto json = nlohmann::json::parse(text);
        NumpyResult result;
        result.median = json.at("median").get<double>();
        result.shape = json.at("shape").get<std::vector<std::int64_t>>();
        result.sample_sum = json.at("sample_sum").get<std::uint64_t>();
        result.method = json.at("method").get<std::string>();
        if (json.contains("memmove_median") && json["memmove_median"].is_number())
            result.memmove_median = json["memmove_median"].get<double>();
        if (json.contains("huge_pages_mib") && json["huge_pages_mib"].is_number())
            result.huge_pages_mib = json["huge_pages_mib"].get<std::int64_t>();
        return result;
    } catch (const std::exception& error) {
        die("cannot read numpy's answer '" + text + "': " + error.what());
    }
}

}  // namespace tslice::bench
