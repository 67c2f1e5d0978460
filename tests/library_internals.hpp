// The library's internal parts that tests reach below the public API: the ground floor's
// helpers (little-endian fields, hexadecimal digits, UTF-8), the copy kernels and
// the copy's plan (each kernel set against the scalar reference), the zip directory reader and
// the inflater (hostile archives byte by byte), the JSON reading path, Python's text rules, the write
// stage's sizes and the order of its chunks, the input's paging and the probe of its folios, a
// gather's reads of whole rows, its scattered reads and the choice between them, the moving of
// a file's bytes into an output by splice, the output's own descriptor, and the statistics'
// vector loops (against the plain loop).
// This header is the one place tests name them; the tests' include path (tests/CMakeLists.txt)
// is the only one that has lib/src.
#pragma once

#include "base/bytes.hpp"
#include "base/hex.hpp"
#include "base/utf8.hpp"
#include "write/chunk_stream.hpp"
#include "copy/copy_plan.hpp"
#include "write/file_splice.hpp"
#include "read/folio_probe.hpp"
#include "read/gather_reads.hpp"
#include "read/input_paging.hpp"
#include "source/inflate.hpp"
#include "base/json_sax.hpp"
#include "copy/kernels.hpp"
#include "write/output_file.hpp"
#include "base/python_text.hpp"
#include "read/row_reads.hpp"
#include "read/scattered_gather.hpp"
#include "values/stats_kernels.hpp"
#include "read/read_sizes.hpp"
#include "read/result_reader.hpp"
#include "source/region_bands.hpp"
#include "source/region_rows.hpp"
#include "source/zip.hpp"
#include "write/zip_members.hpp"
