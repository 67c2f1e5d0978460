// What the fuzz targets share: reporting a finding, and reading structured choices from the
// fuzzer's bytes.
//
// A target returns normally for every input that tslice handles as it should: a result, or a
// tslice::Error (the contract's exit codes 1 and 2). Anything else is a finding: a sanitizer
// report, an uncaught exception of another type (std::terminate, so libFuzzer reports it), or
// a wrong result, reported by finding(), which aborts.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace tslice_fuzz {

[[noreturn]] inline void finding(const char* format, ...) {
    std::va_list arguments;
    va_start(arguments, format);
    std::fputs("tslice fuzz finding: ", stderr);
    std::vfprintf(stderr, format, arguments);
    std::fputs("\n", stderr);
    va_end(arguments);
    std::abort();
}

#define TSLICE_FUZZ_CHECK(condition, ...)                                                 \
    do {                                                                                  \
        if (!(condition)) ::tslice_fuzz::finding("%s:%d: %s", __FILE__, __LINE__, #condition); \
    } while (0)

// Reads choices from the front of the input; once the bytes run out every read gives 0, so
// any input, however short, describes one case (as FuzzedDataProvider does).
class ByteReader {
public:
    ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

    std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
    // A number in [low, high].
    std::int64_t range(std::int64_t low, std::int64_t high) {
        const auto span = static_cast<std::uint64_t>(high - low) + 1;
        std::uint64_t value = 0;
        for (std::uint64_t reach = 1; reach < span && reach != 0; reach <<= 8) value = (value << 8) | byte();
        return low + static_cast<std::int64_t>(span == 0 ? value : value % span);
    }
    bool coin() { return byte() & 1; }
    bool empty() const { return pos_ >= size_; }
    // Whatever is left, as text.
    std::string_view rest() {
        const std::string_view text(reinterpret_cast<const char*>(data_) + pos_, size_ - pos_);
        pos_ = size_;
        return text;
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

}  // namespace tslice_fuzz
