// What the tests of a whole run share (prepare, reports, run): small input files on disk.
#pragma once

#include <string>

#include "npy_fixture.hpp"
#include "zip_fixture.hpp"

namespace tslice_test {

// A .npy of `count` little-endian int32 values 0, 1, ... of `shape` (a Python tuple).
inline std::string npy_int32(int count, const std::string& shape) {
    std::string data;
    for (int i = 0; i < count; ++i) put_le(data, static_cast<std::uint32_t>(i), 4);
    return npy_bytes(padded(dict_for("'<i4'", shape)), 1, data);
}

// A temporary directory holding in.npy (int32 0..5 as (2, 3)) and two.npz (members a: int32
// 0..5 as (6,), b: int32 0..2 as (3,), b deflated).
struct RunFiles {
    TempDir dir;
    std::string npy = (dir.path / "in.npy").string();
    std::string npz = (dir.path / "two.npz").string();
    RunFiles() {
        write_file(npy, npy_int32(6, "(2, 3)"));
        write_file(npz, make_zip({{"a.npy", npy_counting(6)}, {"b.npy", npy_counting(3), true}}));
    }
};

}  // namespace tslice_test
