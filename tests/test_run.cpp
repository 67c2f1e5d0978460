// A whole run from a file to a file (tslice/run.hpp): the output formats, the checks an output
// needs before anything is written, and the results written.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "run_fixture.hpp"
#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "tslice/convert.hpp"
#include "tslice/npy.hpp"
#include "tslice/prepare.hpp"
#include "tslice/reports.hpp"
#include "tslice/run.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

RunRequest request_for(const std::string& input, const std::string& output, const std::string& expr = "[...]") {
    RunRequest request;
    request.input = input;
    request.output = output;
    request.expr = parse_index_expr(expr);
    return request;
}

}  // namespace

TEST_CASE("run: the output format from --format, else from the path's extension") {
    CHECK(output_format_for("out.npy", std::nullopt) == OutputFormat::Npy);
    CHECK(output_format_for("-", std::nullopt) == OutputFormat::Npy);
    CHECK(output_format_for("out.bin", std::nullopt) == OutputFormat::Npy);
    CHECK(output_format_for("out.npz", std::nullopt) == OutputFormat::Npz);
    CHECK(output_format_for("out.safetensors", std::nullopt) == OutputFormat::Safetensors);
    CHECK(output_format_for("out.json", std::nullopt) == OutputFormat::Json);
    CHECK(output_format_for("out.csv", std::nullopt) == OutputFormat::Csv);
    CHECK(output_format_for("out.zarr/", std::nullopt) == OutputFormat::Zarr);
    CHECK(output_format_for(".npz", std::nullopt) == OutputFormat::Npy);  // a name that is only an extension
    CHECK(output_format_for("out.npz", std::string("safetensors")) == OutputFormat::Safetensors);
    CHECK(output_format_for("-", std::string("csv")) == OutputFormat::Csv);
}

TEST_CASE("run: a type is written little-endian into safetensors, as it is elsewhere") {
    const ElementType i4{parse_dtype_descr("'<i4'"), {}};
    CHECK(converted_type(i4, std::nullopt, OutputFormat::Safetensors) == i4);
    const ElementType big = parse_astype(">f8");
    CHECK(converted_type(i4, big, OutputFormat::Npy).dtype.type_string == ">f8");
    CHECK(converted_type(i4, big, OutputFormat::Safetensors).dtype.type_string == "<f8");
}

TEST_CASE("run: framing refuses what a format cannot hold, before anything is written") {
    const ElementType c16{parse_dtype_descr("'<c16'"), {}};
    CHECK(message_of(ErrorKind::Usage, [&] { output_framing(OutputFormat::Safetensors, c16, {2}, "x"); })
              .find("safetensors has no dtype") != std::string::npos);
    const ElementType i4{parse_dtype_descr("'<i4'"), {}};
    CHECK(message_of(ErrorKind::Usage, [&] { output_framing(OutputFormat::Npz, i4, {2}, std::string("a\0b", 3)); })
              .find("NUL") != std::string::npos);
    const OutputFraming npy = output_framing(OutputFormat::Npy, i4, {2, 3}, "x");
    CHECK(npy.prefix == make_npy_header(i4.dtype, {2, 3}));
}

TEST_CASE("run: a .npy sliced into a .npy holds numpy's result") {
    RunFiles files;
    const std::string out = (files.dir.path / "out.npy").string();
    run(request_for(files.npy, out, "[::-1, 1:]"));
    std::string expected_data;
    for (const int value : {4, 5, 1, 2}) put_le(expected_data, static_cast<std::uint32_t>(value), 4);
    CHECK(read_file(out) == make_npy_header(parse_dtype_descr("'<i4'"), {2, 2}) + expected_data);
}

TEST_CASE("run: several arrays go into a container, each under its name") {
    RunFiles files;
    const std::string out = (files.dir.path / "out.npz").string();
    RunRequest request = request_for(files.npz, out, "[:2]");
    request.keys = {"*"};
    run(request);
    const std::string written = read_file(out);
    const std::vector<ArrayInFile> arrays = list_arrays(reinterpret_cast<const std::byte*>(written.data()),
                                                        written.size());
    REQUIRE(arrays.size() == 2);
    CHECK(*arrays[0].name == "a");
    CHECK(arrays[0].shape == std::vector<std::int64_t>{2});
    CHECK(*arrays[1].name == "b");
    CHECK(arrays[1].shape == std::vector<std::int64_t>{2});
}

TEST_CASE("run: outputs that cannot take the results are refused before anything is written") {
    RunFiles files;
    const std::string out = (files.dir.path / "out.npy").string();
    RunRequest several = request_for(files.npz, out);
    several.keys = {"*"};
    CHECK(message_of(ErrorKind::Usage, [&] { run(several); }).find("2 arrays are chosen") != std::string::npos);

    RunRequest named = several;
    named.output = (files.dir.path / "out.npz").string();
    named.as_name = "x";
    CHECK(message_of(ErrorKind::Usage, [&] { run(named); }).find("--as names one result") != std::string::npos);

    RunRequest update = request_for(files.npy, "-");
    update.update = true;
    update.format = OutputFormat::Npz;
    CHECK(message_of(ErrorKind::Usage, [&] { run(update); }).find("-o - is standard output") != std::string::npos);

    // The input container written over by one of its arrays would lose the other.
    const std::string before = read_file(files.npz);
    RunRequest over = request_for(files.npz, files.npz);
    over.keys = {"a"};
    CHECK(message_of(ErrorKind::Usage, [&] { run(over); }).find("would lose 1 of them") != std::string::npos);
    CHECK(read_file(files.npz) == before);
    CHECK(files.dir.entries().size() == 2);  // no output, no temporary left
}

TEST_CASE("run: --update replaces an array of the input container and keeps the other") {
    RunFiles files;
    RunRequest request = request_for(files.npz, files.npz, "[::-1]");
    request.keys = {"b"};
    request.update = true;
    run(request);
    const std::string written = read_file(files.npz);
    const std::vector<ArrayInFile> arrays = list_arrays(reinterpret_cast<const std::byte*>(written.data()),
                                                        written.size());
    REQUIRE(arrays.size() == 2);
    CHECK(*arrays[0].name == "a");
    CHECK(arrays[0].shape == std::vector<std::int64_t>{6});
    CHECK(*arrays[1].name == "b");
    // b's member now holds 2, 1, 0.
    std::string reversed;
    for (const int value : {2, 1, 0}) put_le(reversed, static_cast<std::uint32_t>(value), 4);
    CHECK(written.find(make_npy_header(parse_dtype_descr("'<i4'"), {3}) + reversed) != std::string::npos);
}

TEST_CASE("run: --shape (a dry run of the same preparation) gives the shape of what a run writes") {
    RunFiles files;
    const std::string out = (files.dir.path / "out.npy").string();
    for (const char* expr : {"[...]", "[::-1, 1:]", "[1]", "[None, :, [2, 0, 2]]", "[[True, False]]", "[..., 5:]"}) {
        CAPTURE(expr);
        run(request_for(files.npy, out, expr));
        const std::string written = read_file(out);
        const std::vector<ArrayInFile> arrays = list_arrays(reinterpret_cast<const std::byte*>(written.data()),
                                                            written.size());
        REQUIRE(arrays.size() == 1);
        Prepared dry = Prepared::open(files.npy, true);
        dry.choose({});
        dry.plan({}, parse_index_expr(expr));
        CHECK(dry.planned()[0].pipeline.output_shape() == arrays[0].shape);
        CHECK(shape_report(dry, std::nullopt, false) == format_shape(arrays[0].shape) + "\n");
    }
}
