// What the .npy tests share: headers and files built byte by byte, and a temporary directory.
#pragma once

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "thrown_error.hpp"
#include "tslice/npy.hpp"

namespace tslice_test {

namespace fs = std::filesystem;
using tslice::NpyHeader;
using tslice::parse_npy_header;

// magic + version + little-endian header length + header + data. `length` overrides the
// length field (to lie about it).
inline std::string npy_bytes(const std::string& header, int major = 1, const std::string& data = {},
                      std::optional<std::uint32_t> length = std::nullopt) {
    std::string out = "\x93NUMPY";
    out += static_cast<char>(major);
    out += '\0';
    const std::uint32_t value = length.value_or(static_cast<std::uint32_t>(header.size()));
    const int size = major == 1 ? 2 : 4;
    for (int k = 0; k < size; ++k) out += static_cast<char>((value >> (8 * k)) & 0xFF);
    return out + header + data;
}

// A numpy-style header dict padded with spaces and '\n' to `align` bytes.
inline std::string padded(const std::string& dict, int major = 1, std::size_t align = 64) {
    const std::size_t prefix = major == 1 ? 10 : 12;
    std::string header = dict;
    while ((prefix + header.size() + 1) % align != 0) header += ' ';
    return header + '\n';
}

inline std::string dict_for(const std::string& descr, const std::string& shape = "(3,)",
                     const std::string& fortran = "False") {
    return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}

inline NpyHeader parse(const std::string& bytes) {
    return parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
}

// The message of the input error that `action` throws; fails the test if it throws none.
inline std::string error_message(const std::function<void()>& action) { return tslice_test::input_error(action); }

inline std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string name = (fs::temp_directory_path() / "tslice-npy-test-XXXXXX").string();
        REQUIRE(::mkdtemp(name.data()) != nullptr);
        path = name;
    }
    ~TempDir() { fs::remove_all(path); }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(path)) names.push_back(entry.path().filename());
        return names;
    }
};

// Fills element i of a 4-byte dtype with the little-endian value i.
inline void fill_counting(std::byte* dst, std::int64_t first, std::int64_t count) {
    for (std::int64_t i = 0; i < count; ++i) {
        const auto value = static_cast<std::uint32_t>(first + i);
        for (int k = 0; k < 4; ++k) dst[4 * i + k] = static_cast<std::byte>((value >> (8 * k)) & 0xFF);
    }
}

}  // namespace tslice_test
