// The library's internal parts that tests reach below the public API: the copy kernels and
// the copy's plan (each kernel set against the scalar reference), the zip directory reader and
// the inflater (hostile archives byte by byte), the JSON reader, Python's text rules, the write
// stage's sizes and the order of its chunks, the input's paging and the probe of its folios, a
// gather's reads of whole rows, its scattered reads and the choice between them, the moving of
// a file's bytes into an output by splice, and the output's own descriptor.
// This header is the one place tests name them; the tests' include path (tests/CMakeLists.txt)
// is the only one that has lib/src.
#pragma once

#include "chunk_stream.hpp"
#include "copy_plan.hpp"
#include "file_splice.hpp"
#include "folio_probe.hpp"
#include "gather_reads.hpp"
#include "input_paging.hpp"
#include "inflate.hpp"
#include "json_reader.hpp"
#include "kernels.hpp"
#include "output_file.hpp"
#include "python_text.hpp"
#include "row_reads.hpp"
#include "scattered_gather.hpp"
#include "write_sizes.hpp"
#include "zip.hpp"
#include "zip_members.hpp"
