// slice_file: a numpy index expression applied to an array file, through tslice's library.
//
//   slice_file IN "[1:, ..., ::-1]" OUT
//
// IN is a .npy, an .npz or a .safetensors file holding one array; OUT is written as a .npy,
// or as an .npz or .safetensors if its name ends so.
#include <cstdio>

#include <tslice/error.hpp>
#include <tslice/expr.hpp>
#include <tslice/run.hpp>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s IN EXPR OUT\n", argv[0]);
        return 2;
    }
    try {
        tslice::RunRequest request;
        request.input = argv[1];
        request.expr = tslice::parse_index_expr(argv[2]);
        request.output = argv[3];
        tslice::run(request);
    } catch (const tslice::ExprError& error) {
        std::fprintf(stderr, "slice_file: %s\n", error.describe().c_str());
        return error.exit_code();
    } catch (const tslice::Error& error) {
        std::fprintf(stderr, "slice_file: %s\n", error.what());
        return error.exit_code();
    }
    return 0;
}
