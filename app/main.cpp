// tslice: the command line. A thin front end over the library: options.cpp parses the command
// line (CLI11), and here each command maps the options to the library's calls: a run that writes
// (tslice/run.hpp), or a report printed from the same preparation (tslice/reports.hpp: --list,
// --shape, --explain, the values, --stats). Errors travel as exceptions to main(), the one
// place that turns them into a message and an exit code.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "options.hpp"
#include "process.hpp"
#include "progress.hpp"
#include "tslice/convert.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/output_format.hpp"
#include "tslice/prepare.hpp"
#include "tslice/reports.hpp"
#include "tslice/run.hpp"

namespace tslice_cli {
namespace {

void write_stdout(const std::string& text) {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        throw tslice::Error(tslice::ErrorKind::Input,
                            std::string("cannot write to standard output: ") + std::strerror(errno));
}

// What the command line gives once it is checked and parsed: the specs and the expression
// (checked before any file is opened, so that a bad one is reported whatever the input).
struct Parsed {
    std::vector<tslice::OpSpec> ops;
    std::optional<tslice::IndexExpr> expr;
    std::optional<tslice::ElementType> astype;
};

// -o PATH, or --format json|csv to standard output: a run that writes.
void write_result(const Options& options, Parsed parsed) {
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
    tslice::RunRequest request;
    request.input = options.input;
    request.keys = options.keys;
    request.update = options.update;
    request.as_name = options.as_name;
    request.ops = std::move(parsed.ops);
    request.expr = std::move(parsed.expr);
    request.output = output;
    request.format = format;
    request.astype = parsed.astype;
    request.write.sync = options.sync;
    request.write.threads = options.threads;
    if (options.chunks) request.zarr.chunks = tslice::parse_zarr_chunks(*options.chunks);
    if (options.compressor) request.zarr.compressor = *options.compressor;
    Progress progress(!options.quiet);
    request.write.progress = [&](std::int64_t written, std::int64_t total) { progress.update(written, total); };
    tslice::run(request);
}

// --list: the arrays of the input, or those -k chooses.
void list_arrays(const Options& options, tslice::Prepared prepared) {
    if (!options.keys.empty()) prepared.choose(options.keys, {.listing = true});
    write_stdout(tslice::list_report(prepared, options.json));
}

// The values of each result, as numpy prints them.
void print_values(const Options& options, const std::optional<tslice::ElementType>& astype,
                  const tslice::Prepared& prepared) {
    tslice::PrintOptions print;
    print.precision = options.precision;
    print.linewidth = options.linewidth;
    if (options.full) print.threshold = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < prepared.planned().size(); ++i)
        write_stdout(tslice::values_report(prepared, i, astype, print, options.threads));
}

// --stats of each result: a line each, or with --json one object, or for several arrays one
// JSON array, written once all are computed.
void print_stats(const Options& options, const std::optional<tslice::ElementType>& astype,
                 const tslice::Prepared& prepared) {
    const std::size_t count = prepared.planned().size();
    std::string json_array;
    for (std::size_t i = 0; i < count; ++i) {
        const std::string stats = tslice::stats_report(prepared, i, astype, options.json, options.threads);
        if (options.json && count > 1)
            json_array += (i ? ", " : "[") + stats;
        else
            write_stdout(stats + "\n");
    }
    if (!json_array.empty()) write_stdout(json_array + "]\n");
}

// The reports of a result that write no file: --shape and --explain (which read no array
// data), --stats, or the values printed.
void report(const Options& options, Parsed parsed, tslice::Prepared prepared) {
    if (options.as_name) throw tslice::Error(tslice::ErrorKind::Usage, "--as names a result written with -o");
    // A conversion reads a quantized GGUF tensor as the floats its blocks decode to.
    prepared.choose(options.keys, {.converting = parsed.astype.has_value()});
    const std::size_t chosen = prepared.chosen().size();
    if (chosen > 1 && options.explain)
        throw tslice::Error(tslice::ErrorKind::Usage,
                            std::to_string(chosen) + " arrays are chosen; --explain reports the plan of one");
    prepared.plan(std::move(parsed.ops), parsed.expr);
    if (options.stats) tslice::check_stats_types(prepared, parsed.astype);
    if (options.shape_only) return write_stdout(tslice::shape_report(prepared, parsed.astype, options.json));
    if (options.explain) return write_stdout(tslice::explain_report(prepared, parsed.expr, parsed.astype, options.json));
    if (options.stats) return print_stats(options, parsed.astype, prepared);
    print_values(options, parsed.astype, prepared);
}

// The command: the checks between options that CLI11 cannot make, then one of the above.
void run_command(const Options& options) {
    if (const std::string warning = tslice::kernel_set_warning(); !warning.empty())
        std::cerr << "tslice: warning: " << warning << "\n";
    if (options.json && !options.shape_only && !options.list && !options.explain && !options.stats)
        throw tslice::Error(tslice::ErrorKind::Usage, "--json needs --shape, --list, --explain or --stats");
    if (options.stats && (options.explain || options.format))
        throw tslice::Error(tslice::ErrorKind::Usage, "--stats prints statistics; it takes no --explain or --format");
    Parsed parsed;
    if (options.astype) parsed.astype = tslice::parse_astype(*options.astype);
    if (options.shape_only && options.explain)
        throw tslice::Error(tslice::ErrorKind::Usage,
                            "--shape and --explain are two dry runs; give one (--explain's report includes the "
                            "result's shape)");
    if (options.list && (options.explain || options.expression || options.op))
        throw tslice::Error(tslice::ErrorKind::Usage,
                            "--list prints the arrays of INPUT; it takes no EXPR, --op or --explain");
    if (options.op) parsed.ops = tslice::parse_op_argument(*options.op);
    if (options.expression) parsed.expr = tslice::parse_index_expr(*options.expression);

    const bool dry_run = options.list || options.shape_only || options.explain;
    const bool text_format = options.format == "json" || options.format == "csv";
    if (options.format && !text_format && !options.output)
        throw tslice::Error(tslice::ErrorKind::Usage,
                            "--format " + *options.format + " needs -o PATH (only json and csv go to standard output "
                            "without it)");
    if ((options.output || text_format) && !dry_run) return write_result(options, std::move(parsed));
    tslice::Prepared prepared = tslice::Prepared::open(options.input, dry_run);
    if (options.list) return list_arrays(options, std::move(prepared));
    report(options, std::move(parsed), std::move(prepared));
}

}  // namespace
}  // namespace tslice_cli

int main(int argc, char** argv) {
    using namespace tslice_cli;
    set_up_process();

    Options options;
    if (const std::optional<int> status = parse_command_line(argc, argv, options)) return *status;

    try {
        tslice_cli::run_command(options);
        return 0;
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
