// Fuzz target: reading a .npy file (whole file bytes in), and what is done with any header
// that reads: printing the array, and writing a header for its dtype and shape.
//
// Checks, besides "no crash, no sanitizer report, only tslice::Error":
//   - a header that parses describes data that fits in the file: the data offset is inside
//     it, the itemsize is at least 1, the byte size does not overflow, and every element of
//     the array's view lies inside the data;
//   - the header tslice would write for that dtype and shape parses back to the same dtype
//     and shape, with the data on a 64-byte boundary (round trip of make_npy_header);
//   - printing the array (numpy's str()) either works or is an Error.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "fuzz_common.hpp"
#include "fuzz_views.hpp"
#include "tslice/error.hpp"
#include "tslice/npy.hpp"
#include "tslice/print.hpp"

using namespace tslice;
using tslice_fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    std::optional<NpyArray> array;
    try {
        array.emplace(NpyArray::from_bytes(bytes));
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
        return 0;
    }
    const NpyHeader& header = array->header();
    TSLICE_FUZZ_CHECK(header.major >= 1 && header.major <= 3 && header.minor == 0);
    TSLICE_FUZZ_CHECK(header.dtype.itemsize >= 1);
    TSLICE_FUZZ_CHECK(header.data_offset <= size);
    std::int64_t count = 1;
    for (auto dim : header.shape) {
        TSLICE_FUZZ_CHECK(dim >= 0);
        if (dim == 0) count = 0;
    }
    if (count != 0) {
        for (auto dim : header.shape) TSLICE_FUZZ_CHECK(!__builtin_mul_overflow(count, dim, &count));
        std::int64_t data_bytes = 0;
        TSLICE_FUZZ_CHECK(!__builtin_mul_overflow(count, static_cast<std::int64_t>(header.dtype.itemsize), &data_bytes));
        TSLICE_FUZZ_CHECK(header.data_offset + static_cast<std::size_t>(data_bytes) <= size);
    }
    TSLICE_FUZZ_CHECK(header.element_count() == count);
    tslice_fuzz::check_inside(array->view(), static_cast<std::int64_t>(header.data_bytes()), 4096);

    // The same bytes through the header parser alone.
    const NpyHeader again = parse_npy_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    TSLICE_FUZZ_CHECK(again.shape == header.shape && again.dtype.descr == header.dtype.descr &&
                      again.data_offset == header.data_offset && again.fortran_order == header.fortran_order);

    // Round trip through the writer's header.
    std::string written;
    try {
        written = make_npy_header(header.dtype, header.shape);
    } catch (const Error& error) {
        finding("make_npy_header fails for a dtype and shape that were read: %s", error.what());
    }
    TSLICE_FUZZ_CHECK(written.size() % 64 == 0);
    NpyHeader reread;
    try {
        reread = parse_npy_header(reinterpret_cast<const std::byte*>(written.data()), written.size());
    } catch (const Error& error) {
        finding("the header written for descr %s shape %s does not read back: %s", header.dtype.descr.c_str(),
                format_shape(header.shape).c_str(), error.what());
    }
    if (reread.dtype.descr != header.dtype.descr || reread.shape != header.shape || reread.fortran_order ||
        reread.data_offset != written.size() || reread.dtype.itemsize != header.dtype.itemsize)
        finding("the header written for descr %s shape %s reads back as descr %s shape %s", header.dtype.descr.c_str(),
                format_shape(header.shape).c_str(), reread.dtype.descr.c_str(), format_shape(reread.shape).c_str());

    // Printing reads only the elements it shows; a dtype it cannot show is an Error.
    try {
        (void)format_array(array->data(), array->view(), header.dtype);
    } catch (const Error&) {
    }
    return 0;
}
