// tslice: the command line. A thin CLI11 front end over the library: parse, plan, then copy
// and write (or print, or only report the shape). Errors travel as exceptions to main(),
// the one place that turns them into a message and an exit code.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/explain.hpp"
#include "tslice/expr.hpp"
#include "tslice/npy.hpp"
#include "tslice/ops.hpp"
#include "tslice/print.hpp"
#include "tslice/steps.hpp"

namespace {

struct Options {
    std::string input;
    std::optional<std::string> expression;
    std::optional<std::string> output;
    std::optional<std::string> op;
    bool shape_only = false;
    bool explain = false;
    bool json = false;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
};

void setup_options(CLI::App& app, Options& options) {
    app.description(
        "Slice a NumPy .npy file with a numpy index expression: tslice in.npy \"[1:, ..., ::-1]\" -o out.npy");
    app.add_option("INPUT", options.input, "a .npy file, or - for standard input")->required();
    app.add_option("EXPR", options.expression,
                   "a numpy index expression such as \"[1:, ..., ::-1]\" (outer brackets optional)");
    app.add_option("--op", options.op,
                   "a JSON op spec (strided_slice, slice, slice1, gather, index), or @FILE; runs before EXPR")
        ->type_name("SPEC");
    app.add_option("-o,--output", options.output,
                   "write the result as .npy to PATH (- for standard output)")
        ->type_name("PATH");
    auto* shape = app.add_flag("-s,--shape", options.shape_only,
                               "dry run: print only the result's shape; reads no array data");
    app.add_flag("--json", options.json, "with --shape: print {\"shape\": [...], \"dtype\": \"...\"}")
        ->needs(shape);
    app.add_flag("--explain", options.explain,
                 "dry run: print the resolved plan, and for EXPR the equivalent strided_slice and ONNX slice specs");
    app.add_option("-t,--threads", options.threads, "worker threads for large copies (default: the cores)")
        ->check(CLI::Range(1u, 1024u))
        ->type_name("N");
}

// The element range [first, first + count) of the result, split over threads when it is
// large enough for threads to pay off.
void copy_chunk(const std::byte* src, const tslice::View& view, std::byte* dst, std::int64_t first,
                std::int64_t count, unsigned threads) {
    constexpr std::int64_t kMinBytesPerThread = 1 << 20;
    const std::int64_t bytes = count * static_cast<std::int64_t>(view.itemsize);
    const std::int64_t workers = std::min<std::int64_t>(threads, std::max<std::int64_t>(1, bytes / kMinBytesPerThread));
    if (workers <= 1) {
        tslice::copy_view(src, view, dst, first, count);
        return;
    }
    std::vector<std::thread> pool;
    const std::int64_t share = count / workers;
    for (std::int64_t w = 0; w < workers; ++w) {
        const std::int64_t begin = w * share;
        const std::int64_t part = w + 1 == workers ? count - begin : share;
        pool.emplace_back([=, &view] {
            tslice::copy_view(src, view, dst + begin * static_cast<std::int64_t>(view.itemsize), first + begin, part);
        });
    }
    for (auto& thread : pool) thread.join();
}

std::string shape_report(const std::vector<std::int64_t>& shape, const tslice::DType& dtype, bool json) {
    if (!json) return tslice::format_shape(shape) + "\n";
    std::string dims;
    for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
    const std::string dtype_text = dtype.structured ? dtype.descr : dtype.type_string;
    return "{\"shape\": [" + dims + "], \"dtype\": " + nlohmann::json(dtype_text).dump() + "}\n";
}

void write_stdout(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        throw tslice::Error(tslice::ErrorKind::Input,
                            std::string("cannot write to standard output: ") + std::strerror(errno));
}

// File errors name the file; the library's messages say what is wrong with it.
[[noreturn]] void rethrow_for_file(const tslice::Error& error, const std::string& path) {
    const std::string name = path == "-" ? "standard input" : "'" + path + "'";
    const std::string message = error.what();
    if (message.find(name) != std::string::npos) throw;
    throw tslice::Error(error.kind(), name + ": " + message);
}

// Opens the input, naming it in any error.
template <typename Open>
auto open_input(const std::string& path, Open open) {
    try {
        return open(path);
    } catch (const tslice::Error& error) {
        rethrow_for_file(error, path);
    }
}

int run(const Options& options) {
    // Everything that needs no file is checked first: a bad spec or expression is reported
    // whatever the input.
    std::vector<tslice::OpSpec> ops;
    if (options.op) ops = tslice::parse_op_argument(*options.op);
    std::optional<tslice::IndexExpr> expr;
    if (options.expression) expr = tslice::parse_index_expr(*options.expression);

    if (options.shape_only || options.explain) {
        const tslice::NpyHeader header = open_input(options.input, tslice::NpyArray::read_header);
        const tslice::Pipeline pipeline = tslice::plan_pipeline(header.shape, ops, expr);
        if (options.explain)
            write_stdout(tslice::explain(pipeline, header.dtype, expr));
        else
            write_stdout(shape_report(pipeline.output_shape(), header.dtype, options.json));
        return 0;
    }

    const tslice::NpyArray array = open_input(options.input, tslice::NpyArray::open);
    const tslice::NpyHeader& header = array.header();
    const tslice::Pipeline pipeline = tslice::plan_pipeline(header.shape, ops, expr);
    const tslice::Result result = tslice::apply_pipeline(pipeline, array.data(), array.view());

    if (!options.output) {
        write_stdout(tslice::format_array(result.data, result.view, header.dtype) + "\n");
        return 0;
    }
    tslice::write_npy(*options.output, header.dtype, result.view.shape,
                      [&](std::byte* dst, std::int64_t first, std::int64_t count) {
                          copy_chunk(result.data, result.view, dst, first, count, options.threads);
                      });
    return 0;
}

void remove_temporary_and_exit(int signal_number) {
    tslice::remove_pending_temporary();
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

}  // namespace

int main(int argc, char** argv) {
    // A closed pipe is reported as a write error with a message, not a silent death.
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGINT, remove_temporary_and_exit);
    std::signal(SIGTERM, remove_temporary_and_exit);

    CLI::App app{"tslice", "tslice"};
    Options options;
    setup_options(app, options);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& error) {
        // CLI11 exits with 100-114 on its own; the contract says 2 for a bad command line.
        std::cerr << "tslice: error: " << error.what() << "\n";
        return 2;
    }

    try {
        return run(options);
    } catch (const tslice::ExprError& error) {
        std::cerr << "tslice: error: " << error.describe() << "\n";
        return error.exit_code();
    } catch (const tslice::Error& error) {
        std::cerr << "tslice: error: " << error.what() << "\n";
        return error.exit_code();
    } catch (const std::bad_alloc&) {
        std::cerr << "tslice: error: out of memory\n";
        return 1;
    } catch (const std::exception& error) {
        std::cerr << "tslice: error: " << error.what() << "\n";
        return 1;
    }
}
