// The A/B behind tslice's one JSON reading path: a safetensors header read once, in a fresh
// process (as `--list` reads it: the heap cold, every page it grows a fault), by
//   map     nothing but mapping the file and touching the header (the floor),
//   reader  the strict reader of tslice's own that safetensors headers had before
//           (own_json_reader.cpp), the entries built as its safetensors.cpp built them,
//   sax     nlohmann's SAX parser feeding the same entries, without a tree,
//   dom     nlohmann::json::parse (a DOM), for scale,
//   list    list_safetensors itself (the library's reading path, every check, ArrayInFile).
// Usage: tslice_json_header_bench MODE FILE.safetensors [ROUNDS]
// Given ROUNDS, it also prints the first (cold) and the median in-process time of MODE's parse.
// Time whole runs with hyperfine, modes alternated (bench/json_header_ab.py does).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "own_json_reader.hpp"
#include "tslice/container.hpp"

namespace {

struct Entry {
    std::string name;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;
    std::string dtype;
};

// What safetensors.cpp's read_header does with the reader: a syntax pass, then the entries.
std::vector<Entry> with_reader(std::string_view text) {
    using tslice::json::Reader;
    Reader syntax(text);
    syntax.skip_value();
    syntax.finish();
    Reader reader(text);
    std::vector<Entry> entries;
    reader.expect('{', "'{'");
    if (reader.consume('}')) return entries;
    do {
        std::string name = reader.string();
        reader.expect(':', "':'");
        if (name == "__metadata__") {
            reader.skip_value();
            continue;
        }
        Entry entry;
        entry.name = std::move(name);
        reader.expect('{', "'{'");
        if (!reader.consume('}')) {
            do {
                const std::string key = reader.string();
                reader.expect(':', "':'");
                if (key == "dtype") {
                    entry.dtype = reader.string();
                } else if (key == "shape" || key == "data_offsets") {
                    Reader list(reader.skip_value());
                    std::vector<std::uint64_t> values;
                    list.expect('[', "'['");
                    if (!list.consume(']')) {
                        do values.push_back(list.unsigned_integer().value());
                        while (list.consume(','));
                    }
                    if (key == "shape") {
                        entry.shape.assign(values.begin(), values.end());
                    } else if (values.size() == 2) {
                        entry.begin = values[0];
                        entry.end = values[1];
                    }
                } else {
                    reader.skip_value();
                }
            } while (reader.consume(','));
            reader.expect('}', "'}'");
        }
        entries.push_back(std::move(entry));
    } while (reader.consume(','));
    reader.expect('}', "'}'");
    reader.finish();
    return entries;
}

// The same entries from nlohmann's SAX events: depth 1 names a tensor, depth 2 a field,
// depth 3 the numbers of "shape" or "data_offsets".
class EntriesSax {
public:
    using json = nlohmann::json;
    std::vector<Entry> entries;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t value) { return number(static_cast<std::uint64_t>(value)); }
    bool number_unsigned(json::number_unsigned_t value) { return number(value); }
    bool number_float(json::number_float_t, const json::string_t&) { return true; }
    bool string(json::string_t& value) {
        if (depth_ == 2 && in_tensor_ && field_ == "dtype") entries.back().dtype = std::move(value);
        return true;
    }
    bool binary(json::binary_t&) { return false; }
    bool start_object(std::size_t) {
        ++depth_;
        if (depth_ == 2) {
            in_tensor_ = key_ != "__metadata__";
            if (in_tensor_) entries.push_back(Entry{std::move(key_), {}, 0, 0, {}});
        }
        return true;
    }
    bool key(json::string_t& name) {
        if (depth_ == 1) key_ = std::move(name);
        else if (depth_ == 2) field_ = std::move(name);
        return true;
    }
    bool end_object() {
        --depth_;
        return true;
    }
    bool start_array(std::size_t) {
        ++depth_;
        numbers_.clear();
        return true;
    }
    bool end_array() {
        if (depth_ == 3 && in_tensor_) {
            if (field_ == "shape") {
                entries.back().shape.assign(numbers_.begin(), numbers_.end());
            } else if (field_ == "data_offsets" && numbers_.size() == 2) {
                entries.back().begin = numbers_[0];
                entries.back().end = numbers_[1];
            }
        }
        --depth_;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

private:
    bool number(std::uint64_t value) {
        if (depth_ == 3) numbers_.push_back(value);
        return true;
    }
    int depth_ = 0;
    bool in_tensor_ = false;
    std::string key_, field_;
    std::vector<std::uint64_t> numbers_;
};

std::vector<Entry> with_sax(std::string_view text) {
    EntriesSax sax;
    if (!nlohmann::json::sax_parse(text, &sax)) std::exit(3);
    return std::move(sax.entries);
}

std::size_t with_dom(std::string_view text) { return nlohmann::json::parse(text).size(); }

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s map|reader|sax|dom|list FILE.safetensors [ROUNDS]\n", argv[0]);
        return 2;
    }
    const std::string mode = argv[1];
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 1;
    const int fd = ::open(argv[2], O_RDONLY);
    struct stat info {};
    if (fd < 0 || ::fstat(fd, &info) != 0) return 1;
    const auto size = static_cast<std::size_t>(info.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return 1;
    const auto* file = static_cast<const std::byte*>(map);
    std::uint64_t length = 0;
    std::memcpy(&length, file, 8);
    const std::string_view text(reinterpret_cast<const char*>(file) + 8, length);
    std::size_t touched = 0;
    for (std::size_t i = 0; i < text.size(); i += 4096) touched += static_cast<unsigned char>(text[i]);

    std::vector<double> times;
    std::size_t found = 0;
    for (int r = 0; r < rounds; ++r) {
        const auto start = std::chrono::steady_clock::now();
        if (mode == "map") found = touched;
        else if (mode == "reader") found = with_reader(text).size();
        else if (mode == "sax") found = with_sax(text).size();
        else if (mode == "dom") found = with_dom(text);
        else if (mode == "list") found = tslice::list_safetensors(file, size).size();
        else return 2;
        times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    if (argc > 3) {
        const double first = times[0];
        std::sort(times.begin(), times.end());
        std::printf("%s: %zu entries; first %.1f us, median of %d %.1f us\n", mode.c_str(), found, first, rounds,
                    times[times.size() / 2]);
    }
    return found == 0 && mode != "map" ? 1 : 0;
}
