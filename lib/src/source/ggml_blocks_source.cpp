// A quantized GGUF tensor read as float32 (--astype): a RegionSource over the input's mapping
// that decodes only the blocks a box reaches, row by row, as ggml's reference code decodes
// them (ggml_dequantize), and hands ArrayData::open_region the box's floats in C order. The
// pipeline then plans and copies an ordinary float32 array; a conversion to float16 or
// float64 runs on those floats as for any other float32 source.
#include <algorithm>
#include <vector>

#include "tslice/error.hpp"
#include "tslice/gguf.hpp"
#include "tslice/threads.hpp"
#include "tslice/source.hpp"

namespace tslice {
namespace {

// A tensor is stored as rows along its last numpy axis (GGUF's ne[0]), each row whole blocks.
class QuantizedTensor final : public RegionSource {
public:
    QuantizedTensor(const std::byte* file, const GgmlType& type) : file_(file), type_(type) {}

    std::vector<ArrayInFile> list() const override { return {}; }

    void read(const ArrayInFile& array, const Box& box, std::byte* dst, unsigned threads,
              const Written& written) const override {
        const std::size_t rank = array.shape.size();
        if (rank == 0 || box.element_count() == 0) return;
        const std::int64_t row_length = array.shape.back();
        const auto block = static_cast<std::int64_t>(type_.block_elements);
        const std::int64_t row_bytes = row_length / block * static_cast<std::int64_t>(type_.block_bytes);
        // The blocks of a row the box's last axis reaches.
        const std::int64_t first_block = box.start.back() / block;
        const std::int64_t blocks = (box.stop.back() - 1) / block - first_block + 1;
        const std::int64_t skip = box.start.back() - first_block * block;
        const std::int64_t width = box.stop.back() - box.start.back();
        // The box's rows, in C order: an index over its outer axes.
        std::int64_t rows = 1;
        for (std::size_t k = 0; k + 1 < rank; ++k) rows *= box.stop[k] - box.start[k];
        const auto row_of = [&](std::int64_t index) {  // the tensor's row number of the box's row `index`
            std::int64_t row = 0, stride = 1;
            for (std::size_t k = rank - 1; k-- > 0;) {
                const std::int64_t extent = box.stop[k] - box.start[k];
                row += (box.start[k] + index % extent) * stride;
                index /= extent;
                stride *= array.shape[k];
            }
            return row;
        };
        // Rows in parts, each part's floats written in place; a part is decoded through one
        // row's buffer of floats.
        const unsigned parts = static_cast<unsigned>(std::clamp<std::int64_t>(rows / 16, 1, 4 * std::max(1u, threads)));
        WorkerPool pool(std::min<unsigned>(threads, parts));
        float* const out = reinterpret_cast<float*>(dst);
        pool.run(parts, [&](unsigned part) {
            const std::int64_t begin = rows * part / parts, end = rows * (part + 1) / parts;
            std::vector<float> decoded(static_cast<std::size_t>(blocks * block));
            for (std::int64_t index = begin; index < end; ++index) {
                const std::byte* blocks_at = file_ + array.bytes.offset + row_of(index) * row_bytes +
                                             first_block * static_cast<std::int64_t>(type_.block_bytes);
                ggml_dequantize(type_, blocks_at, static_cast<std::size_t>(blocks), decoded.data());
                std::copy_n(decoded.data() + skip, width, out + index * width);
            }
            if (written)
                written(reinterpret_cast<std::byte*>(out + begin * width), reinterpret_cast<std::byte*>(out + end * width));
        });
    }

private:
    const std::byte* file_;
    GgmlType type_;
};

}  // namespace

ArrayInFile dequantized(const ArrayInFile& array) {
    if (array.quantized.empty() || array.bytes.kind != ArrayBytes::Kind::Mapped) return array;
    const std::optional<GgmlType> type = ggml_type_named(array.quantized);
    if (!type || !ggml_can_dequantize(*type)) return array;
    ArrayInFile out = array;
    out.type = ElementType{parse_dtype_descr("'<f4'"), {}};
    out.quantized.clear();
    out.bytes.kind = ArrayBytes::Kind::Quantized;
    out.bytes.ggml_type = type->name;
    return out;
}

ArrayData ArrayData::open_quantized(const InputBytes& input, const ArrayInFile& array, const Box& box,
                                    const std::string& what) {
    const std::optional<GgmlType> type = ggml_type_named(array.bytes.ggml_type);
    if (!type) throw Error(ErrorKind::Internal, "internal: " + what + " has no ggml type to decode");
    const QuantizedTensor source(input.data(), *type);
    return open_region(source, array, box, what);
}

}  // namespace tslice
