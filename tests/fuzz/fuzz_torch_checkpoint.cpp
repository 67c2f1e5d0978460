// Fuzz target: reading a torch.save file (whole file bytes in): the zip directory, data.pkl
// through the pickle machine that runs nothing, and the tensors' views of their storages.
//
// Checks, besides "no crash, no hang, no sanitizer report, only tslice::Error(Input)":
//   - every tensor is named, mapped, and lies inside the file: from its first byte, the last
//     element its shape and strides reach (none negative) is inside bytes.size;
//   - a view built from it (strides, Fortran or C order) stays inside those bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "tslice/container.hpp"
#include "tslice/error.hpp"
#include "tslice/view.hpp"

using namespace tslice;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto* file = reinterpret_cast<const std::byte*>(data);
    std::vector<ArrayInFile> arrays;
    try {
        arrays = list_torch(file, size);
    } catch (const Error& error) {
        TSLICE_FUZZ_CHECK(error.kind() == ErrorKind::Input);
        return 0;
    }
    for (const ArrayInFile& array : arrays) {
        TSLICE_FUZZ_CHECK(array.name.has_value());
        TSLICE_FUZZ_CHECK(array.bytes.kind == ArrayBytes::Kind::Mapped);
        TSLICE_FUZZ_CHECK(array.bytes.offset <= size && size - array.bytes.offset >= array.bytes.size);
        TSLICE_FUZZ_CHECK(array.shape.size() <= kMaxRank);
        TSLICE_FUZZ_CHECK(array.strides.empty() || array.strides.size() == array.shape.size());
        View view = View::contiguous(array.shape, array.type.itemsize(), array.fortran_order);
        if (!array.strides.empty())
            for (std::size_t k = 0; k < array.shape.size(); ++k) {
                TSLICE_FUZZ_CHECK(array.strides[k] >= 0);
                view.byte_strides[k] = array.strides[k] * static_cast<std::int64_t>(array.type.itemsize());
            }
        if (view.element_count() == 0) continue;
        const View::Span span = view.span_of(0, view.element_count());
        TSLICE_FUZZ_CHECK(span.begin >= 0 && static_cast<std::uint64_t>(span.end) <= array.bytes.size);
    }
    return 0;
}
