// ggml_dequantize TYPE: the blocks of ggml type TYPE (Q8_0, ...) on standard input, dequantized
// by the library, as float32 on standard output. gguf_differential.py checks it against
// ggml's reference code written in Python.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "tslice/error.hpp"
#include "tslice/gguf.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: ggml_dequantize TYPE < blocks > floats\n";
        return 2;
    }
    const auto type = tslice::ggml_type_named(argv[1]);
    if (!type) {
        std::cerr << "ggml_dequantize: unknown type " << argv[1] << "\n";
        return 2;
    }
    std::freopen(nullptr, "rb", stdin);
    const std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (in.size() % type->block_bytes != 0) {
        std::cerr << "ggml_dequantize: " << in.size() << " bytes are not whole blocks of " << type->block_bytes << "\n";
        return 1;
    }
    const std::size_t blocks = in.size() / type->block_bytes;
    std::vector<float> out(blocks * type->block_elements);
    try {
        tslice::ggml_dequantize(*type, reinterpret_cast<const std::byte*>(in.data()), blocks, out.data());
    } catch (const tslice::Error& error) {
        std::cerr << "ggml_dequantize: " << error.what() << "\n";
        return error.exit_code();
    }
    std::fwrite(out.data(), sizeof(float), out.size(), stdout);
    return 0;
}
