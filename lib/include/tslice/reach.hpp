// Which elements of the input a pipeline reads: the region a source that cannot be mapped
// (an HDF5 dataset, a Zarr array) reads before the copy, so that the copy sees an ordinary
// view and knows nothing of formats.
#pragma once

#include <cstddef>

#include "tslice/source.hpp"
#include "tslice/steps.hpp"

namespace tslice {

// The smallest box of the input (per input axis, [start, stop)) that holds every element the
// pipeline's result reads; every stop equal to its start (an empty box) where the result has
// no elements. Pure: the plan is applied to a view whose strides keep the input axes apart
// (see reach.cpp), never to data. Where that cannot be done (the axes need more than 62 bits
// between them, or a gather reads a gathered result) the box is the whole array.
Box reached_box(const Pipeline& pipeline, std::size_t itemsize);

}  // namespace tslice
