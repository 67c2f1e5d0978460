#!/usr/bin/python3
"""Writes the small sample .npy files in data/, each named by what it exercises.

Run with an interpreter that has numpy (on Debian: /usr/bin/python3). The content is fixed
(no randomness), so running it again gives the same bytes.
"""
import os
import sys

import numpy as np


def samples():
    yield "arange_2x3x4_f4.npy", np.arange(24, dtype="<f4").reshape(2, 3, 4)
    # np.save keeps Fortran order for an F-contiguous array: fortran_order True in the header.
    yield "fortran_3x4_i8.npy", np.asfortranarray(np.arange(12, dtype="<i8").reshape(3, 4))
    yield "bigendian_5_i4.npy", np.array([1, -2, 300, -40000, 2**31 - 1], dtype=">i4")
    yield "strings_4_U3.npy", np.array(["a", "bc", "def", "é€"], dtype="<U3")
    yield "structured_3.npy", np.array(
        [(1, 0.5), (-2, 1.25), (3, -2.0)], dtype=[("x", "<i4"), ("y", "<f8")])
    yield "scalar_f8.npy", np.array(3.25, dtype="<f8")
    yield "empty_0x3_f4.npy", np.zeros((0, 3), dtype="<f4")
    # An RGB-like gradient: red along x, green along y, blue their mix.
    y, x = np.mgrid[0:8, 0:8]
    image = np.stack([x * 32 + 16, y * 32 + 16, (x + y) * 16], axis=-1).astype("|u1")
    yield "image_8x8x3_u1.npy", image


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = os.path.join(root, "data")
    os.makedirs(out_dir, exist_ok=True)
    for name, array in samples():
        path = os.path.join(out_dir, name)
        np.save(path, array)
        print(f"{path}: shape {array.shape}, dtype {array.dtype.str if array.dtype.names is None else array.dtype.descr}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
