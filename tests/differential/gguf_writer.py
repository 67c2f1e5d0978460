"""A GGUF writer and ggml's reference dequantizers, in Python, for the tests.

Written from the GGUF specification (ggml's docs/gguf.md) and ggml's block layouts
(ggml-common.h) and dequantize_row_* functions (ggml-quants.c); Debian packages no Python
GGUF library. Every number little-endian.
"""
import struct

import numpy as np

# ggml_type ids, and (block elements, block bytes) of each
TYPES = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20), "Q5_0": (6, 32, 22),
    "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q8_1": (9, 32, 36), "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110),
    "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "IQ4_NL": (20, 32, 18),
    "I8": (24, 1, 1), "I16": (25, 1, 2), "I32": (26, 1, 4), "I64": (27, 1, 8), "F64": (28, 1, 8), "BF16": (30, 1, 2),
}
PLAIN = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I8": "|i1", "I16": "<i2", "I32": "<i4", "I64": "<i8", "BF16": "<u2"}

# metadata value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?", U64: "<Q",
          I64: "<q", F64: "<d"}


def string(text):
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


def value(kind, v):
    """A metadata value of type `kind`; an array is (ARRAY, (element_kind, [values]))."""
    if kind == STRING:
        return string(v)
    if kind == ARRAY:
        element, items = v
        return struct.pack("<IQ", element, len(items)) + b"".join(value(element, x) for x in items)
    return struct.pack(SCALAR[kind], v)


def write(path, metadata, tensors, version=3, alignment=None):
    """metadata: [(key, kind, value)]; tensors: [(name, type name, numpy shape, data bytes)].
    The data of each tensor is placed at the next multiple of the alignment."""
    align = alignment or 32
    if alignment is not None:
        metadata = list(metadata) + [("general.alignment", U32, alignment)]
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata))
    for key, kind, v in metadata:
        head += string(key) + struct.pack("<I", kind) + value(kind, v)
    blob = b""
    infos = b""
    for name, type_name, shape, data in tensors:
        blob += b"\0" * (-len(blob) % align)
        ne = list(reversed(shape))
        infos += string(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne)
        infos += struct.pack("<IQ", TYPES[type_name][0], len(blob))
        blob += data
    head += infos
    head += b"\0" * (-len(head) % align)
    with open(path, "wb") as f:
        f.write(head + blob)


# ------------------------------------------------------------------------------------ blocks


def _fields(blocks, type_name):
    """The blocks of `type_name` as a (count, block bytes) uint8 array."""
    size = TYPES[type_name][2]
    raw = np.frombuffer(blocks, dtype=np.uint8)
    return raw.reshape(-1, size)


def _half(b, at):
    return b[:, at:at + 2].copy().view("<f2").astype(np.float32)


def _nibbles(qs):
    return (qs & 0x0F).astype(np.int32), (qs >> 4).astype(np.int32)


def _high_bits(b, at):
    qh = b[:, at:at + 4].copy().view("<u4").astype(np.uint32)  # (count, 1)
    j = np.arange(16, dtype=np.uint32)
    high0 = ((qh >> j) << 4) & 0x10
    high1 = (qh >> (j + 12)) & 0x10
    return high0.astype(np.int32), high1.astype(np.int32)


def dequantize(type_name, blocks):
    """ggml's dequantize_row_<type> of the blocks, as float32: integer to float, times d in
    float32, plus m in float32."""
    b = _fields(blocks, type_name)
    if type_name == "Q8_0":
        d = _half(b, 0)
        return (b[:, 2:34].view(np.int8).astype(np.float32) * d).reshape(-1)
    if type_name == "Q4_0":
        d = _half(b, 0)
        lo, hi = _nibbles(b[:, 2:18])
        return np.concatenate([(lo - 8).astype(np.float32) * d, (hi - 8).astype(np.float32) * d], axis=1).reshape(-1)
    if type_name == "Q4_1":
        d, m = _half(b, 0), _half(b, 2)
        lo, hi = _nibbles(b[:, 4:20])
        return np.concatenate([lo.astype(np.float32) * d + m, hi.astype(np.float32) * d + m], axis=1).reshape(-1)
    if type_name == "Q5_0":
        d = _half(b, 0)
        high0, high1 = _high_bits(b, 2)
        lo, hi = _nibbles(b[:, 6:22])
        return np.concatenate([((lo | high0) - 16).astype(np.float32) * d,
                               ((hi | high1) - 16).astype(np.float32) * d], axis=1).reshape(-1)
    if type_name == "Q5_1":
        d, m = _half(b, 0), _half(b, 2)
        high0, high1 = _high_bits(b, 4)
        lo, hi = _nibbles(b[:, 8:24])
        return np.concatenate([(lo | high0).astype(np.float32) * d + m,
                               (hi | high1).astype(np.float32) * d + m], axis=1).reshape(-1)
    raise ValueError(type_name)


def random_blocks(rng, type_name, count):
    """`count` blocks of random bytes whose f16 scales are finite (so that no NaN's payload is
    compared)."""
    size = TYPES[type_name][2]
    raw = rng.integers(0, 256, size=(count, size), dtype=np.uint8)
    scales = {"Q8_0": [0], "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2]}.get(type_name, [])
    for at in scales:
        raw[:, at:at + 2] = rng.normal(0, 0.1, size=count).astype("<f2").view(np.uint8).reshape(count, 2)
    return raw.tobytes()
