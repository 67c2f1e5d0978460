#!/usr/bin/python3
"""Command-line tests of tslice, one small text file per case in tests/cli/cases/.

    /usr/bin/python3 tests/cli/run_cli_tests.py build/tslice [CASE-NAME-SUBSTRING ...]

A case file holds directives, one a line, and text blocks:

    # a comment
    args: -o {tmp}/out.npy {data}/arange_2x3x4_f4.npy "[1:, ..., ::-1]"
    copy: {fix}/existing.npy {tmp}/out.npy   before the run (repeatable)
    mkdir: {tmp}/sub                         before the run (repeatable)
    stdin: {data}/scalar_f8.npy              bytes fed to standard input (default: none)
    exit: 0                                  the expected exit status (required)
    npy: {tmp}/out.npy = data('arange_2x3x4_f4.npy')[1:, ..., ::-1]
                                             a written .npy (`-` = standard output) must hold
                                             exactly the numpy value on the right: shape, dtype
                                             string, bytes; C order, data at a 64-byte boundary,
                                             version 1.0 unless the header needs 2.0
    unchanged: {tmp}/out.npy                 the file's bytes are the same as before the run
    tmp-files: a.npy out.npy                 the exact listing of {tmp} after the run
    stderr-contains: No such file            a fragment of standard error (repeatable); the
                                             whole of it must then be one line that starts
                                             with `tslice: error: `
    column: 2,3                              an expression error's caret column is one of these
    --- stdout                               exact standard output, up to the next `--- ` line
    --- stderr                               exact standard error
    --- stdout-regex                         standard output must match this regex (fullmatch,
                                             like stderr-regex below)
    --- stderr-regex                         standard error must match this regex (fullmatch;
                                             the block's lines joined by newlines, no final one)
    --- end                                  ends a block

Defaults are strict: standard output and standard error must be empty unless a block or
directive says otherwise, and {tmp} must hold after the run exactly what it held before
(plus the files named by `npy:`) unless `tmp-files:` says otherwise, so an error that
leaves an output or a temporary file behind fails.  Every error's standard error must
start with `tslice: error: `; one that reports a column must show the expression and a
caret under that column on the next two lines.

Placeholders: {tmp} a fresh empty directory per case (also the working directory),
{data} the repository's data/, {fix} inputs this runner makes with numpy (see
make_fixtures).  In `npy:` values, data(NAME) and fix(NAME) load those files.
The last line printed is `N passed, M failed`; the exit status is 1 if anything failed.
"""

import ast
import io
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import numpy.lib.recfunctions  # noqa: F401  (np.lib.recfunctions in npy: values)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
DATA = os.path.join(REPO, "data")


# --------------------------------------------------------------------------- fixtures


def npy_bytes(descr_text, body=b"", version=(1, 0)):
    """A hand-made .npy: `descr_text` is the header dict's text."""
    header = descr_text.encode("latin1")
    pre = 10 if version == (1, 0) else 12
    pad = (-(pre + len(header) + 1)) % 64
    header += b" " * pad + b"\n"
    if version == (1, 0):
        head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
    else:
        head = b"\x93NUMPY" + bytes(version) + struct.pack("<I", len(header))
    return head + header + body


def make_hdf5_zarr_fixtures(fix):
    """model.h5 (a group, a chunked gzip dataset, a variable-length string dataset) and two
    Zarr stores: group.zarr (an array inside a group) and filtered.zarr (a delta filter)."""
    import h5py
    import numcodecs
    import zarr

    with h5py.File(os.path.join(fix, "model.h5"), "w") as f:
        f.create_dataset("layers/w", data=np.arange(12, dtype=">f4").reshape(3, 4), chunks=(2, 2),
                         compression="gzip")
        f["names"] = np.array(["a", "bc"], dtype=h5py.string_dtype())
    # A user block before the superblock: the library finds the signature 512 bytes in.
    with h5py.File(os.path.join(fix, "user_block.h5"), "w", userblock_size=512) as f:
        f["x"] = np.arange(5, dtype="<i8")
    group = zarr.open_group(os.path.join(fix, "group.zarr"), mode="w")
    group.create_dataset("sub/x", data=np.arange(10, dtype="<i2"), chunks=(3,), compressor=numcodecs.Zstd())
    zarr.open_array(os.path.join(fix, "filtered.zarr"), mode="w", shape=(4,), chunks=(2,), dtype="<i4",
                    filters=[numcodecs.Delta("<i4")])[:] = np.arange(4)


def make_fixtures(fix):
    def save(name, arr, **kw):
        np.save(os.path.join(fix, name), arr, **kw)

    def write(name, data):
        with open(os.path.join(fix, name), "wb") as f:
            f.write(data)

    arange = np.arange(24, dtype="<f4").reshape(2, 3, 4)
    save("arange.npy", arange)
    save("ints_2x3.npy", np.arange(6, dtype="<i4").reshape(2, 3))
    save("bools_5.npy", np.array([True, False, True, True, False]))
    save("fortran_u2_3x4x2.npy", np.asfortranarray(np.arange(24, dtype="<u2").reshape(3, 4, 2) * 7))
    save("be_f8_2x3.npy", (np.arange(6, dtype=">f8") / 4).reshape(2, 3))
    save("c8_3.npy", np.array([1 + 2j, -0.5j, 3], dtype="<c8"))
    save("bytes_4_S5.npy", np.array([b"ab", b"", b"hello", b"x\x00y"], dtype="S5"))
    save("void_3_V4.npy", np.frombuffer(bytes(range(12)), dtype="V4"))
    save("nested_2x2.npy", np.zeros((2, 2), dtype=[("x", "<i4", (2,)), ("y", "S2"), ("z", ">f4")]) )
    # fields of every kind for field selection: a sub-array, another byte order, a nested record
    record = np.zeros(5, dtype=[("x", "<f4"), ("y", "<i2", (2, 3)), ("z", ">f8"), ("n", [("a", "u1"), ("b", "<i4")])])
    record["x"] = np.arange(5) / 2
    record["y"] = np.arange(30).reshape(5, 2, 3)
    record["z"] = -np.arange(5)
    record["n"]["b"] = np.arange(5) * 100
    save("record_5.npy", record)
    # a structured dtype with so many fields that the header needs format 2.0
    many = np.dtype([(f"field_number_{i:05d}", "<u1") for i in range(3000)])
    big = np.zeros(3, dtype=many)
    big.view(np.uint8)[:] = np.arange(big.nbytes, dtype=np.int64) % 251
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        save("bigheader_3.npy", big)
    with open(os.path.join(fix, "v2.npy"), "wb") as f, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Stored array in format 2.0"
        np.lib.format.write_array(f, arange, version=(2, 0))
    with open(os.path.join(fix, "v3.npy"), "wb") as f:
        np.lib.format.write_array(f, arange, version=(3, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Stored array in format 3.0"
        save("utf8_names_3.npy", np.array([(1, 2.5), (-3, 4.0), (5, -6.5)], dtype=[("é€", "<i2"), ("ß", "<f4")]))
    write("fortran_header_1d.npy", npy_bytes("{'descr': '<i2', 'fortran_order': True, 'shape': (4,), }",
                                             np.arange(4, dtype="<i2").tobytes()))
    write("fortran_header_0d.npy", npy_bytes("{'descr': '>i2', 'fortran_order': True, 'shape': (), }",
                                             np.array(7, dtype=">i2").tobytes()))
    save("object.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
    full = io.BytesIO()
    np.save(full, np.arange(100, dtype="<f8"))
    full = full.getvalue()
    write("truncated_data.npy", full[: len(full) - 720])
    write("truncated_header.npy", full[:40])
    write("zero_bytes.npy", b"")
    write("not_npy.txt", b"this is not a .npy file\n")
    write("bad_header.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,"))
    write("bad_descr.npy", npy_bytes("{'descr': '<q9', 'fortran_order': False, 'shape': (3,), }", b"\0" * 72))
    write("negative_shape.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }", b"\0" * 24))
    write("overflow_shape.npy",
          npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, 1099511627776), }",
                    b"\0" * 64))
    write("existing.npy", b"an existing file that must survive errors\n")
    # 128 MiB, sparse on disk: only the pages of column 5 are written. [..., 5] reads 1024 times
    # more input than it writes, so tslice copies its one chunk in pieces, releasing each.
    sparse = np.lib.format.open_memmap(os.path.join(fix, "sparse_32x1024x1024_f4.npy"), mode="w+", dtype="<f4",
                                       shape=(32, 1024, 1024))
    sparse[..., 5] = np.arange(32 * 1024, dtype="<f4").reshape(32, 1024) - 7.5
    del sparse
    os.mkdir(os.path.join(fix, "adir"))
    make_bad_input_fixtures(fix, write, full)
    make_container_fixtures(fix, write)


def make_container_fixtures(fix, write):
    """.npz and .safetensors inputs, good and broken in each way the contract names."""
    sys.path.insert(0, os.path.join(REPO, "tests", "differential"))
    import safetensors_writer as st
    import zipfile

    import safetensors_writer as st

    def npz(save, **arrays):
        out = io.BytesIO()
        save(out, **arrays)
        return out.getvalue()

    pair = {"weight": np.arange(6, dtype="<f4").reshape(2, 3), "bias": np.array([1, -2, 3], dtype=">i8")}
    stored = npz(np.savez, **pair)
    compressed = npz(np.savez_compressed, **pair)
    write("pair.npz", stored)
    write("pair_compressed.npz", compressed)
    write("pair_truncated.npz", stored[: len(stored) // 2])
    # A corrupt deflate stream, and a wrong CRC-32 in the central directory.
    info = zipfile.ZipFile(io.BytesIO(compressed)).getinfo("bias.npy")
    start = info.header_offset + 30 + len(info.filename) + struct.unpack("<H", compressed[info.header_offset + 28:
                                                                                     info.header_offset + 30])[0]
    bad = bytearray(compressed)
    bad[start] = 0xFF  # a reserved block type
    write("pair_corrupt_deflate.npz", bytes(bad))
    bad = bytearray(compressed)
    central = bad.rfind(b"PK\x01\x02")  # bias.npy's entry is the last one
    bad[central + 16] ^= 0xFF
    write("pair_bad_crc.npz", bytes(bad))

    make_hdf5_zarr_fixtures(fix)

    tensors = {
        "weight": np.arange(6, dtype="<f4").reshape(2, 3),
        "h": st.RawTensor("BF16", [3], bytes.fromhex("803f0040c03f")),  # 1, 2, 1.5
        "e4": st.RawTensor("F8_E4M3", [4], bytes([0x38, 0x7F, 0xB8, 0x01])),  # 1, nan, -1, 2**-9
        "e5": st.RawTensor("F8_E5M2", [3], bytes([0x3C, 0x7C, 0xFF])),  # 1, inf, nan
    }
    write("model.safetensors", st.dumps(tensors, metadata={"format": "pt"}))

    def raw_safetensors(header, data_size, length=None):
        text = header.encode()
        return struct.pack("<Q", len(text) if length is None else length) + text + bytes(data_size)

    write("st_offsets_past_end.safetensors",
          raw_safetensors('{"t":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}', 8))
    write("st_overlap.safetensors",
          raw_safetensors('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                          '"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', 12))
    write("st_size_mismatch.safetensors",
          raw_safetensors('{"t":{"dtype":"F64","shape":[2,2],"data_offsets":[0,16]}}', 16))
    write("st_unknown_dtype.safetensors",
          raw_safetensors('{"t":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}', 1))
    write("st_header_beyond_file.safetensors",
          raw_safetensors('{"t":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', 2, length=5000))
    write("st_header_over_100mb.safetensors",
          raw_safetensors('{"t":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', 2, length=100_000_001))
    make_checkpoint_fixtures(fix, write)


def make_checkpoint_fixtures(fix, write):
    """Containers with arrays tslice cannot read beside ones it can, and checkpoints to update."""
    import zipfile

    import safetensors_writer as st
    # An object member, a member that is not a .npy and a directory entry (as zip -r adds).
    np.savez(os.path.join(fix, "mixed.npz"), x=np.arange(6, dtype="<f8").reshape(2, 3),
             meta=np.array({"lr": 0.1}, dtype=object), w=np.arange(12, dtype="<i4").reshape(3, 4))
    with zipfile.ZipFile(os.path.join(fix, "mixed.npz"), "a") as archive:
        archive.writestr("meta.json", '{"lr": 0.1}')
        archive.writestr("d/", "")
    layers = {f"model.layers.{i}.{part}": np.arange(4 * (i + 1), dtype="<f4").reshape(i + 1, 4) + i
              for i in range(3) for part in ("w", "b")}
    np.savez(os.path.join(fix, "layers.npz"), **layers)
    np.savez_compressed(os.path.join(fix, "layers_deflated.npz"), **layers)
    write("layers.safetensors", st.dumps(layers, metadata={"format": "pt", "step": "7"}))
    # Every whole-byte dtype safetensors adds (C64, F8_E8M0) and ones tslice lists but does
    # not slice: the sub-byte F4/F6 and a name it does not know.
    header = {"__metadata__": {"format": "pt"},
              "c": {"dtype": "C64", "shape": [2], "data_offsets": [0, 16]},
              "e8": {"dtype": "F8_E8M0", "shape": [4], "data_offsets": [16, 20]},
              "f4": {"dtype": "F4", "shape": [2, 3], "data_offsets": [20, 23]},
              "f6": {"dtype": "F6_E2M3", "shape": [4], "data_offsets": [23, 26]},
              "q": {"dtype": "Q9", "shape": [5], "data_offsets": [26, 31]},
              "w": {"dtype": "F32", "shape": [2], "data_offsets": [32, 40]}}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    data = (np.array([1 + 2j, -3.5j], dtype="<c8").tobytes() + bytes([127, 128, 0, 255]) + bytes(11) + bytes(1) +
            np.array([0.5, -2], dtype="<f4").tobytes())
    write("dtypes.safetensors", struct.pack("<Q", len(text)) + text + data)
    # An encrypted member (its flag set, as an encrypting zip tool sets it) beside a plain one.
    plain = io.BytesIO()
    np.savez(plain, x=np.arange(3, dtype="<i2"), secret=np.arange(4, dtype="<i2"))
    locked = bytearray(plain.getvalue())
    central = locked.rfind(b"PK\x01\x02")  # secret.npy's entry is the last one
    local = int.from_bytes(locked[central + 42:central + 46], "little")
    locked[central + 8] |= 1
    locked[local + 6] |= 1
    write("encrypted_member.npz", bytes(locked))
    big_endian = np.array([1 + 2j, -3.5j, 7], dtype=">c8")
    np.save(os.path.join(fix, "be_c8.npy"), big_endian)
    write("be_c8.safetensors", st.dumps({"c": big_endian.astype("<c8")}))
    # Formats tslice does not read, each named by its error: the signatures they start with.
    write("legacy.pt", b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19" + bytes(50))
    write("data.gz", b"\x1f\x8b\x08\x00" + bytes(20))
    os.makedirs(os.path.join(fix, "v3.zarr"), exist_ok=True)
    write("v3.zarr/zarr.json", b'{"zarr_format": 3, "node_type": "group"}')


def make_bad_input_fixtures(fix, write, full):
    """The bad-input corpus: one file per way a .npy, an expression or a spec can
    be wrong, each used by a case named after it. `full` is a valid .npy of 100 float64."""
    def header(text, body=b"", version=(1, 0)):
        return npy_bytes(text, body, version)

    def spec(name, ops):
        with open(os.path.join(fix, name), "w", encoding="utf-8") as f:
            f.write(ops)

    f8x3 = b"\0" * 24
    ok = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
    # cut short: in the magic, in the version, in the header length field
    write("truncated_magic.npy", full[:4])
    write("truncated_version.npy", full[:7])
    write("truncated_length.npy", full[:9])
    write("wrong_magic.npy", b"\x93NUMPZ" + full[6:])
    zipped = io.BytesIO()
    np.savez(zipped, a=np.arange(3))
    write("archive.npz", zipped.getvalue())
    write("version_4_0.npy", full[:6] + b"\x04\x00" + full[8:])
    write("version_1_1.npy", full[:6] + b"\x01\x01" + full[8:])
    # a header length beyond the end of the file (1.0), and beyond any header tslice reads (2.0)
    write("header_length_past_end.npy", full[:8] + b"\xff\xff" + full[10:200])
    write("header_length_4gib.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\xff{'descr': '<f8'")
    # a well-formed header of 2 MiB: more than tslice reads (numpy reads 10000 bytes by default)
    write("header_2mib.npy", header(ok + " " * (2 << 20), f8x3, (2, 0)))
    # the header dict, broken in each way
    write("dict_missing_descr.npy", header("{'fortran_order': False, 'shape': (3,), }", f8x3))
    write("dict_missing_fortran_order.npy", header("{'descr': '<f8', 'shape': (3,), }", f8x3))
    write("dict_missing_shape.npy", header("{'descr': '<f8', 'fortran_order': False, }", f8x3))
    write("dict_extra_key.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'version': 1}", f8x3))
    write("dict_duplicate_key.npy", header("{'descr': '<f8', 'shape': (3,), 'fortran_order': False, 'shape': (3,)}", f8x3))
    write("dict_descr_not_dtype.npy", header("{'descr': 8, 'fortran_order': False, 'shape': (3,), }", f8x3))
    write("dict_fortran_order_not_bool.npy", header("{'descr': '<f8', 'fortran_order': 0, 'shape': (3,), }", f8x3))
    write("dict_shape_list.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': [3], }", f8x3))
    write("dict_shape_float.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (3.0,), }", f8x3))
    write("dict_shape_string.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': ('3',), }", f8x3))
    write("dict_unclosed_brace.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), ", f8x3))
    write("dict_extra_brace.npy", header(ok + "}", f8x3))
    write("dict_mismatched_bracket.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (3,}", f8x3))
    write("dict_not_a_dict.npy", header("['<f8', False, (3,)]", f8x3))
    write("dict_nul_byte.npy", header(ok + "\0", f8x3))
    # non-ASCII: numpy decodes 1.0 and 2.0 headers as Latin-1, so a byte 0xE9 in a field name
    # is the name 'é' (valid), while outside a string it is a syntax error; 3.0 is UTF-8
    latin1 = "{'descr': [('\xe9', '<i2')], 'fortran_order': False, 'shape': (3,), }"
    write("latin1_name_v1.npy", header(latin1, b"\x01\x00\x02\x00\x03\x00"))
    write("latin1_name_v2.npy", header(latin1, b"\x01\x00\x02\x00\x03\x00", (2, 0)))
    write("latin1_outside_string.npy", header(ok + "\xe9", f8x3))
    write("utf8_invalid_v3.npy", header(latin1, b"\x01\x00\x02\x00\x03\x00", (3, 0)))
    # dtypes: unknown kind, impossible size, empty, a sub-array as the whole dtype, objects
    write("descr_unknown_kind.npy", header("{'descr': '<x4', 'fortran_order': False, 'shape': (3,), }", b"\0" * 12))
    write("descr_bad_size.npy", header("{'descr': '<f3', 'fortran_order': False, 'shape': (3,), }", b"\0" * 9))
    write("descr_empty.npy", header("{'descr': '', 'fortran_order': False, 'shape': (3,), }", f8x3))
    write("descr_subarray.npy", header("{'descr': ('<f4', (2,)), 'fortran_order': False, 'shape': (3,), }", f8x3))
    write("descr_object_field.npy", header("{'descr': [('a', '<i4'), ('b', '|O')], 'fortran_order': False, "
                                           "'shape': (1,), }", b"\0" * 12))
    # shapes: a dimension beyond 64 bits, a byte size beyond 64 bits, more than 32 dimensions
    write("shape_dim_beyond_64_bits.npy", header("{'descr': '<f8', 'fortran_order': False, "
                                                 "'shape': (18446744073709551616,), }", f8x3))
    write("shape_bytes_overflow.npy", header("{'descr': '<f8', 'fortran_order': False, "
                                             "'shape': (2305843009213693952,), }", f8x3))
    write("shape_33_dims.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (" + "1, " * 33 + "), }",
                                      b"\0" * 8))
    write("shape_32_dims.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (" + "1, " * 31 + "2, ), }",
                                      np.array([1.5, -2], dtype="<f8").tobytes()))
    # zero-byte elements
    for name, descr in (("S0", "'|S0'"), ("V0", "'|V0'"), ("U0", "'<U0'"), ("no_fields", "[]"),
                        ("only_empty_field", "[('a', '|S0')]")):
        write(f"itemsize_zero_{name}.npy", header("{'descr': " + descr + ", 'fortran_order': False, 'shape': (3,), }"))

    # expressions and specs: huge, deeply nested, too long, with numbers beyond 64 bits
    spec("index_100000_items.json", json.dumps({"op": "index", "expr": ", ".join(["0"] * 100000)}))
    spec("index_list_100000.json", json.dumps({"op": "index", "expr": "[[" + ", ".join(["1"] * 100000) + "]]"}))
    spec("index_5000_brackets.json", json.dumps({"op": "index", "expr": "[" * 5000 + "0" + "]" * 5000}))
    spec("index_2mib.json", json.dumps({"op": "index", "expr": "0" + " " * (2 << 20)}))
    spec("ops_100001.json", json.dumps([{"op": "index", "expr": "..."}] * 100001))
    spec("ops_100000.json", json.dumps([{"op": "slice", "starts": [0], "ends": [5]}] * 100000))
    spec("strided_slice_100000_entries.json",
         json.dumps({"op": "strided_slice", "begin": [0] * 100000, "end": [1] * 100000}))
    spec("strided_slice_1000001_entries.json",
         json.dumps({"op": "strided_slice", "begin": [0] * 1000001, "end": [1] * 1000001}))
    spec("spec_5000_brackets.json", "[" * 5000 + "]" * 5000)
    spec("gather_1000_zeros.json", json.dumps({"op": "gather", "indices": [0] * 1000, "axis": 0}))
    # a gather that repeats a 1 MiB row 2^20 + 1 times: more than 2^40 elements
    spec("gather_output_over_limit.json", json.dumps({"op": "gather", "indices": [0] * ((1 << 20) + 1), "axis": 0}))
    # a gather from a gathered result of 1025 MiB, which would have to be held in memory
    spec("gather_of_gather_over_limit.json", json.dumps([{"op": "gather", "indices": [0] * 1025, "axis": 0},
                                                         {"op": "gather", "indices": [0], "axis": -1}]))
    save_quietly(os.path.join(fix, "row_1mib_u1.npy"), np.zeros((1, 1 << 20), dtype="u1"))
    save_quietly(os.path.join(fix, "float_indices.npy"), np.array([0.0, 1.0]))


def save_quietly(path, array):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.save(path, array)


# ------------------------------------------------------------------------------ cases


class CaseError(Exception):
    pass


def parse_case(path):
    case = {"mkdir": [], "copy": [], "npy": [], "unchanged": [], "stderr-contains": [], "blocks": {}}
    block = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        if line.startswith("--- "):
            name = line[4:].strip()
            if name == "end":
                block = None
                continue
            if name not in ("stdout", "stdout-regex", "stderr", "stderr-regex"):
                raise CaseError(f"{path}:{n}: unknown block {name!r}")
            block = name
            case["blocks"][block] = []
            continue
        if block is not None:
            case["blocks"][block].append(line)
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, val = line.partition(":")
        if not sep:
            raise CaseError(f"{path}:{n}: expected 'key: value', got {line!r}")
        key, val = key.strip(), val.strip()
        if key in ("mkdir", "copy", "npy", "unchanged", "stderr-contains"):
            case[key].append(val)
        elif key in ("args", "exit", "stdin", "tmp-files", "column"):
            if key in case:
                raise CaseError(f"{path}:{n}: {key} given twice")
            case[key] = val
        else:
            raise CaseError(f"{path}:{n}: unknown directive {key!r}")
    if "args" not in case or "exit" not in case:
        raise CaseError(f"{path}: 'args:' and 'exit:' are required")
    return case


def block_text(lines):
    return "".join(line + "\n" for line in lines)


def check_npy(data, expected):
    """Problems with .npy bytes that should hold `expected` (empty list if none)."""
    if data[:6] != b"\x93NUMPY":
        return [f"not a .npy (first bytes {data[:16]!r})"]
    major = data[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        off = 10 + hlen
    elif major in (2, 3):
        (hlen,) = struct.unpack("<I", data[8:12])
        off = 12 + hlen
    else:
        return [f"format version {major}.{data[7]}"]
    probs = []
    try:
        hdr = ast.literal_eval(data[off - hlen:off].decode("utf-8" if major >= 3 else "latin1"))
    except Exception as e:  # noqa: BLE001
        return [f"header does not parse: {e!r}"]
    # numpy's rule: 1.0 if the header fits, 2.0 if it is longer than 65535 bytes, 3.0 if it
    # is not latin-1 (UTF-8 field names). 1.0 and 2.0 headers are Latin-1 bytes, so a name
    # such as 'é' is one byte there, and only a 3.0 header can hold what Latin-1 cannot.
    try:
        data[off - hlen:off].decode("utf-8" if major >= 3 else "latin1").encode("latin1")
        needs_v3 = False
    except UnicodeError:
        needs_v3 = True
    want_version = (3, 0) if needs_v3 else (2, 0) if off - 10 > 65535 else (1, 0)
    if (major, data[7]) != want_version:
        probs.append(f"format version {major}.{data[7]}, expected {want_version[0]}.{want_version[1]} "
                     f"for a {hlen}-byte header")
    if off % 64:
        probs.append(f"data starts at byte {off}, not at a multiple of 64")
    if not isinstance(hdr, dict) or hdr.get("fortran_order") is not False:
        probs.append(f"header {hdr!r} is not C order")
        return probs
    want_descr = np.lib.format.dtype_to_descr(expected.dtype)
    if hdr.get("descr") != want_descr:
        probs.append(f"descr {hdr.get('descr')!r}, expected {want_descr!r}")
    if hdr.get("shape") != expected.shape:
        probs.append(f"shape {hdr.get('shape')!r}, expected {expected.shape!r}")
    if len(data) != off + expected.nbytes:
        probs.append(f"{len(data)} bytes, expected {off} + {expected.nbytes}")
    if probs:
        return probs
    got = np.load(io.BytesIO(data), allow_pickle=False, max_header_size=1 << 20)
    if got.dtype.str != expected.dtype.str or got.dtype != expected.dtype:
        probs.append(f"dtype {got.dtype!r}, expected {expected.dtype!r}")
    if got.tobytes() != np.ascontiguousarray(expected).tobytes():
        probs.append(f"values differ:\n      got      {got!r}\n      expected {expected!r}")
    return probs


CARET_RE = re.compile(r" \(column (\d+)\)$")
# {repeat:N:TEXT} in a case's arguments is TEXT written N times (TEXT without '}'), for
# expressions too long to write out: {repeat:5000:[} is 5000 opening brackets.
REPEAT_RE = re.compile(r"\{repeat:(\d+):([^}]*)\}")


def spec_files_text(args):
    """The strings inside the JSON of the `--op @FILE` arguments (those that parse)."""
    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)
        elif isinstance(value, dict):
            for item in value.values():
                yield from strings(item)

    texts = []
    for a, b in zip(args, args[1:]):
        if a == "--op" and b.startswith("@") and os.path.isfile(b[1:]):
            try:
                with open(b[1:], encoding="utf-8") as f:
                    texts.extend(strings(json.load(f)))
            except (ValueError, RecursionError):
                pass
    return texts


def check_case(tslice, path, fix):
    case = parse_case(path)
    probs = []
    with tempfile.TemporaryDirectory(prefix="tslice-cli-") as tmp:
        def sub(s):
            s = REPEAT_RE.sub(lambda m: m.group(2) * int(m.group(1)), s)
            return s.replace("{tmp}", tmp).replace("{data}", DATA).replace("{fix}", fix)

        def load(base):
            def f(name):
                p = os.path.join(base, name)
                if not os.path.exists(p):
                    raise CaseError(f"input {p} does not exist")
                return np.load(p, allow_pickle=False, max_header_size=1 << 20)
            return f

        for m in case["mkdir"]:
            os.makedirs(sub(m))
        for c in case["copy"]:
            src, dst = shlex.split(sub(c))
            if not os.path.exists(src):
                raise CaseError(f"copy: {src} does not exist")
            shutil.copyfile(src, dst)
        args = [sub(a) for a in shlex.split(case["args"])]
        for a in args:
            if a.startswith(DATA) and not os.path.exists(a):
                raise CaseError(f"data file {a} does not exist")
        before = {}
        for u in case["unchanged"]:
            with open(sub(u), "rb") as f:
                before[sub(u)] = f.read()
        listing_before = sorted(os.listdir(tmp))
        stdin = b""
        if "stdin" in case:
            with open(sub(case["stdin"]), "rb") as f:
                stdin = f.read()

        try:
            res = subprocess.run([tslice] + args, input=stdin, capture_output=True, cwd=tmp, timeout=60)
        except subprocess.TimeoutExpired:
            return ["timed out after 60 s"], case
        out, err = res.stdout, res.stderr
        try:
            err_text = err.decode("utf-8")
        except UnicodeDecodeError:
            err_text = None
            probs.append(f"stderr is not UTF-8: {err!r}")

        want_exit = int(case["exit"])
        if res.returncode != want_exit:
            probs.append(f"exit {res.returncode}, expected {want_exit}")

        # standard output
        stdout_npy = [n for n in case["npy"] if n.split("=", 1)[0].strip() == "-"]
        if "stdout" in case["blocks"]:
            want = block_text(case["blocks"]["stdout"])
            if out != want.encode("utf-8"):
                probs.append(f"stdout differs:\n      got      {out.decode('utf-8', 'replace')!r}\n"
                             f"      expected {want!r}")
        elif "stdout-regex" in case["blocks"]:
            rx = "\n".join(case["blocks"]["stdout-regex"])
            if not re.fullmatch(rx, out.decode("utf-8", "replace"), re.S):
                probs.append(f"stdout {out[:300]!r} does not match {rx!r}")
        elif not stdout_npy and out:
            probs.append(f"stdout should be empty, got {out[:300]!r}")

        # standard error
        if err_text is not None:
            if "stderr" in case["blocks"]:
                want = block_text(case["blocks"]["stderr"])
                if err_text != want:
                    probs.append(f"stderr differs:\n      got      {err_text!r}\n      expected {want!r}")
            if "stderr-regex" in case["blocks"]:
                rx = "\n".join(case["blocks"]["stderr-regex"])
                if not re.fullmatch(rx, err_text, re.S):
                    probs.append(f"stderr {err_text!r} does not match {rx!r}")
            for frag in case["stderr-contains"]:
                if frag not in err_text:
                    probs.append(f"stderr {err_text!r} does not contain {frag!r}")
            if case["stderr-contains"] and err_text.count("\n") != 1:
                probs.append(f"stderr should be one line, got {err_text!r}")
            if not (case["blocks"].keys() & {"stderr", "stderr-regex"}) and not case["stderr-contains"] and err_text:
                probs.append(f"stderr should be empty, got {err_text!r}")
            if res.returncode != 0 and not err_text.startswith("tslice: error: "):
                probs.append(f"stderr does not start with 'tslice: error: ': {err_text!r}")
            # an error with a column shows the expression and a caret under that column
            lines = err_text.split("\n")
            m = CARET_RE.search(lines[0]) if lines else None
            if m:
                col = int(m.group(1))
                if len(lines) != 4 or lines[3] != "" or not lines[1].startswith("  ") \
                        or lines[2] != "  " + " " * (col - 1) + "^":
                    probs.append(f"stderr {err_text!r} is not: message (column {col}), "
                                 f"'  ' + the expression, '  ' + a caret under column {col}")
                elif args and not any(lines[1][2:] in arg for arg in args + spec_files_text(args)):
                    # the expression as given: an argument, or inside a JSON spec (also one
                    # given as --op @FILE)
                    probs.append(f"stderr shows {lines[1][2:]!r}, not the expression as given")
            if "column" in case:
                allowed = [int(c) for c in case["column"].split(",")]
                if not m:
                    probs.append(f"stderr {err_text!r} reports no column")
                elif int(m.group(1)) not in allowed:
                    probs.append(f"caret at column {m.group(1)}, expected "
                                 f"{' or '.join(map(str, allowed))}")

        # files
        for spec in case["npy"]:
            where, sep, expr = spec.partition("=")
            if not sep:
                raise CaseError(f"npy: needs 'PATH = numpy expression': {spec!r}")
            where = sub(where.strip())
            expected = eval(expr, {"np": np, "data": load(DATA), "fix": load(fix)})  # noqa: S307
            expected = np.asarray(expected)
            if where == "-":
                data = out
            elif not os.path.exists(where):
                probs.append(f"{where} was not written")
                continue
            else:
                with open(where, "rb") as f:
                    data = f.read()
            for p in check_npy(data, expected):
                probs.append(f"{'stdout' if where == '-' else os.path.basename(where)}: {p}")
        for p, b in before.items():
            if not os.path.exists(p):
                probs.append(f"{p} was removed")
            else:
                with open(p, "rb") as f:
                    if f.read() != b:
                        probs.append(f"{os.path.basename(p)} was changed")
        listing = sorted(os.listdir(tmp))
        if "tmp-files" in case:
            want = sorted(case["tmp-files"].split())
        else:
            want = sorted(set(listing_before) | {os.path.basename(sub(n.split("=", 1)[0].strip()))
                                                 for n in case["npy"] if n.split("=", 1)[0].strip() != "-"})
        if listing != want:
            probs.append(f"the temp directory holds {listing}, expected {want}")
    return probs, case


def main():
    if len(sys.argv) < 2:
        print("usage: run_cli_tests.py TSLICE [NAME-SUBSTRING ...]")
        print("0 passed, 1 failed")
        return 2
    tslice = os.path.abspath(sys.argv[1])
    filters = sys.argv[2:]
    if not os.path.isfile(tslice):
        print(f"no tslice executable at {tslice}")
        print("0 passed, 1 failed")
        return 1
    names = sorted(n for n in os.listdir(CASES) if n.endswith(".txt"))
    if filters:
        names = [n for n in names if any(f in n for f in filters)]
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="tslice-fix-") as fix:
        make_fixtures(fix)
        for name in names:
            path = os.path.join(CASES, name)
            try:
                probs, case = check_case(tslice, path, fix)
            except CaseError as e:
                probs, case = [f"broken case: {e}"], None
            except Exception as e:  # noqa: BLE001
                probs, case = [f"runner error: {e!r}"], None
            if probs:
                failed += 1
                print(f"FAIL {name}")
                if case:
                    print(f"    tslice {case['args']}" + (f"  < {case['stdin']}" if "stdin" in case else ""))
                for p in probs:
                    print("    " + p)
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
