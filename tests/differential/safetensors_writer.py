"""Writing and reading .safetensors files from the format's own description, for the tests
(the safetensors package is not in Debian).

The format (huggingface/safetensors, README "Format"): 8 bytes N, an unsigned little-endian
64-bit integer; N bytes of a UTF-8 JSON object mapping each tensor name to {"dtype", "shape",
"data_offsets": [begin, end]} (offsets into the data that follows the header), with an
optional "__metadata__" object of strings; the header may be padded with spaces; then the
data, each tensor little-endian and C-contiguous. The reference writer sorts tensors by
dtype alignment, then name, packs them without gaps, and pads the header to 8 bytes.

    write(path, {"name": array, ...}, metadata=None)   arrays: numpy, or RawTensor for BF16/F8
    read(path) -> {"name": array or RawTensor}
"""
import json
import struct

import numpy as np

DTYPES = {
    "BOOL": "|b1", "U8": "|u1", "I8": "|i1", "I16": "<i2", "U16": "<u2", "F16": "<f2",
    "I32": "<i4", "U32": "<u4", "F32": "<f4", "F64": "<f8", "I64": "<i8", "U64": "<u8", "C64": "<c8",
}
# Types numpy lacks, with their item sizes.
RAW_DTYPES = {"BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1}


class RawTensor:
    """A tensor of a type numpy lacks: its safetensors dtype, shape and raw bytes."""

    def __init__(self, dtype, shape, data):
        assert dtype in RAW_DTYPES
        self.dtype, self.shape, self.data = dtype, tuple(shape), bytes(data)
        assert len(self.data) == int(np.prod(self.shape, dtype=np.int64)) * RAW_DTYPES[dtype]

    def __eq__(self, other):
        return (isinstance(other, RawTensor) and (self.dtype, self.shape, self.data) ==
                (other.dtype, other.shape, other.data))


def dtype_name(array):
    little = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
    for name, descr in DTYPES.items():
        if np.dtype(descr) == little:
            return name
    raise ValueError(f"safetensors has no dtype for {array.dtype}")


def _tensor_bytes(value):
    if isinstance(value, RawTensor):
        return value.dtype, list(value.shape), value.data
    array = np.asarray(value)
    name = dtype_name(array)
    return name, list(array.shape), np.ascontiguousarray(array, dtype=np.dtype(DTYPES[name])).tobytes()


def dumps(tensors, metadata=None, order=None):
    """The file's bytes. `order` lists names in the order of their data (default: as given)."""
    header, blobs, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name in order or list(tensors):
        dtype, shape, data = _tensor_bytes(tensors[name])
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write(path, tensors, metadata=None, order=None):
    with open(path, "wb") as f:
        f.write(dumps(tensors, metadata, order))


def loads(data):
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    header.pop("__metadata__", None)
    start, out = 8 + n, {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        blob = data[start + begin:start + end]
        if info["dtype"] in RAW_DTYPES:
            out[name] = RawTensor(info["dtype"], info["shape"], blob)
        else:
            out[name] = np.frombuffer(blob, dtype=DTYPES[info["dtype"]]).reshape(info["shape"])
    return out


def read(path):
    with open(path, "rb") as f:
        return loads(f.read())


def bfloat16_values(raw):
    """The float32 values of a BF16 RawTensor: bfloat16 is float32's upper half."""
    halves = np.frombuffer(raw.data, dtype="<u2").astype("<u4") << 16
    return halves.view("<f4").reshape(raw.shape)


def e8m0_values(raw):
    """The float64 values of an F8_E8M0 RawTensor (OCP MX scale: 2**(bits - 127), 0xFF NaN)."""
    bits = np.frombuffer(raw.data, dtype=np.uint8).astype(np.int64)
    return np.where(bits == 0xFF, np.nan, np.power(2.0, bits - 127)).reshape(raw.shape)


def float8_values(raw):
    """The float64 values of an F8_E4M3 (OCP E4M3FN: no infinities, S.1111.111 is NaN) or
    F8_E5M2 (IEEE-like, with infinities and NaNs) RawTensor."""
    bits = np.frombuffer(raw.data, dtype=np.uint8).astype(np.int64)
    mantissa_bits, bias = (3, 7) if raw.dtype == "F8_E4M3" else (2, 15)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent = (bits >> mantissa_bits) & ((1 << (7 - mantissa_bits)) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    normal = (1 + mantissa / (1 << mantissa_bits)) * np.power(2.0, exponent - bias)
    subnormal = (mantissa / (1 << mantissa_bits)) * 2.0 ** (1 - bias)
    values = sign * np.where(exponent == 0, subnormal, normal)
    top = (1 << (7 - mantissa_bits)) - 1
    if raw.dtype == "F8_E4M3":
        values = np.where((exponent == top) & (mantissa == 7), np.nan, values)
    else:
        values = np.where((exponent == top) & (mantissa == 0), sign * np.inf, values)
        values = np.where((exponent == top) & (mantissa != 0), np.nan, values)
    return values.reshape(raw.shape)
