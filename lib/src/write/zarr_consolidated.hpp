// A Zarr group's consolidated metadata (`.zmetadata`: every `.zarray`, `.zgroup` and `.zattrs`
// below the group in one document, written by zarr.consolidate_metadata and read in their
// place by xarray's open_zarr and zarr.open_consolidated), kept up to date with an array
// tslice writes into the group: otherwise those readers would not see the new array, or would
// see the shape and chunks of the one it replaced.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/json_tree.hpp"

namespace tslice {

class ConsolidatedMetadata {
public:
    // Reads the `.zmetadata` of every group `array` lies in (each directory above it that
    // holds `.zgroup`, up to the first that does not). Done before the array is written, so a
    // document tslice could not update (not JSON, no "metadata" object) is an error (exit 1)
    // before anything changes.
    explicit ConsolidatedMetadata(const std::filesystem::path& array);

    // In each document read: the entries of the array's path (and of anything below it, if it
    // replaced a group) replaced by its `.zarray` and `.zattrs` texts; each document written
    // into place as every output is (a temporary renamed over it).
    void update(const std::string& zarray, const std::string& zattrs, bool sync) const;

private:
    struct Document {
        std::filesystem::path path;  // the .zmetadata
        std::string key;             // the array's path from that group: "temperature", "sub/values"
        json::Node root;
    };
    std::vector<Document> documents_;
};

}  // namespace tslice
