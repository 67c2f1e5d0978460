"""ONNX Slice (opset 13; 11 and 10 are the same, opset 1 has no steps), written from the
spec text (seed 002), element by element.

Not Python slicing, on purpose: the text clamps a reverse start to [0, dim-1] and a reverse
end to [-1, dim-1], which differs from Python's slice for starts below -dim (errata S002-3).
The output is built by looping over every output element and reading the input element it
names, so nothing here relies on numpy's slicing or on tslice.

    onnx_slice(data, starts, ends, axes=None, steps=None) -> numpy array
    raises SliceError(field, message) for an invalid spec; `field` is the JSON path below the
    op, e.g. "axes[1]" or "steps[0]".
"""

import itertools

import numpy as np


class SliceError(Exception):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field


def _clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value


def axis_indices(dim, start, end, step):
    """The input indices one axis takes, by the opset-13 text."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start = _clamp(start, 0, dim)
        end = _clamp(end, 0, dim)
    else:
        if dim == 0:
            return []  # nothing to take (the text's range [0, dim-1] is empty)
        start = _clamp(start, 0, dim - 1)
        end = _clamp(end, -1, dim - 1)
    taken = []
    i = start
    # Python integers do not overflow, so huge steps need no care; the loop ends after at
    # most dim iterations because start and end lie in [-1, dim].
    while (step > 0 and i < end) or (step < 0 and i > end):
        taken.append(i)
        i += step
    return taken


def plan(shape, starts, ends, axes=None, steps=None):
    """Per input axis, the list of input indices taken."""
    rank = len(shape)
    n = len(starts)
    if len(ends) != n:
        raise SliceError("ends", "length differs from starts")
    if axes is not None and len(axes) != n:
        raise SliceError("axes", "length differs from starts")
    if steps is not None and len(steps) != n:
        raise SliceError("steps", "length differs from starts")
    taken = [list(range(d)) for d in shape]
    seen = set()
    for i in range(n):
        if axes is None:
            axis = i
            if axis >= rank:
                raise SliceError(f"starts[{i}]", "no such axis")
        else:
            axis = axes[i]
            if axis < -rank or axis >= rank:
                raise SliceError(f"axes[{i}]", "axis out of range")
            if axis < 0:
                axis += rank
        if axis in seen:
            raise SliceError(f"axes[{i}]", "repeated axis")
        seen.add(axis)
        step = 1 if steps is None else steps[i]
        if step == 0:
            raise SliceError(f"steps[{i}]", "step 0")
        taken[axis] = axis_indices(shape[axis], starts[i], ends[i], step)
    return taken


def gather_elements(data, taken):
    """out[o0, o1, ...] = data[taken[0][o0], taken[1][o1], ...], element by element."""
    out_shape = tuple(len(t) for t in taken)
    out = np.empty(out_shape, dtype=data.dtype)
    for out_index in itertools.product(*(range(n) for n in out_shape)):
        in_index = tuple(taken[a][out_index[a]] for a in range(len(out_shape)))
        out[out_index] = data[in_index]
    return out


def onnx_slice(data, starts, ends, axes=None, steps=None):
    return gather_elements(data, plan(data.shape, starts, ends, axes, steps))
