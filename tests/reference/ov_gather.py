#!/usr/bin/python3
"""An independent reference for OpenVINO Gather-8, written from the operation's text (seed
003 and errata S003-*), with plain loops: no numpy.take, no fancy indexing.

    output[p_0, ..., p_{axis-1}, i_b, ..., i_{M-1}, p_{axis+1}, ..., p_{N-1}] =
        data[p_0, ..., p_{axis-1}, indices[p_0, ..., p_{b-1}, i_b, ..., i_{M-1}], p_{axis+1}, ..., p_{N-1}]

with b = batch_dims, N = data rank, M = indices rank. The output shape is
data.shape[:axis] + indices.shape[b:] + data.shape[axis+1:]. A negative axis is
normalised with N, a negative batch_dims with M (errata S003-3, OpenVINO's shape
inference); batch_dims <= axis and data.shape[:b] == indices.shape[:b] are required.
Negative indices count from the end; an index outside [-dim, dim-1] gives zeros (every
byte 0) in the output (example 7).

`gather(data, indices, axis, batch_dims, indices_shape=None)` takes `data` as a numpy
array (only for its shape, dtype and element access) and `indices` as nested Python lists
or an int (a 0-d index), with their shape when the lists cannot tell it (an empty list
leaves the dimensions after it unknown: indices of shape (0, 3) are `[]`); it returns the
output array, or raises GatherSpecError naming the spec field at fault ("axis",
"batch_dims" or "indices").

Run as a script, it checks itself against the seed's seven worked examples.
"""

import itertools

import numpy as np


class GatherSpecError(ValueError):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field


def shape_of(nested):
    """The shape of a rectangular nested list (an int is 0-d)."""
    shape = []
    node = nested
    while isinstance(node, list):
        shape.append(len(node))
        if not node:
            break
        node = node[0]
    return tuple(shape)


def element(nested, index):
    for i in index:
        nested = nested[i]
    return nested


def normalised_axis(axis, data_rank):
    if not -data_rank <= axis < data_rank:
        raise GatherSpecError("axis", f"axis {axis} is out of range for data of rank {data_rank}")
    return axis + data_rank if axis < 0 else axis


def check_spec(data_shape, indices_shape, axis, batch_dims):
    """(axis, batch_dims) normalised, or GatherSpecError; the order of checks of tslice."""
    n, m = len(data_shape), len(indices_shape)
    axis = normalised_axis(axis, n)
    if not -m <= batch_dims <= m:
        raise GatherSpecError("batch_dims", f"batch_dims {batch_dims} is out of range for indices of rank {m}")
    b = batch_dims + m if batch_dims < 0 else batch_dims
    if b > axis:
        raise GatherSpecError("batch_dims", f"batch_dims {b} is greater than axis {axis}")
    for k in range(b):
        if data_shape[k] != indices_shape[k]:
            raise GatherSpecError("indices", f"batch dimension {k}: data {data_shape[k]}, indices {indices_shape[k]}")
    return axis, b


def gather(data, indices, axis, batch_dims=0, indices_shape=None):
    data_shape = tuple(data.shape)
    indices_shape = shape_of(indices) if indices_shape is None else tuple(indices_shape)
    axis, b = check_spec(data_shape, indices_shape, axis, batch_dims)
    dim = data_shape[axis]
    outer = data_shape[:axis]
    index_dims = indices_shape[b:]
    inner = data_shape[axis + 1:]
    out = np.zeros(outer + index_dims + inner, dtype=data.dtype)
    # One loop per output position before the inner axes; the inner block (data's axes after
    # `axis`) is copied as a block, by basic indexing with integers only.
    for p in itertools.product(*[range(d) for d in outer]):
        for i in itertools.product(*[range(d) for d in index_dims]):
            index = element(indices, p[:b] + i)
            if not -dim <= index < dim:
                continue  # zeros, already there
            if index < 0:
                index += dim
            out[p + i] = data[p + (index,)]
    return out


def _self_test():
    ex = [
        # (data, data shape, indices, axis, batch_dims, expected output)
        ([1, 2, 3, 4, 5], (5,), [0, 0, 4], 0, 0, [1, 1, 5]),
        (list(range(1, 11)), (2, 5), [[0, 0, 4], [4, 0, 0]], 1, 1, [[1, 1, 5], [10, 6, 6]]),
        (list(range(1, 21)), (2, 2, 5), [[[0, 0, 4], [4, 0, 0]], [[1, 2, 4], [4, 3, 2]]], 2, 2,
         [[[1, 1, 5], [10, 6, 6]], [[12, 13, 15], [20, 19, 18]]]),
        (list(range(1, 41)), (2, 1, 5, 4), [[1, 2, 4], [4, 3, 2]], 2, 1,
         [[[[5, 6, 7, 8], [9, 10, 11, 12], [17, 18, 19, 20]]], [[[37, 38, 39, 40], [33, 34, 35, 36], [29, 30, 31, 32]]]]),
        (list(range(1, 11)), (2, 5), [[0, 0, 4], [4, 0, 0]], 1, -1, [[1, 1, 5], [10, 6, 6]]),
        ([1, 2, 3, 4, 5], (5,), [0, -2, -1], 0, 0, [1, 4, 5]),
        ([1, 2, 3, 4, 5], (5,), [3, 10, -20], 0, 0, [4, 0, 0]),
    ]
    for number, (values, shape, indices, axis, batch_dims, expected) in enumerate(ex, 1):
        got = gather(np.array(values).reshape(shape), indices, axis, batch_dims)
        assert got.tolist() == expected, (number, got.tolist(), expected)
    out = gather(np.zeros((2, 64, 128), dtype=np.float32), [[[0] * 21] * 32] * 2, 1, 1)
    assert out.shape == (2, 32, 21, 128), out.shape
    try:
        gather(np.zeros((2, 3)), [[0]], 1, 2)
    except GatherSpecError as e:
        assert e.field == "batch_dims"
    else:
        raise AssertionError("batch_dims > axis accepted")
    print("ov_gather: the seed's 7 examples and the IR shape pass")


if __name__ == "__main__":
    _self_test()
