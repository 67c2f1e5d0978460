// slice_file: a numpy index expression applied to an array file, through tslice's library.
//
//   slice_file IN.npy "[1:, ..., ::-1]" OUT.npy
//
// IN may be a .npy, an .npz or a .safetensors file holding one array; OUT is a .npy.
#include <cstdio>
#include <optional>

#include <tslice/container.hpp>
#include <tslice/error.hpp>
#include <tslice/expr.hpp>
#include <tslice/npy.hpp>
#include <tslice/source.hpp>
#include <tslice/steps.hpp>
#include <tslice/write.hpp>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s IN EXPR OUT.npy\n", argv[0]);
        return 2;
    }
    try {
        const tslice::IndexExpr expr = tslice::parse_index_expr(argv[2]);
        // Read: one mapping of the input, the array in it.
        const tslice::InputBytes input = tslice::InputBytes::open(argv[1]);
        const auto arrays = tslice::list_arrays(input.data(), input.size(), input.complete());
        const tslice::ArrayInFile& array = tslice::select_array(arrays, std::nullopt);
        // Plan: shapes and numbers only.
        const tslice::Pipeline pipeline = tslice::plan_pipeline(array.shape, {}, expr);
        // View: the plan over the array's bytes; write: copied chunk by chunk into OUT.
        const tslice::ArrayData data = tslice::ArrayData::open(input, array, "the array");
        const tslice::Result result = tslice::apply_pipeline(pipeline, data.data(), data.view());
        const tslice::OutputFraming npy{tslice::make_npy_header(array.type.dtype, pipeline.output_shape()), 0, {}};
        tslice::write_view(argv[3], npy, result.data, result.view, {}, {});
    } catch (const tslice::Error& error) {
        std::fprintf(stderr, "slice_file: %s\n", error.what());
        return error.exit_code();
    }
    return 0;
}
