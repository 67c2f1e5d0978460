// tslice: the command line. A thin CLI11 front end over the library: parse, plan, then copy
// and write (or print, or only report the shape). Errors travel as exceptions to main(),
// the one place that turns them into a message and an exit code.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/convert.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/explain.hpp"
#include "tslice/expr.hpp"
#include "tslice/gguf.hpp"
#include "tslice/npy.hpp"
#include "tslice/ops.hpp"
#include "tslice/parallel.hpp"
#include "tslice/print.hpp"
#include "tslice/reach.hpp"
#include "tslice/slice.hpp"
#include "tslice/source.hpp"
#include "tslice/stats.hpp"
#include "tslice/steps.hpp"
#include "tslice/write.hpp"

namespace {

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

void setup_options(CLI::App& app, Options& options) {
    app.description(
        "Slice a NumPy .npy file, an .npz member or a safetensors tensor with a numpy index expression: "
        "tslice in.npy \"[1:, ..., ::-1]\" -o out.npy");
    app.add_option("INPUT", options.input,
                   "a .npy, .npz, .safetensors or HDF5 file (recognised by content), a Zarr v2 store directory, or - for "
                   "standard input")
        ->required();
    app.add_option("EXPR", options.expression,
                   "a numpy index expression such as \"[1:, ..., ::-1]\" (outer brackets optional)");
    app.add_option("--op", options.op,
                   "a JSON op spec (strided_slice, slice, slice1, gather, index), or @FILE; runs before EXPR")
        ->type_name("SPEC");
    auto* output = app.add_option("-o,--output", options.output,
                                  "write the result to PATH (- for standard output), as .npy unless PATH ends in "
                                  ".npz, .safetensors or .zarr (a Zarr v2 directory) or --format says otherwise")
                       ->type_name("PATH");
    app.add_option("-k,--key", options.keys,
                   "an array of a container INPUT (an .npz member with or without .npy, a safetensors, PyTorch or "
                   "GGUF tensor, an HDF5 dataset's path with or without the leading /, a Zarr group's array), or a "
                   "glob ('layers.0.*'); repeatable: several results go into one container or print one after "
                   "another; not needed when INPUT holds one")
        ->type_name("NAME")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);  // a glob's "[...]" is not CLI11's list syntax
    auto* update = app.add_flag("--update", options.update,
                                "with -o FILE.npz or FILE.safetensors: replace or add the results in FILE (created if "
                                "missing), keeping every other array there byte for byte");
    app.add_option("--as", options.as_name, "the result's name in an output container (one array only; default: its key)")
        ->type_name("NAME");
    app.add_option("--format", options.format,
                   "the output format: npy, npz, safetensors or zarr (with -o), or the values as text, json or csv "
                   "(to -o, or to standard output); default: by -o's extension")
        ->check(CLI::IsMember({"npy", "npz", "safetensors", "json", "csv", "zarr"}))
        ->type_name("F");
    app.add_option("--chunks", options.chunks,
                   "a Zarr output's chunk shape, one length per axis (64,256,256); default: about 4 MiB a chunk, "
                   "whole trailing axes first")
        ->type_name("N,N,...");
    app.add_option("--compressor", options.compressor, "a Zarr output's compressor (default zstd)")
        ->check(CLI::IsMember({"zstd", "blosc", "zlib", "none"}))
        ->type_name("C");
    auto* shape = app.add_flag("-s,--shape", options.shape_only,
                               "dry run: print only the result's shape; reads no array data");
    auto* list = app.add_flag("--list", options.list,
                              "print every array of INPUT (name, dtype, shape), one a line; reads headers only");
    list->excludes(shape)->excludes(output);
    update->needs(output);
    app.add_flag("--json", options.json,
                 "with --shape: print {\"shape\": [...], \"dtype\": \"...\"}; with --list: a JSON array of "
                 "{\"name\", \"dtype\", \"shape\"}; with --explain: the report as one JSON object (with the "
                 "result's nbytes and fields)");
    app.add_flag("--explain", options.explain,
                 "dry run: print the resolved plan, and for EXPR the equivalent strided_slice and ONNX slice specs");
    app.add_option("--astype", options.astype,
                   "convert the result as numpy's astype (bool, int8-64, uint8-64, float16-64, complex, bfloat16, "
                   "float8_e4m3fn, float8_e5m2, float8_e8m0fnu; numpy's codes such as <f4, >i2)")
        ->type_name("DTYPE");
    app.add_flag("--stats", options.stats,
                 "print the result's element, NaN and infinity counts, min, max, mean and std (as numpy's nanmin, "
                 "nanmax, nanmean, nanstd in float64) instead of its values; with --json as a JSON object")
        ->excludes(output)
        ->excludes(shape)
        ->excludes(list);
    app.add_flag("--full", options.full, "print every value, never summarised with ... (numpy's threshold=sys.maxsize)");
    app.add_option("--precision", options.precision, "the most digits after a printed float's point (numpy's default: 8)")
        ->check(CLI::Range(0, 1000))
        ->type_name("N");
    app.add_option("--linewidth", options.linewidth, "the characters a printed line may hold (numpy's default: 75)")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40))
        ->type_name("N");
    app.add_flag("-q,--quiet", options.quiet, "no progress line on stderr for long copies");
    app.add_flag("--sync", options.sync,
                 "make a written file durable: fsync it before it is renamed into place, and its directory after");
    app.add_flag("-f,--force", options.force, "write binary output (-o -) even when standard output is a terminal");
    app.add_option("-t,--threads", options.threads, "worker threads for large copies (default: the CPUs this process may use)")
        ->check(CLI::Range(1u, 1024u))
        ->type_name("N");
}

// A progress line on a terminal's stderr, for copies that take more than about a second.
class Progress {
public:
    explicit Progress(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)), start_(Clock::now()), last_(start_) {}
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress() {
        if (shown_) std::fprintf(stderr, "\r%*s\r", 60, "");  // leave the terminal as it was
    }

    void update(std::int64_t done_bytes, std::int64_t total_bytes) {
        if (!enabled_ || total_bytes <= 0) return;
        const auto now = Clock::now();
        if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(200)) return;
        last_ = now;
        shown_ = true;
        std::fprintf(stderr, "\rtslice: %3d%% (%s of %s)", static_cast<int>(100 * done_bytes / total_bytes),
                     human(done_bytes).c_str(), human(total_bytes).c_str());
        std::fflush(stderr);
    }

private:
    using Clock = std::chrono::steady_clock;
    static std::string human(std::int64_t bytes) {
        const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        double value = static_cast<double>(bytes);
        int unit = 0;
        while (value >= 1024 && unit < 4) value /= 1024, ++unit;
        char text[32];
        std::snprintf(text, sizeof text, unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
        return text;
    }

    bool enabled_;
    Clock::time_point start_, last_;
    bool shown_ = false;
};

std::string shape_report(const std::vector<std::int64_t>& shape, const tslice::ElementType& type, bool json) {
    if (!json) return tslice::format_shape(shape) + "\n";
    tslice::DType shown = type.dtype;
    if (!type.safetensors_only.empty()) shown.descr = shown.type_string = type.safetensors_only;
    return tslice::shape_json(shape, shown) + "\n";
}

void write_stdout(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        throw tslice::Error(tslice::ErrorKind::Input,
                            std::string("cannot write to standard output: ") + std::strerror(errno));
}

// Opens the input, naming it in any error.
template <typename Open>
auto open_input(const std::string& path, Open open) {
    try {
        return open(path);
    } catch (const tslice::Error& error) {
        throw tslice::error_about_file(error, path);
    }
}

int run(const Options& options) {
    if (const std::string warning = tslice::kernel_set_warning(); !warning.empty())
        std::cerr << "tslice: warning: " << warning << "\n";
    if (options.json && !options.shape_only && !options.list && !options.explain && !options.stats)
        throw tslice::Error(tslice::ErrorKind::Usage, "--json needs --shape, --list, --explain or --stats");
    if (options.stats && (options.explain || options.format))
        throw tslice::Error(tslice::ErrorKind::Usage, "--stats prints statistics; it takes no --explain or --format");
    std::optional<tslice::ElementType> astype;
    if (options.astype) astype = tslice::parse_astype(*options.astype);
    if (options.shape_only && options.explain)
        throw tslice::Error(tslice::ErrorKind::Usage,
                            "--shape and --explain are two dry runs; give one (--explain's report includes the "
                            "result's shape)");
    if (options.list && (options.explain || options.expression || options.op))
        throw tslice::Error(tslice::ErrorKind::Usage,
                            "--list prints the arrays of INPUT; it takes no EXPR, --op or --explain");
    // Everything that needs no file is checked first: a bad spec or expression is reported
    // whatever the input.
    std::vector<tslice::OpSpec> ops;
    if (options.op) ops = tslice::parse_op_argument(*options.op);
    std::optional<tslice::IndexExpr> expr;
    if (options.expression) expr = tslice::parse_index_expr(*options.expression);

    const bool headers_only = options.list || options.shape_only || options.explain;
    const bool text_format = options.format == "json" || options.format == "csv";
    if (options.format && !text_format && !options.output)
        throw tslice::Error(tslice::ErrorKind::Usage,
                            "--format " + *options.format + " needs -o PATH (only json and csv go to standard output "
                            "without it)");
    if ((options.output || text_format) && !headers_only) {
        const std::string output = options.output.value_or("-");
        const tslice::OutputFormat format = tslice::output_format_for(output, options.format);
        const bool binary = format != tslice::OutputFormat::Json && format != tslice::OutputFormat::Csv;
        if ((options.chunks || options.compressor) && format != tslice::OutputFormat::Zarr)
            throw tslice::Error(tslice::ErrorKind::Usage,
                                "--chunks and --compressor shape a Zarr output; write one with -o DIR.zarr or "
                                "--format zarr");
        // Binary bytes on a terminal garble it and help nobody (gzip and zstd refuse too).
        if (binary && (output == "-" || output == "/dev/stdout") && !options.force && ::isatty(STDOUT_FILENO))
            throw tslice::Error(tslice::ErrorKind::Usage,
                                "standard output is a terminal: tslice does not write binary data to it; redirect "
                                "it (-o - > FILE, or | ...), or use --force");
        tslice::SliceRequest request;
        request.input = options.input;
        request.keys = options.keys;
        request.update = options.update;
        request.as_name = options.as_name;
        request.ops = std::move(ops);
        request.expr = std::move(expr);
        request.output = output;
        request.format = format;
        request.astype = astype;
        request.write.sync = options.sync;
        request.write.threads = options.threads;
        if (options.chunks) request.zarr.chunks = tslice::parse_zarr_chunks(*options.chunks);
        if (options.compressor) request.zarr.compressor = *options.compressor;
        Progress progress(!options.quiet);
        request.write.progress = [&](std::int64_t written, std::int64_t total) { progress.update(written, total); };
        tslice::slice_file(request);
        return 0;
    }
    const tslice::InputBytes input =
        open_input(options.input, [&](const std::string& path) { return tslice::InputBytes::open(path, headers_only); });
    std::vector<tslice::ArrayInFile> arrays = open_input(options.input, [&](const std::string&) {
        return tslice::list_arrays(input);
    });
    if (options.list && options.keys.empty()) {
        std::string list = tslice::format_array_list(arrays, options.json);
        // A GGUF's metadata comes with its tensors: {"arrays": [...], "metadata": {...}}.
        if (options.json && tslice::detect_format(input.data(), input.size()) == tslice::ContainerFormat::Gguf)
            list = "{\"arrays\": " + list.substr(0, list.size() - 1) +
                   ", \"metadata\": " + tslice::gguf_metadata_json(input.data(), input.size()) + "}\n";
        write_stdout(list);
        return 0;
    }
    if (options.list) {
        const std::vector<const tslice::ArrayInFile*> chosen = open_input(
            options.input, [&](const std::string&) { return tslice::select_arrays(arrays, options.keys, false); });
        std::vector<tslice::ArrayInFile> shown;
        for (const tslice::ArrayInFile* array : chosen) shown.push_back(*array);
        write_stdout(tslice::format_array_list(shown, options.json));
        return 0;
    }
    if (options.as_name) throw tslice::Error(tslice::ErrorKind::Usage, "--as names a result written with -o");
    // A conversion reads a quantized GGUF tensor as the floats its blocks decode to.
    if (astype)
        for (tslice::ArrayInFile& array : arrays) array = tslice::dequantized(array);
    const std::vector<const tslice::ArrayInFile*> chosen =
        open_input(options.input, [&](const std::string&) { return tslice::select_arrays(arrays, options.keys); });
    const bool several = chosen.size() > 1;
    if (several && options.explain)
        throw tslice::Error(tslice::ErrorKind::Usage, std::to_string(chosen.size()) +
                                                          " arrays are chosen; --explain reports the plan of one");
    tslice::read_indices_files(ops, headers_only);
    std::vector<tslice::Pipeline> pipelines;
    for (const tslice::ArrayInFile* array : chosen)
        pipelines.push_back(tslice::plan_pipeline(array->shape, ops, expr, array->type.dtype));
    ops = {};  // the plans hold the indices now: a large gather's would be resident twice
    const auto source_type_of = [&](std::size_t i) {
        return tslice::ElementType{pipelines[i].output_dtype(), chosen[i]->type.safetensors_only};
    };
    for (std::size_t i = 0; i < chosen.size(); ++i)
        if (options.stats) tslice::check_stats_type(source_type_of(i), astype);
    const auto json_name = [](const std::optional<std::string>& name) {
        return name ? nlohmann::json(*name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                    : std::string("null");
    };
    if (options.shape_only && several) {
        // NAME: (4, 3) lines, or a JSON array of {"name", "shape", "dtype"}.
        std::string out = options.json ? "[" : "";
        for (std::size_t i = 0; i < chosen.size(); ++i) {
            const tslice::ElementType type = tslice::converted_type(source_type_of(i), astype);
            std::string report = shape_report(pipelines[i].output_shape(), type, options.json);
            report.pop_back();
            if (options.json)
                out += (i ? ", " : "") + std::string("{\"name\": ") + json_name(chosen[i]->name) + ", " + report.substr(1);
            else
                out += tslice::shown_name(*chosen[i]->name) + ": " + report + "\n";
        }
        write_stdout(options.json ? out + "]\n" : out);
        return 0;
    }
    std::string stats_out;  // several arrays' --stats --json: one JSON array
    for (std::size_t i = 0; i < chosen.size(); ++i) {
        const tslice::ArrayInFile& array = *chosen[i];
        const tslice::Pipeline& pipeline = pipelines[i];
        const tslice::ElementType source_type = source_type_of(i);
        const tslice::ElementType type = tslice::converted_type(source_type, astype);
        if (options.explain) {
            tslice::DType shown = array.type.dtype;
            if (!array.type.safetensors_only.empty()) shown.descr = shown.type_string = array.type.safetensors_only;
            write_stdout((options.json ? tslice::explain_json(pipeline, shown, expr, array.fortran_order, array.strides)
                                       : tslice::explain(pipeline, shown, expr, array.fortran_order, array.strides)) +
                         (options.json ? "\n" : ""));
            return 0;
        }
        if (options.shape_only) {
            write_stdout(shape_report(pipeline.output_shape(), type, options.json));
            return 0;
        }
        const std::string what = tslice::array_what(array);
        const tslice::ArrayData data = open_input(options.input, [&](const std::string&) {
            return tslice::ArrayData::open(input, array, what,
                                           [&] { return tslice::reached_box(pipeline, array.type.itemsize()); });
        });
        const tslice::Result result = tslice::apply_pipeline(pipeline, data.data(), data.view());
        if (options.stats) {
            const tslice::InputPages pages = result.data == data.data() ? data.pages() : tslice::InputPages{};
            const tslice::ArrayStats stats =
                tslice::compute_stats(result.data, result.view, source_type, astype, pages, options.threads);
            if (options.json && several)
                stats_out += (i ? ", " : "[") + tslice::stats_json(stats, array.name, type, result.view.shape);
            else
                write_stdout((options.json ? tslice::stats_json(stats, array.name, type, result.view.shape)
                                           : tslice::stats_line(stats, array.name, type, result.view.shape)) + "\n");
            continue;
        }
        std::vector<std::byte> converted;
        tslice::Result printed = result;
        if (astype) {
            converted =
                tslice::convert_view(result.data, result.view, tslice::Conversion(source_type, type), options.threads);
            printed = tslice::Result{converted.data(), tslice::View::contiguous(result.view.shape, type.itemsize()), nullptr};
        }
        tslice::PrintOptions print;
        print.precision = options.precision;
        print.linewidth = options.linewidth;
        if (options.full) print.threshold = std::numeric_limits<std::int64_t>::max();
        // Several arrays: each after a line with its name.
        const std::string heading = several ? tslice::shown_name(*array.name) + ":\n" : "";
        if (type.safetensors_only.empty())
            write_stdout(heading + tslice::format_array(printed.data, printed.view, type.dtype, print) + "\n");
        else
            write_stdout(heading + tslice::format_narrow_float_array(printed.data, printed.view, type, print) + "\n");
    }
    if (!stats_out.empty()) write_stdout(stats_out + "]\n");
    return 0;
}

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

// What --version prints: the version, then what a bug report needs.
std::string version_text() {
    std::string text = "tslice " TSLICE_VERSION "\n";
    text += "copy kernels: " + tslice::active_kernel_set() + " (this CPU runs:";
    for (const std::string& set : tslice::available_kernel_sets()) text += " " + set;
    if (const std::string cap = tslice::kernel_set_cap(); !cap.empty()) text += "; capped at " + cap + " by TSLICE_KERNEL_CAP";
    text += ")\ncompiler: ";
#if defined(__clang__)
    text += "clang " __clang_version__;
#elif defined(__GNUC__)
    text += "gcc " __VERSION__;
#else
    text += "unknown";
#endif
    return text;
}

// `tslice a.npy [0, :, ::2]` unquoted reaches tslice as "[0," ":," "::2]": EXPR and two
// arguments CLI11 did not expect. Where the arguments left over look like pieces of an
// expression, the message says so and shows the command quoted.
std::string unquoted_expression_hint(const Options& options, const std::vector<std::string>& extras) {
    if (extras.empty()) return {};
    std::vector<std::string> pieces;
    if (options.expression) pieces.push_back(*options.expression);
    pieces.insert(pieces.end(), extras.begin(), extras.end());
    bool expression_like = false;
    for (const std::string& piece : pieces) {
        if (piece.empty() || piece.find_first_not_of("0123456789+-:,[]().NoneEllipsis ") != std::string::npos)
            return {};
        expression_like = expression_like || piece.find_first_of(":,[]") != std::string::npos;
    }
    if (!expression_like) return {};
    std::string joined, listed;
    for (const std::string& piece : pieces) {
        joined += (joined.empty() ? "" : " ") + piece;
        listed += (listed.empty() ? "'" : " '") + piece + "'";
    }
    return "the expression reached tslice as " + std::to_string(pieces.size()) + " arguments (" + listed +
           "): the shell splits it at spaces (and may expand [...]); quote it: \"" + joined + "\"";
}

}  // namespace

int main(int argc, char** argv) {
    keep_standard_descriptors_open();
    // A file size limit (ulimit -f) is reported as a write error with a message: write()
    // fails with EFBIG instead of SIGXFSZ killing the process.
    std::signal(SIGXFSZ, SIG_IGN);
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

    CLI::App app{"tslice", "tslice"};
    Options options;
    setup_options(app, options);
    app.set_version_flag("--version", version_text, "print the version, the copy kernels this CPU uses and the compiler");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::CallForVersion&) {
        std::cout << version_text() << "\n";
        return 0;
    } catch (const CLI::ParseError& error) {
        // CLI11 exits with 100-114 on its own; the contract says 2 for a bad command line.
        const std::string hint = dynamic_cast<const CLI::ExtrasError*>(&error)
                                     ? unquoted_expression_hint(options, app.remaining())
                                     : std::string();
        std::cerr << "tslice: error: " << (hint.empty() ? std::string(error.what()) : hint) << "\n";
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
