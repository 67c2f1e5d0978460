// Reading a stream into a Spool (source.hpp) as far as its format says its data reaches.
#pragma once

#include <cstddef>
#include <string>

#include "tslice/source.hpp"

namespace tslice {

// What a spool or an inflating member reads or writes at a time.
constexpr std::size_t kSpoolStepBytes = std::size_t{1} << 20;

// The directory temporary files go in: TMPDIR, or /tmp.
std::string temporary_directory();
// An unlinked temporary file in temporary_directory(), open for reading and writing (O_TMPFILE
// where the file system has it, else mkstemp and unlink at once, so nothing is left behind even
// by SIGKILL). `what` names what it will hold in errors, `file` the input (see Error::file).
int open_temporary(const std::string& what, const std::string& file = {});

// A descriptor of the same open file for a Mapping to keep, above the standard ones.
int duplicate_descriptor(int fd);

// How much of a stream that starts with `head` to spool: a .npy as far as its header promises
// (never to the end, so an endless stream that is not a .npy fails after its first bytes and
// one that is stops where the array does); a safetensors file as far as its tensors reach; a
// zip archive to its end, where its directory is. Reads `fd` into `spool`, `what` naming it in
// errors. Returns whether the whole of the .npy is there (false with `headers_only`, which
// stops after a .npy's header).
bool spool_stream(Spool& spool, int fd, const std::string& what, bool headers_only);

}  // namespace tslice
