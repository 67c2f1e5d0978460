#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/.

    /usr/bin/python3 tests/fuzz/make_seeds.py

The seeds are committed; this script says where they came from and makes them again (the
same bytes every time). Each is small and named by what it exercises. Inputs the fuzzer
found later, and past crashes, go to tests/fuzz/regressions/<target>/ by hand.
"""
import io
import os
import random
import struct
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    directory = os.path.join(HERE, "corpus", target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


EXPRESSIONS = {
    "readme_slice": "[1:, ..., ::-1]",
    "no_brackets": "0, None, -1",
    "lists_nested": "[[0, 2], ..., [[1], [0]]]",
    "lists_adjacent": "[:, [0, 1], [1, 2]]",
    "lists_apart": "[[0, 1], :, [1, 2]]",
    "list_and_int": "[:, [0, 1], 0]",
    "list_empty": "[[]]",
    "list_ragged": "[[0, 1], [2]]",
    "list_bool": "[[True, False]]",
    "mask_2d": "[:, [[True, False], [False, True]], None]",
    "bool_scalars": "[..., True, None, False]",
    "bools_and_ints": "[[True, 0, 2]]",
    "field": "['x']",
    "field_list": "[['z', \"x\", 'caf\\xe9']]",
    "field_chained": "[1:]['y'][::-1]",
    "chained": "[0][::2][[1, 0]]",
    "empty_tuple_chained": "[()][ ... ]",
    "step_int64_min": "[::-9223372036854775808]",
    "bound_beyond_64_bits": "[99999999999999999999:-99999999999999999999]",
    "int_beyond_64_bits": "[18446744073709551616]",
    "prefixes_and_separators": "0x1f, 0o7, 0b1_0, 1_000",
    "leading_zero": "[05]",
    "newaxis_spellings": "np.newaxis, numpy.newaxis, newaxis, None, Ellipsis",
    "empty": "",
    "empty_brackets": "[]",
    "empty_tuple": "()",
    "four_parts": "[1:2:3:4]",
    "two_ellipses": "..., ...",
    "step_zero": "[::0]",
    "trailing_comma": " [ 1 , ] ",
    "reverse_strided": "[-1:-10:-2, 3]",
    "signs": "[--1, +-2:-+-3]",
    "float": "[1.5]",
    "unicode": "[1:\u00e9]",
    "unmatched_open": "[[0, 1]",
    "unmatched_close": "0]",
    "deep_list": "[" * 40 + "0" + "]" * 40,
    "many_items": ", ".join(["0"] * 300),
    "long_list": "[[" + ", ".join(str(i % 7 - 3) for i in range(500)) + "]]",
}

JSON_OPS = {
    "strided_slice": '{"op": "strided_slice", "begin": [1, 0], "end": [2, 3], "strides": [1, -1], "end_mask": 2}',
    "strided_slice_masks_lists": '{"op": "StridedSlice", "begin": [0, 1, 0], "end": [0, 2, 0], "stride": [1, 1, 1], '
                                 '"begin_mask": [1, 0, 1], "end_mask": [1], "new_axis_mask": [0, 0, 0, 1], '
                                 '"shrink_axis_mask": [0, 1], "ellipsis_mask": [0, 0, 1]}',
    "strided_slice_ellipsis": '{"op": "strided_slice", "begin": [0, 0], "end": [0, 1], "ellipsis_mask": 1, '
                              '"shrink_axis_mask": 2}',
    "slice_onnx": '{"op": "slice", "starts": [-1, 1], "ends": [-9223372036854775808, 3], "axes": [2, 1], '
                  '"steps": [-2, 1]}',
    "slice_int64_max": '{"op": "Slice", "starts": [0], "ends": [9223372036854775807]}',
    "slice1": '{"op": "slice1", "offsets": [0, 1, 0], "sizes": [2, 2, 4], "strides": [1, 1, -2]}',
    "slice1_output_sizes": '{"op": "DML_SLICE1", "offsets": [0, 0, 1], "sizes": [2, 3, 3], "strides": [1, 2, 1], '
                           '"output_sizes": [1, 2, 2]}',
    "gather": '{"op": "gather", "indices": [2, 0, 5], "axis": -1}',
    "gather_batch": '{"op": "Gather", "indices": [[0, 1], [2, 0]], "axis": 1, "batch_dims": 1}',
    "gather_scalar": '{"op": "gather", "indices": -1, "axis": 0}',
    "gather_file": '{"op": "gather", "indices": "indices.npy", "axis": 0}',
    "index": '{"op": "index", "expr": "[1:, ..., ::-1]"}',
    "index_lists": '{"op": "index", "expr": "[[0, 1], ..., [0]]"}',
    "chain": '[{"op": "index", "expr": "[0]"}, {"op": "Slice", "starts": [1], "ends": [3]}]',
    "chain_gathers": '[{"op": "gather", "indices": [[1, 0], [0, 1]], "axis": 0}, '
                     '{"op": "gather", "indices": [1, 1, 0], "axis": -1}, {"op": "index", "expr": "[..., ::-1]"}]',
    "empty_list": "[]",
    "number_beyond_64_bits": '{"op": "slice", "starts": [18446744073709551616], "ends": [1]}',
    "float": '{"op": "slice", "starts": [1.5], "ends": [2]}',
    "unknown_op": '{"op": "reshape", "shape": [2]}',
    "unknown_field": '{"op": "slice", "starts": [0], "ends": [1], "axis": [0]}',
    "duplicate_field": '{"op": "slice", "starts": [0], "starts": [1], "ends": [1]}',
    "missing_field": '{"op": "slice1", "offsets": [0]}',
    "truncated": '{"op": "slice", "starts": [0',
    "deep": "[" * 70 + "]" * 70,
    "not_an_object": '"slice"',
    "strided_slice_many_entries": '{"op": "strided_slice", "begin": [' + ", ".join(["0"] * 70) + '], "end": [' +
                                  ", ".join(["1"] * 70) + '], "begin_mask": [' + ", ".join(["1"] * 70) + "]}",
}


def npy(array, version=None):
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if version:
            np.lib.format.write_array(buffer, array, version=version)
        else:
            np.save(buffer, array)
    return buffer.getvalue()


def handmade(header, body=b"", version=(1, 0)):
    data = header.encode("latin1")
    prefix = 10 if version == (1, 0) else 12
    data += b" " * ((-(prefix + len(data) + 1)) % 64) + b"\n"
    length = struct.pack("<H" if version == (1, 0) else "<I", len(data))
    return b"\x93NUMPY" + bytes(version) + length + data + body


def npy_seeds():
    arange = np.arange(24, dtype="<f4").reshape(2, 3, 4)
    seeds = {
        "f4_2x3x4": npy(arange),
        "f8_bigendian": npy(np.arange(6, dtype=">f8").reshape(2, 3) / 4),
        "fortran_u2": npy(np.asfortranarray(np.arange(12, dtype="<u2").reshape(3, 4))),
        "bool": npy(np.array([True, False, True])),
        "c16": npy(np.array([1 + 2j, -0.5j], dtype="<c16")),
        "f2": npy(np.array([0.5, -2, 65504, np.inf], dtype="<f2")),
        "f16_longdouble": npy(np.array([1.5, -3.25], dtype=np.longdouble)),
        "bytes_S5": npy(np.array([b"ab", b"", b"hello"], dtype="S5")),
        "unicode_U3": npy(np.array(["a\u00e9", "\u20ac", ""], dtype="<U3")),
        "void_V4": npy(np.frombuffer(bytes(range(8)), dtype="V4")),
        "datetime": npy(np.array(["2020-01-01", "NaT"], dtype="<M8[D]")),
        "timedelta": npy(np.array([1, -2], dtype="<m8[ns]")),
        "structured_nested": npy(np.zeros((2,), dtype=[("x", "<i4", (2,)), ("y", "S2"), ("z", [("a", ">f4")])])),
        "structured_titles": npy(np.zeros(1, dtype=np.dtype({"names": ["a"], "formats": ["<i2"], "titles": ["t"]}))),
        "structured_padding": npy(np.zeros(2, dtype=np.dtype({"names": ["a", "b"], "formats": ["u1", "<i4"],
                                                              "offsets": [0, 4], "itemsize": 12}))),
        "scalar_0d": npy(np.array(7.5, dtype="<f8")),
        "empty_0x3": npy(np.zeros((0, 3), dtype="<i8")),
        "version_2": npy(arange, version=(2, 0)),
        "version_3_utf8": npy(np.zeros(2, dtype=[("\u00e9\u20ac", "<i2")]), version=(3, 0)),
        "python2_style": handmade("{'descr': u'<i2', 'fortran_order': False, 'shape': (2L,), }", b"\x01\x00\x02\x00"),
        "reordered_keys": handmade("{'shape': (2,), 'fortran_order': False, 'descr': '|u1'}", b"\x01\x02"),
        "object": handmade("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8),
        "negative_dim": handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (-3,), }", b"\0" * 24),
        "overflow_shape": handmade("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"),
        "zero_itemsize": handmade("{'descr': '|S0', 'fortran_order': False, 'shape': (3,), }"),
        "truncated_data": npy(np.arange(10, dtype="<i4"))[:-5],
        "truncated_header": npy(arange)[:40],
        "truncated_magic": b"\x93NUM",
        "wrong_magic": b"\x93NUMPZ\x01\x00" + npy(arange)[8:],
        "version_9": b"\x93NUMPY\x09\x00" + npy(arange)[8:],
        "length_past_end": b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'",
        "missing_key": handmade("{'descr': '<f4', 'fortran_order': False}"),
        "extra_key": handmade("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", b"\0" * 4),
        "wrong_types": handmade("{'descr': 4, 'fortran_order': 'no', 'shape': [2]}"),
        "unbalanced": handmade("{'descr': '<f4', 'fortran_order': False, 'shape': ((2,), }"),
        "latin1_name": handmade("{'descr': [('\xe9', '<i2')], 'fortran_order': False, 'shape': (1,), }", b"\0\0"),
        "deep_descr": handmade("{'descr': " + "[('a', " * 30 + "'<i2'" + ")]" * 30 + ", 'fortran_order': False, "
                               "'shape': (1,), }", b"\0\0"),
        "empty": b"",
    }
    for name, data in seeds.items():
        write("fuzz_npy_header", name, data)
    return seeds


def npz_bytes(save, **arrays):
    # np.savez stamps members with the current time; a fixed one keeps the seeds' bytes.
    import time
    import zipfile
    from unittest import mock
    out = io.BytesIO()
    with mock.patch.object(zipfile.time, "localtime", lambda *_: time.struct_time((1980, 1, 1, 0, 0, 0, 1, 1, 0))):
        save(out, **arrays)
    return out.getvalue()


def zip_seeds():
    import zipfile
    small = np.arange(6, dtype="<i4").reshape(2, 3)
    seeds = {
        "savez_two": npz_bytes(np.savez, a=small, b=np.array([1.5, -2.0])),
        "savez_compressed_two": npz_bytes(np.savez_compressed, a=small, b=np.zeros((3, 4), ">f8")),
        "savez_empty": npz_bytes(np.savez),
        "savez_scalar_bool": npz_bytes(np.savez, flag=np.array(True)),
    }
    # zip64 records and extra fields, as zipfile writes them for members over 2 GiB.
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array, method in (("x.npy", small, zipfile.ZIP_STORED), ("y.npy", small, zipfile.ZIP_DEFLATED)):
            buffer = io.BytesIO()
            np.save(buffer, array)
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            with archive.open(info, "w", force_zip64=True) as member:
                member.write(buffer.getvalue())
    seeds["zip64_stored_and_deflated"] = out.getvalue()
    # Members tslice lists but does not read, beside one it reads: an object array, a member
    # that is not a .npy, a directory entry (zip -r adds them).
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data, method in (("x.npy", npy(small), zipfile.ZIP_STORED),
                                   ("meta.npy", npy(np.array([{"lr": 0.1}], dtype=object)), zipfile.ZIP_STORED),
                                   ("meta.json", b'{"lr": 0.1}', zipfile.ZIP_DEFLATED), ("notes/", b"", zipfile.ZIP_STORED)):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            archive.writestr(info, data)
    seeds["unreadable_members_beside_one"] = out.getvalue()
    # A stub in front of the archive shifts every offset.
    seeds["prepended_stub"] = b"#!/bin/sh\nexit 0\n" + seeds["savez_two"]
    for name, data in seeds.items():
        write("fuzz_zip_directory", name, data)
    return seeds


def safetensors_seeds():
    import sys
    sys.path.insert(0, os.path.join(HERE, "..", "differential"))
    import safetensors_writer as st
    seeds = {
        "two_tensors": st.dumps({"weight": np.arange(6, dtype="<f4").reshape(2, 3), "bias": np.array([1, 2], "<i8")}),
        "metadata": st.dumps({"x": np.array([True, False])}, metadata={"format": "pt"}),
        "bf16_f8": st.dumps({"h": st.RawTensor("BF16", [2], b"\x80\x3f\x00\x40"),
                             "e": st.RawTensor("F8_E4M3", [3], b"\x38\x7f\x01"),
                             "m": st.RawTensor("F8_E5M2", [1], b"\x3c")}),
        "empty_tensor": st.dumps({"z": np.zeros((0, 5), "<u2")}),
        "scalar": st.dumps({"s": np.array(3.5, "<f8")}),
        "no_tensors": st.dumps({}),
        "overlap": b"",
    }
    header = b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}'
    seeds["overlap"] = struct.pack("<Q", len(header)) + header + bytes(12)
    # C64 and F8_E8M0 beside dtypes tslice lists but does not slice (sub-byte, unknown).
    header = (b'{"__metadata__":{"format":"pt"},"c":{"dtype":"C64","shape":[2],"data_offsets":[0,16]},'
              b'"e":{"dtype":"F8_E8M0","shape":[4],"data_offsets":[16,20]},'
              b'"f":{"dtype":"F4","shape":[2,3],"data_offsets":[20,23]},'
              b'"g":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[23,26]},'
              b'"q":{"dtype":"Q9","shape":[5],"data_offsets":[26,31]}}')
    header += b" " * (-len(header) % 8)
    seeds["c64_e8m0_subbyte_unknown"] = struct.pack("<Q", len(header)) + header + bytes(range(31))
    for name, data in seeds.items():
        write("fuzz_safetensors_header", name, data)
    return seeds


def torch_seeds():
    """torch.save files, written by torch itself (python3-torch): a module's state_dict, views
    sharing storages, every dtype, nested containers, and a legacy save."""
    import torch
    torch.manual_seed(0)
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    objects = {
        "linear_state_dict": torch.nn.Linear(3, 2).state_dict(),
        "shared_views": {"a": base, "t": base.t(), "s": base[1:3, ::2], "e": torch.ones(1, 3).expand(2, 3)},
        "dtypes": {"f64": torch.zeros(2, dtype=torch.float64), "f16": torch.ones(3).half(),
                   "bf16": torch.ones(2).bfloat16(), "i8": torch.arange(3, dtype=torch.int8),
                   "b": torch.tensor([True, False]), "c": torch.ones(2, dtype=torch.complex64)},
        "nested": {"model": {"w": base[0]}, "list": [torch.ones(2), (3, "x", {0: torch.zeros(1)})], "epoch": 2},
    }
    seeds = {}
    for name, obj in objects.items():
        buffer = io.BytesIO()
        torch.save(obj, buffer)
        seeds[name] = buffer.getvalue()
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buffer, _use_new_zipfile_serialization=False)
    # Its first pickles (magic number, protocol, system info); what follows names storages by
    # their address, different on every run.
    seeds["legacy"] = buffer.getvalue()[:buffer.getvalue().index(b"storage")]
    for name, data in seeds.items():
        write("fuzz_torch_checkpoint", name, data)
    return seeds


def gguf_seeds():
    """GGUF files from the tests' writer: every metadata value type, plain and quantized
    tensors, an alignment of 64."""
    import sys
    sys.path.insert(0, os.path.join(HERE, "..", "differential"))
    import gguf_writer as gw
    rng = np.random.default_rng(7)
    meta = [("general.architecture", gw.STRING, "llama"), ("u8", gw.U8, 1), ("i64", gw.I64, -5),
            ("f32", gw.F32, 0.5), ("bool", gw.BOOL, True),
            ("tokens", gw.ARRAY, (gw.STRING, ["a", "bc"])), ("nested", gw.ARRAY, (gw.ARRAY, [(gw.I32, [1, 2])]))]
    tensors = [("f32", "F32", [2, 3], np.arange(6, dtype="<f4").tobytes()),
               ("bf16", "BF16", [4], bytes(8)), ("i16", "I16", [2, 2], bytes(8))]
    tensors += [(t.lower(), t, [2, 32], gw.random_blocks(rng, t, 2)) for t in ("Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1")]
    tensors.append(("q4_k", "Q4_K", [256], gw.random_blocks(rng, "Q4_K", 1)))
    seeds = {}
    for name, version, alignment in (("v3", 3, None), ("v2_aligned_64", 2, 64)):
        path = os.path.join(HERE, "corpus", "fuzz_gguf", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        gw.write(path, meta, tensors, version=version, alignment=alignment)
        with open(path, "rb") as f:
            seeds[name] = f.read()
    for name, data in seeds.items():
        write("fuzz_gguf", name, data)
    return seeds


# The JSON reading path (op specs, safetensors headers): every kind of value, the escapes and
# UTF-8 it decodes, nesting, and a syntax error.
JSON_TEXTS = {
    "safetensors_header": b'{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"__metadata__":{"format":"pt"}}',
    "every_kind": b'[1, -0.5e+3, true, false, null, "\\u00e9\\ud83d\\ude00\\n", {"x": []}]',
    "utf8": '"\u00e9\u20ac\U0001f600"'.encode(),
    "nested": b"[[[[[[[[[[1]]]]]]]]]]",
    "broken": b'{"a": [1, 2,, 3]}',
}


def hostile_seeds():
    """Files made to break a reader: each a reproducer of a defect found by an adversarial pass,
    written to the corpora of every target that reads its kind of input."""
    import zipfile

    def zip_of(members, method=zipfile.ZIP_STORED, utf8_names=()):
        out = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # duplicate names
            with zipfile.ZipFile(out, "w") as archive:
                for name, data in members:
                    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                    info.compress_type = method
                    archive.writestr(info, data)
        data = bytearray(out.getvalue())
        # Names given as bytes: the placeholder's bytes replaced in both headers, the UTF-8
        # flag set, whatever the bytes are.
        for placeholder, raw in utf8_names:
            for signature, flag_at, name_at in ((b"PK\x03\x04", 6, 30), (b"PK\x01\x02", 8, 46)):
                at = data.find(signature + b"")
                while at >= 0:
                    if data[at + name_at:at + name_at + len(placeholder)] == placeholder:
                        data[at + name_at:at + name_at + len(raw)] = raw
                        data[at + flag_at + 1] |= 0x08
                    at = data.find(signature, at + 4)
        return bytes(data)

    def npy_of(array):
        buffer = io.BytesIO()
        np.save(buffer, array)
        return buffer.getvalue()

    def safetensors_of(header):
        return struct.pack("<Q", len(header)) + header

    small, other = npy_of(np.arange(3, dtype="<i4")), npy_of(np.arange(5.0))
    bad_crc = bytearray(zip_of([("a.npy", small)]))
    bad_crc[bad_crc.find(small) + len(small) - 2] ^= 0x01
    zero_huge_npy = handmade("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 9223372036854775807), }")
    zips = {
        "duplicate_member": zip_of([("a.npy", small), ("a.npy", other)]),
        "duplicate_member_deflated": zip_of([("a.npy", small), ("b.npy", small), ("a.npy", other)],
                                            zipfile.ZIP_DEFLATED),
        "member_and_member_npy": zip_of([("a.npy", small), ("a", other)]),
        "stored_member_bad_crc": bytes(bad_crc),
        "newline_in_name": zip_of([("line\nbreak.npy", small)]),
        "name_not_utf8": zip_of([("XXXX.npy", small)], utf8_names=[(b"XXXX", b"ba\xff\xfe")]),
        "member_zero_and_huge_axis": zip_of([("z.npy", zero_huge_npy)]),
    }
    sts = {
        "header_deep": safetensors_of(b'{"a":' + b"[" * 200),
        "header_deep_in_entry": safetensors_of(b'{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0],"x":' +
                                               b"[" * 130 + b"]" * 130 + b"}}"),
        "zero_and_huge_axis": safetensors_of(b'{"t":{"dtype":"F32","shape":[0,9223372036854775807],'
                                             b'"data_offsets":[0,0]}}'),
        "zero_and_huge_axis_bool": safetensors_of(b'{"t":{"dtype":"BOOL","shape":[9223372036854775807,0],'
                                                  b'"data_offsets":[0,0]}}'),
    }
    surrogates = np.array(["\ud800", "\udfff\U0010ffff"], "<U2")
    for name, data in zips.items():
        write("fuzz_zip_directory", name, data)
        write("fuzz_input_file", name, data)
    for name, data in sts.items():
        write("fuzz_safetensors_header", name, data)
        write("fuzz_input_file", name, data)
    write("fuzz_npy_header", "zero_and_huge_axis", zero_huge_npy)
    write("fuzz_input_file", "npy_zero_and_huge_axis", zero_huge_npy)
    write("fuzz_input_file", "U2_lone_surrogates", npy_of(surrogates))
    write("fuzz_json_reader", "deep_200", b"[" * 200 + b"]" * 200)
    write("fuzz_json_reader", "nul_after_value", b'{"a":1}\0{{{')
    write("fuzz_ops_json", "nul_after_spec", b'{"op":"slice","starts":[1],"ends":[3]}\0garbage{{{')
    write("fuzz_ops_json", "nul_in_string", b'{"op":"index","expr":"0\0"}')


def values_seeds():
    """fuzz_values: the --astype text, a newline, the source type's index (fuzz_values.cpp's
    kSources) and the elements' bytes."""
    floats = np.array([0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf, 1e30, -1e30, 3e38, 448, 464, 465, 57344,
                       61440, 2.0 ** -127, 300.0, -1.0, 9.3e18, 1.9e19], dtype="<f8")
    sources = ["bool", "i1", "u1", "<i2", ">i2", "<u2", ">u4", "<i4", "<i8", ">u8", "<f2", ">f2", "<f4", ">f4", "<f8",
               ">f8", "f16", "<c8", ">c16", "bf16", "f8_e4m3", "f8_e5m2", "f8_e8m0"]
    seeds = {}
    with np.errstate(over="ignore"):
        halves = floats.astype("<f2").tobytes()
    for target in ["int8", "u1", ">i2", "uint64", "int64", "bool", "f2", ">f4", "float64", "c8", "bfloat16",
                   "float8_e4m3fn", "f8_e5m2", "float8_e8m0fnu", "longdouble"]:
        for source, data in (("<f8", floats.tobytes()), (">f4", floats.astype(">f4").tobytes()),
                             ("<f2", halves), ("bf16", bytes(range(0, 256, 3)) * 2),
                             ("f8_e4m3", bytes(range(256))), ("<i8", np.array([-2**63, 2**63 - 1, 0, -1],
                                                                                 "<i8").tobytes())):
            name = f"{target.replace('>', 'big_')}_from_{source.replace('<', '').replace('>', 'big_')}"
            seeds[name] = target.encode() + b"\n" + bytes([sources.index(source)]) + data
    for name, text in {"unknown": "float33\n", "string": "S3\n", "empty": "", "order_on_name": ">float32\n",
                       "datetime": "M8[s]\n"}.items():
        seeds[name] = text.encode()
    return seeds


def main():
    for name, data in values_seeds().items():
        write("fuzz_values", name, data)
    for name, text in JSON_TEXTS.items():
        write("fuzz_json_reader", name, text)
    hostile_seeds()
    for name, text in EXPRESSIONS.items():
        write("fuzz_expr", name, text)
    for name, text in JSON_OPS.items():
        write("fuzz_ops_json", name, text)
    # The file reader target reads every format, so it starts from all of their seeds, and a
    # member large enough to be inflated through a spool rather than in memory.
    torch_seeds()
    gguf_seeds()
    files = {**npy_seeds(), **zip_seeds(), **safetensors_seeds()}
    files["savez_compressed_past_memory_budget"] = npz_bytes(np.savez_compressed, big=np.zeros(33 << 20, "u1"))
    for name, data in files.items():
        write("fuzz_input_file", name, data)
    # The differential target reads choices from bytes: any bytes make a case, so its seeds
    # are random, from a fixed seed, of the lengths that describe one to three ops.
    rng = random.Random(20240501)
    for i in range(24):
        write("fuzz_copy_differential", f"random_{i:02d}", bytes(rng.randrange(256) for _ in range(16 + 8 * i)))
    # A rank-3 input with a long last axis, so that the row kernels engage from the start.
    write("fuzz_copy_differential", "long_rows", bytes([3, 200, 3, 100, 100, 250]) + bytes(rng.randrange(256)
                                                                                            for _ in range(120)))


if __name__ == "__main__":
    main()
