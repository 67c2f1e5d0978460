// Writing a container of several arrays into one file: the results of several --key values,
// or an existing .npz/.safetensors with some arrays replaced or added (--update).
//
// An array kept from a file is copied as its bytes are there (an .npz member's stored bytes,
// compressed or not, with its CRC-32; a tensor's data), by the kernel where it can
// (copy_file_range: no pass through this process, and a file system that shares extents
// shares them), else through a small buffer: memory stays bounded whatever the sizes. A
// result is written by the write stage, chunk by chunk, like a single one. The file appears
// whole (a temporary renamed into place) or not at all.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "write/output_file.hpp"
#include "tslice/container.hpp"
#include "tslice/write.hpp"

namespace tslice {

class InputBytes;

struct ContainerEntry {
    // The name in the container: an .npz member's whole name ("x.npy"), a tensor's name.
    std::string name;
    // safetensors: the dtype's name and the shape, for the header.
    std::string dtype;
    std::vector<std::int64_t> shape;
    // A result: its .npy header (.npz only) and data bytes, written by `write` (the framing's
    // prefix, the data, then its suffix) through write_view_into.
    std::string npy_header;
    std::uint64_t data_bytes = 0;
    std::function<void(OutputFile& output, const OutputFraming& framing)> write;
    // A kept array (`write` unset): copied from `from`. .npz: the member's stored bytes as
    // `member` says; safetensors: `data_bytes` bytes from `offset` (from from->data()).
    const InputBytes* from = nullptr;
    MemberBytes member;
    std::uint64_t offset = 0;
};

// Writes `entries`, in order, as an .npz (`npz`) or a .safetensors (with `metadata`, the text
// of a "__metadata__" object, when not empty) to `path`.
void write_container(const std::string& path, bool npz, const std::vector<ContainerEntry>& entries,
                     const std::string& metadata, bool sync);

// Copies `size` bytes at `offset` of `from` (offsets from from.data()) to the end of `output`.
void copy_input_bytes(OutputFile& output, const InputBytes& from, std::uint64_t offset, std::uint64_t size);

}  // namespace tslice
