"""DirectML DML_SLICE1, written from DML_SLICE1_OPERATOR_DESC (seed 004), element by element:

    CopyStart = InputWindowOffsets
    for each dimension i: if InputWindowStrides[i] < 0: CopyStart[i] += InputWindowSizes[i] - 1
    OutputTensor[OutputCoordinates] = InputTensor[CopyStart + InputWindowStrides * OutputCoordinates]

with the window [offset, offset + size) non-empty and inside the input, strides non-zero, and
1 <= OutputSizes[i] <= MaxCopiedElements[i] = 1 + (size - 1) / |stride| (the document writes
the stride without |.|, errata S004-2). OutputSizes default to MaxCopiedElements. Nothing is
clamped: anything out of range is an error.

    dml_slice1(data, offsets, sizes, strides, output_sizes=None) -> numpy array
    raises Slice1Error(field, message); `field` is the JSON path below the op, e.g. "sizes[2]".
"""

import itertools

import numpy as np


class Slice1Error(Exception):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field


def plan(shape, offsets, sizes, strides, output_sizes=None):
    """(copy_start, strides, output_shape), checked."""
    rank = len(shape)
    for name, values in (("offsets", offsets), ("sizes", sizes), ("strides", strides), ("output_sizes", output_sizes)):
        if values is not None and len(values) != rank:
            raise Slice1Error(name, "one entry per dimension")
    copy_start = []
    out_shape = []
    for i in range(rank):
        offset, size, stride = offsets[i], sizes[i], strides[i]
        if offset < 0:
            raise Slice1Error(f"offsets[{i}]", "negative offset")
        if size < 1:
            raise Slice1Error(f"sizes[{i}]", "empty window")
        if offset >= shape[i]:
            raise Slice1Error(f"offsets[{i}]", "offset outside the dimension")
        if offset + size > shape[i]:
            raise Slice1Error(f"sizes[{i}]", "window runs past the dimension")
        if stride == 0:
            raise Slice1Error(f"strides[{i}]", "stride 0")
        most = 1 + (size - 1) // abs(stride)
        count = most if output_sizes is None else output_sizes[i]
        if count < 1 or count > most:
            raise Slice1Error(f"output_sizes[{i}]", "output size out of range")
        start = offset + (size - 1 if stride < 0 else 0)
        copy_start.append(start)
        out_shape.append(count)
    return copy_start, list(strides), tuple(out_shape)


def dml_slice1(data, offsets, sizes, strides, output_sizes=None):
    copy_start, steps, out_shape = plan(data.shape, offsets, sizes, strides, output_sizes)
    out = np.empty(out_shape, dtype=data.dtype)
    for coords in itertools.product(*(range(n) for n in out_shape)):
        source = tuple(copy_start[a] + steps[a] * coords[a] for a in range(len(out_shape)))
        for a, s in enumerate(source):  # the window guarantees this; check the reference too
            assert 0 <= s < data.shape[a], (source, data.shape)
        out[coords] = data[source]
    return out
