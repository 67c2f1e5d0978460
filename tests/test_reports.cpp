// The command line's reports, each from one preparation: --list, --shape, --explain, the
// values printed, --stats.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "run_fixture.hpp"
#include "thrown_error.hpp"
#include "tslice/convert.hpp"
#include "tslice/explain.hpp"
#include "tslice/prepare.hpp"
#include "tslice/reports.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

Prepared planned(const std::string& path, const std::vector<std::string>& keys, const std::string& expr,
                 bool headers_only = false, bool converting = false) {
    Prepared prepared = Prepared::open(path, headers_only);
    prepared.choose(keys, {.converting = converting});
    prepared.plan({}, parse_index_expr(expr));
    return prepared;
}

}  // namespace

TEST_CASE("reports: --list shows every array, or the chosen ones") {
    RunFiles files;
    Prepared prepared = Prepared::open(files.npz, true);
    CHECK(list_report(prepared, false) == format_array_list(prepared.arrays(), false));
    prepared.choose({"b"}, {.listing = true});
    CHECK(list_report(prepared, true) == format_array_list({prepared.arrays()[1]}, true));
    CHECK(list_report(prepared, false).find("b") == 0);
}

TEST_CASE("reports: --shape of one array and of several, as text and JSON, after --astype") {
    RunFiles files;
    const Prepared one = planned(files.npy, {}, "[:, ::2]", true);
    CHECK(shape_report(one, std::nullopt, false) == "(2, 2)\n");
    CHECK(shape_report(one, std::nullopt, true) == "{\"shape\": [2, 2], \"dtype\": \"<i4\"}\n");
    CHECK(shape_report(one, parse_astype("float64"), true) == "{\"shape\": [2, 2], \"dtype\": \"<f8\"}\n");
    CHECK(shape_report(one, parse_astype("bfloat16"), true) == "{\"shape\": [2, 2], \"dtype\": \"BF16\"}\n");

    const Prepared two = planned(files.npz, {"*"}, "[1:]", true);
    CHECK(shape_report(two, std::nullopt, false) == "a: (5,)\nb: (2,)\n");
    CHECK(shape_report(two, std::nullopt, true) ==
          "[{\"name\": \"a\", \"shape\": [5], \"dtype\": \"<i4\"}, {\"name\": \"b\", \"shape\": [2], \"dtype\": "
          "\"<i4\"}]\n");
}

TEST_CASE("reports: --explain is explain.hpp's report of the planned array") {
    RunFiles files;
    const std::optional<IndexExpr> expr = parse_index_expr("[::-1, 1]");
    Prepared prepared = Prepared::open(files.npy, true);
    prepared.choose({});
    prepared.plan({}, expr);
    const PlannedArray& array = prepared.planned()[0];
    CHECK(explain_report(prepared, expr, std::nullopt, false) == explain(array.pipeline, array.type.dtype, expr));
    CHECK(explain_report(prepared, expr, std::nullopt, true) ==
          explain_json(array.pipeline, array.type.dtype, expr) + "\n");
    // The plan is of the input as it is: a conversion comes after it.
    CHECK(explain_report(prepared, expr, parse_astype("float16"), false) ==
          explain_report(prepared, expr, std::nullopt, false));
}

TEST_CASE("reports: values as numpy prints them, converted, with names for several arrays") {
    RunFiles files;
    CHECK(values_report(planned(files.npy, {}, "[::-1]"), 0, std::nullopt, {}, 1) == "[[3 4 5]\n [0 1 2]]\n");
    CHECK(values_report(planned(files.npy, {}, "[1]"), 0, parse_astype("float32"), {}, 1) == "[3. 4. 5.]\n");
    const Prepared two = planned(files.npz, {"a", "b"}, "[::2]");
    CHECK(values_report(two, 0, std::nullopt, {}, 1) == "a:\n[0 2 4]\n");
    CHECK(values_report(two, 1, std::nullopt, {}, 1) == "b:\n[0 2]\n");
}

TEST_CASE("reports: --stats of a result, as a line and as JSON") {
    RunFiles files;
    const Prepared prepared = planned(files.npz, {"a"}, "[1:]");
    check_stats_types(prepared, std::nullopt);
    const std::string line = stats_report(prepared, 0, std::nullopt, false, 2);
    CHECK(line.find("count 5") != std::string::npos);
    CHECK(line.find("min 1") != std::string::npos);
    CHECK(line.find("max 5") != std::string::npos);
    CHECK(line.back() != '\n');
    const std::string json = stats_report(prepared, 0, std::nullopt, true, 2);
    CHECK(json.front() == '{');
    CHECK(json.find("\"count\": 5") != std::string::npos);
}

TEST_CASE("reports: shown_dtype names a type numpy lacks by its safetensors name") {
    ElementType bf16 = *safetensors_element_type("BF16");
    CHECK(shown_dtype(bf16).type_string == "BF16");
    CHECK(shown_dtype(bf16).descr == "BF16");
    ElementType f4 = *safetensors_element_type("F32");
    CHECK(shown_dtype(f4) == f4.dtype);
}
