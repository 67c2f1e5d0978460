// The region sources (see source.hpp's RegionSource), one per format.
#pragma once

#include <memory>
#include <string>

#include "tslice/source.hpp"

namespace tslice {

// A directory holding a Zarr v2 array or group; Error(Input) for one that holds neither.
std::shared_ptr<const RegionSource> open_zarr_store(const std::string& path);
// An HDF5 file, through the HDF5 library.
std::shared_ptr<const RegionSource> open_hdf5_file(const std::string& path);

}  // namespace tslice
