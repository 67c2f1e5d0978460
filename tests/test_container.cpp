// Telling formats apart, choosing the array --key names, and --list's two forms.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"

using namespace tslice;
using namespace tslice_test;

namespace {

ContainerFormat format_of(const std::string& bytes) {
    return detect_format(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
}

ArrayInFile array(std::optional<std::string> name, const char* descr, std::vector<std::int64_t> shape,
                  std::string member = {}) {
    ArrayInFile out;
    out.name = std::move(name);
    out.member = std::move(member);
    out.type.dtype = parse_dtype_descr(descr);
    out.shape = std::move(shape);
    return out;
}

std::string usage_error(const std::vector<ArrayInFile>& arrays, const std::optional<std::string>& key) {
    return message_of(ErrorKind::Usage, [&] { select_array(arrays, key); });
}

}  // namespace

TEST_CASE("formats by content") {
    CHECK(format_of("\x93NUMPY\x01") == ContainerFormat::Npy);
    CHECK(format_of("PK\x03\x04rest") == ContainerFormat::Npz);
    CHECK(format_of(std::string("PK\x05\x06", 4) + std::string(18, '\0')) == ContainerFormat::Npz);
    CHECK(format_of(std::string("\x10\0\0\0\0\0\0\0{", 9)) == ContainerFormat::Safetensors);
    CHECK(format_of("") == ContainerFormat::Npy);
    CHECK(format_of("hello world") == ContainerFormat::Npy);
}

TEST_CASE("--key: by name, by member name, or none for one array") {
    const std::vector<ArrayInFile> npz = {array("weight", "'<f4'", {3}, "weight.npy"),
                                          array("bias", "'<f4'", {3}, "bias.npy"),
                                          array("weights_old", "'<f4'", {3}, "weights_old.npy")};
    CHECK(&select_array(npz, "bias") == &npz[1]);
    CHECK(&select_array(npz, "bias.npy") == &npz[1]);
    const std::string several = usage_error(npz, std::nullopt);
    CHECK(several == "the file holds 3 arrays; choose one with --key: 'weight', 'bias', 'weights_old'");
    const std::string typo = usage_error(npz, "wieght");
    CHECK(typo == "--key 'wieght': no such array; the file holds 'weight', 'bias', 'weights_old'");
    const std::vector<ArrayInFile> one = {array("x", "'<f4'", {3})};
    CHECK(&select_array(one, std::nullopt) == &one[0]);
    const std::vector<ArrayInFile> plain = {array(std::nullopt, "'<f4'", {3})};
    CHECK(&select_array(plain, std::nullopt) == &plain[0]);
    CHECK(usage_error(plain, "x").find("plain .npy") != std::string::npos);
    CHECK(thrown_by([] { select_array({}, std::nullopt); }).kind() == ErrorKind::Input);
    std::vector<ArrayInFile> many;
    for (int i = 0; i < 15; ++i) many.push_back(array("t" + std::to_string(i), "'<f4'", {1}));
    CHECK(usage_error(many, std::nullopt).find("and 5 more (--list shows all)") != std::string::npos);
}

TEST_CASE("--list and --list --json") {
    std::vector<ArrayInFile> arrays = {array("weight", "'<f4'", {3, 4}), array("b", "'|b1'", {}),
                                       array("h", "'<f2'", {7})};
    arrays[2].type = *safetensors_element_type("BF16");
    CHECK(format_array_list(arrays, false) ==
          "weight  <f4   (3, 4)\n"
          "b       |b1   ()\n"
          "h       BF16  (7,)\n");
    CHECK(format_array_list(arrays, true) ==
          R"([{"name": "weight", "dtype": "<f4", "shape": [3, 4]}, {"name": "b", "dtype": "|b1", "shape": []}, )"
          R"({"name": "h", "dtype": "BF16", "shape": [7]}])"
          "\n");
    const std::vector<ArrayInFile> plain = {array(std::nullopt, "'>i8'", {2})};
    CHECK(format_array_list(plain, false) == ">i8  (2,)\n");
    CHECK(format_array_list(plain, true) == R"([{"name": null, "dtype": ">i8", "shape": [2]}])"
                                            "\n");
    CHECK(format_array_list({}, true) == "[]\n");
}

TEST_CASE("--key several times and as a glob: the file's order, each array once") {
    const std::vector<ArrayInFile> arrays = {
        array("model.layers.0.w", "'<f4'", {3}, "model.layers.0.w.npy"),
        array("model.layers.0.b", "'<f4'", {3}, "model.layers.0.b.npy"),
        array("model.layers.10.w", "'<f4'", {3}, "model.layers.10.w.npy"),
        array("\xc3\xa9mbed", "'<f4'", {3}, "\xc3\xa9mbed.npy"),
        array("a[1]", "'<f4'", {3}, "a[1].npy"),
        array("head", "'<f4'", {3}, "head.npy")};
    const auto names = [&](const std::vector<std::string>& keys) {
        std::string out;
        for (const ArrayInFile* chosen : select_arrays(arrays, keys)) out += (out.empty() ? "" : " ") + *chosen->name;
        return out;
    };
    CHECK(names({"head", "model.layers.0.w"}) == "model.layers.0.w head");
    CHECK(names({"model.layers.0.*"}) == "model.layers.0.w model.layers.0.b");
    CHECK(names({"model.layers.?.w"}) == "model.layers.0.w");
    CHECK(names({"model.layers.*.w", "model.layers.0.w"}) == "model.layers.0.w model.layers.10.w");
    CHECK(names({"*"}).size() > 0);
    CHECK(select_arrays(arrays, {"*"}).size() == arrays.size());
    CHECK(names({"[!m]*"}) == "\xc3\xa9mbed a[1] head");
    // A character is a code point, as in Python: `?` and `[...]` take "é" whole.
    CHECK(names({"?mbed"}) == "\xc3\xa9mbed");
    CHECK(names({"[e\xc3\xa9]mbed"}) == "\xc3\xa9mbed");
    CHECK(names({"[a-h]ead"}) == "head");
    // A name is itself before it is a glob; a '[' without ']' is a plain '['.
    CHECK(names({"a[1]"}) == "a[1]");
    CHECK(names({"a[1*"}) == "a[1]");
    CHECK(names({"*.npy"}).size() > 0);  // member names match too
    CHECK(names({"model.layers.0.w.npy", "*.b"}) == "model.layers.0.w model.layers.0.b");
    const std::string none = message_of(ErrorKind::Usage, [&] { select_arrays(arrays, {"model.layer.*.x"}); });
    CHECK(none.find("--key 'model.layer.*.x': the pattern matches no array; the file holds 'model.layers.0.") == 0);
    CHECK(message_of(ErrorKind::Usage, [&] { select_arrays(arrays, {"head", "tail"}); })
              .find("--key 'tail': no such array; the file holds '") == 0);
    // One key that chooses several arrays is not one array.
    CHECK(message_of(ErrorKind::Usage, [&] { select_array(arrays, std::string("model.*")); }).find("chooses 3") !=
          std::string::npos);
}

TEST_CASE("formats tslice does not read are named by their signatures") {
    const auto format = [](const std::string& bytes, const std::vector<std::string>& members = {}) {
        return unread_format(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size(), members);
    };
    CHECK(format("", {"archive/data.pkl", "archive/data/0"}).find("a PyTorch checkpoint") == 0);
    CHECK(format("", {"a.npy", "b.npy"}).empty());
    CHECK(format("\x1f\x8b").find("a gzip file") == 0);
    CHECK(format("this is not a .npy file\n").empty());
    CHECK(format("").empty());
    CHECK(unread_directory_format("/nonexistent-directory").empty());
    CHECK(format("\x80\x04\x95").find("a Python pickle") == 0);
    const Error error = unread_format_error("a gzip file");
    CHECK(error.kind() == ErrorKind::Input);
    CHECK(std::string(error.what()).find(".npy files, .npz archives") != std::string::npos);
}
