// A stand-in for a file's page cache under a test's bytes: a Mapping over no file whose page
// calls go to the hooks a test sets (offsets from `base`, as InputPages gives them), so that a
// test sees what a copy asks of the pages, in order. Unset hooks behave as a warm page cache
// that takes no advice: reads copy from `base`, every page is cached, a read in is a read
// ahead, advice does nothing.
#pragma once

#include <cstring>
#include <functional>
#include <string>

#include "tslice/source.hpp"

namespace tslice {

class FakePages : public Mapping {
public:
    using Range = std::function<void(std::int64_t begin, std::int64_t end)>;
    explicit FakePages(const std::byte* base) : base_(base) {}
    // A real mapping of `file` (which it takes) whose page calls still go to the hooks where set.
    FakePages(void* map, std::size_t size, int file, std::size_t data_offset)
        : Mapping(map, size, file), base_(data() + data_offset), real_(true) {}

    InputPages pages() const { return InputPages(*this, base_, what_); }

    Range on_release, on_unmap, on_read_ahead, on_read_in, on_map_ahead;
    std::function<void(std::int64_t begin, std::int64_t bytes, std::byte* dst)> on_read;
    std::function<std::int64_t(std::int64_t begin, std::int64_t bytes, std::byte* dst)> on_read_cached;
    std::function<bool(std::int64_t at)> on_cached;

private:
    std::int64_t at(const std::byte* p) const { return p - base_; }
    void release(const std::byte* b, const std::byte* e) const override {
        if (on_release) on_release(at(b), at(e));
        else if (real_) Mapping::release(b, e);
    }
    void unmap(const std::byte* b, const std::byte* e) const override {
        if (on_unmap) on_unmap(at(b), at(e));
        else if (real_) Mapping::unmap(b, e);
    }
    void read_ahead(const std::byte* b, const std::byte* e) const override {
        if (on_read_ahead) on_read_ahead(at(b), at(e));
    }
    void read_in(const std::byte* b, const std::byte* e) const override {
        if (on_read_in) on_read_in(at(b), at(e));
        else if (on_read_ahead) on_read_ahead(at(b), at(e));
    }
    void map_ahead(const std::byte* b, const std::byte* e) const override {
        if (on_map_ahead) on_map_ahead(at(b), at(e));
    }
    void read(const std::byte* p, std::size_t bytes, std::byte* dst, const std::string& what) const override {
        if (on_read) on_read(at(p), static_cast<std::int64_t>(bytes), dst);
        else if (real_) Mapping::read(p, bytes, dst, what);
        else std::memcpy(dst, p, bytes);
    }
    std::size_t read_cached(const std::byte* p, std::size_t bytes, std::byte* dst) const override {
        if (on_read_cached) return static_cast<std::size_t>(on_read_cached(at(p), static_cast<std::int64_t>(bytes), dst));
        std::memcpy(dst, p, bytes);
        return bytes;
    }
    bool cached(const std::byte* p) const override { return on_cached ? on_cached(at(p)) : true; }

    const std::byte* base_;
    bool real_ = false;
    std::string what_ = "the test's bytes";
};

}  // namespace tslice
