// The command line's options (options.hpp).
#include "options.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

#include "tslice/copy.hpp"

namespace tslice_cli {
namespace {

// Declares every option and flag on `app`, to be parsed into `options`.

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

// What --version prints: the version, then what a bug report needs.
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
// The message for arguments CLI11 did not expect, where they look like an expression the shell
// split; empty where they do not.
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

std::optional<int> parse_command_line(int argc, char** argv, Options& options) {
    CLI::App app{"tslice", "tslice"};
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
    return std::nullopt;
}

}  // namespace tslice_cli
