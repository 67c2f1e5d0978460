// Printing the float types numpy lacks (bfloat16, float8 E4M3 and E5M2) as their values: each
// converts exactly to float32, so the array is converted (in element order, through a spool,
// so memory stays bounded whatever its size) and printed as the float32 array it equals.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "text/element_value.hpp"
#include "tslice/container.hpp"
#include "tslice/copy.hpp"
#include "tslice/error.hpp"
#include "tslice/print.hpp"
#include "tslice/source.hpp"

namespace tslice {

std::string format_narrow_float_array(const std::byte* data, const View& view, const ElementType& type,
                                      const PrintOptions& options) {
    const std::string& name = type.safetensors_only;
    if (name != "BF16" && name != "F8_E4M3" && name != "F8_E5M2" && name != "F8_E8M0")
        fail_usage("cannot print elements of type " + type.name());
    const std::int64_t total = view.element_count();
    const std::size_t itemsize = type.itemsize();
    constexpr std::int64_t kChunk = 1 << 18;
    std::vector<std::byte> raw(static_cast<std::size_t>(kChunk) * itemsize);
    std::vector<float> values(kChunk);
    Spool spool("the " + name + " values being printed");
    for (std::int64_t first = 0; first < total; first += kChunk) {
        const std::int64_t count = std::min(kChunk, total - first);
        copy_view(data, view, raw.data(), first, count);
        for (std::int64_t i = 0; i < count; ++i)
            values[i] = narrow_float_value(raw.data() + i * itemsize, name);
        spool.append(reinterpret_cast<const std::byte*>(values.data()), static_cast<std::size_t>(count) * 4);
    }
    const Mapping mapping = spool.map();
    return format_array(mapping.data(), View::contiguous(view.shape, 4, false), parse_dtype_descr("'<f4'"), options);
}

}  // namespace tslice
