#!/usr/bin/python3
"""Writes the small sample .npy, .npz, .safetensors, torch.save and GGUF files in data/, each named by what it
exercises.

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


def containers(out_dir, root):
    """An np.savez_compressed archive of two arrays, and a safetensors file with a bfloat16
    tensor (the safetensors package is not in Debian: the tests' own writer)."""
    import time
    import zipfile
    from unittest import mock
    weight = np.arange(12, dtype="<f4").reshape(3, 4) / 4
    bias = np.array([1, -1, 2], dtype="<i8")
    path = os.path.join(out_dir, "weight_bias_compressed.npz")
    # np.savez stamps members with the current time; a fixed one keeps the bytes.
    with mock.patch.object(zipfile.time, "localtime", lambda *_: time.struct_time((1980, 1, 1, 0, 0, 0, 1, 1, 0))):
        np.savez_compressed(path, weight=weight, bias=bias)
    print(f"{path}: weight {weight.shape} <f4, bias {bias.shape} <i8")
    sys.path.insert(0, os.path.join(root, "tests", "differential"))
    import safetensors_writer as st
    path = os.path.join(out_dir, "f32_bf16.safetensors")
    # bfloat16 is float32's upper half: 1.0, -2.5, 0.1 (rounded to 0.10009765625), 3.0e38
    halves = (np.array([1.0, -2.5, 0.1, 3.0e38], dtype="<f4").view("<u4") + 0x8000) >> 16
    st.write(path, {"scale": st.RawTensor("BF16", [2, 2], halves.astype("<u2").tobytes()), "weight": weight})
    print(f"{path}: scale (2, 2) BF16, weight {weight.shape} F32")


def model_files(out_dir, root):
    """A torch.save checkpoint of views that share storages (when torch is installed), and a
    small GGUF from the tests' writer: a few metadata entries, F32, F16 and Q8_0 tensors."""
    sys.path.insert(0, os.path.join(root, "tests", "differential"))
    import gguf_writer as gw
    try:
        import torch
    except ImportError:
        print("torch is not installed: data/views.pt is left as it is")
    else:
        base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
        path = os.path.join(out_dir, "views.pt")
        torch.save({"model": {"weight": base, "weight_t": base.t(), "bias": torch.tensor([1, -1, 2])},
                    "every_other": base[:, ::2], "epoch": 3}, path)
        print(f"{path}: model.weight (3, 4), model.weight_t (4, 3) and every_other (3, 2) of one storage")
    # Q8_0: one block a row, d = 0.5 (f16 0x3800), qs = -16 .. 15 and 15 .. -16
    q8 = b"".join(b"\x00\x38" + np.arange(-16, 16, dtype=np.int8)[::sign].tobytes() for sign in (1, -1))
    meta = [("general.architecture", gw.STRING, "llama"), ("general.name", gw.STRING, "tiny"),
            ("llama.block_count", gw.U32, 1), ("tokenizer.ggml.tokens", gw.ARRAY, (gw.STRING, ["<s>", "a", "b"]))]
    tensors = [("token_embd.weight", "F16", [3, 4], (np.arange(12, dtype="<f2") / 2).tobytes()),
               ("output_norm.weight", "F32", [4], np.array([1, 0.5, 0.25, 2], dtype="<f4").tobytes()),
               ("blk.0.attn_q.weight", "Q8_0", [2, 32], q8)]
    path = os.path.join(out_dir, "tiny.gguf")
    gw.write(path, meta, tensors)
    print(f"{path}: token_embd.weight (3, 4) F16, output_norm.weight (4,) F32, blk.0.attn_q.weight (2, 32) Q8_0")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = os.path.join(root, "data")
    os.makedirs(out_dir, exist_ok=True)
    for name, array in samples():
        path = os.path.join(out_dir, name)
        np.save(path, array)
        print(f"{path}: shape {array.shape}, dtype {array.dtype.str if array.dtype.names is None else array.dtype.descr}")
    containers(out_dir, root)
    model_files(out_dir, root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
