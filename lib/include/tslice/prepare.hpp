// The preparation every run shares, before any array data is read: the input opened and its
// arrays listed, the arrays chosen (-k, several keys, globs), each chosen one's ops and
// expression planned; then, for a run that reads data, the plan viewed over the array's bytes.
// A run that writes (run.hpp) and every dry run and report of the command line (--list,
// --shape, --explain, printing, --stats) go through these same steps, so they cannot disagree
// about which arrays a command means or what shape its result has.
//
//   tslice::Prepared prepared = tslice::Prepared::open("model.safetensors");
//   prepared.choose({"layers.0.*"});  // -k 'layers.0.*'
//   prepared.plan({}, tslice::parse_index_expr("[:, ::2]"));
//   for (std::size_t i = 0; i < prepared.planned().size(); ++i) {
//       const tslice::ViewedArray viewed = prepared.view(i);  // reads the array
//       ... viewed.result.data, viewed.result.view ...
//   }
//
// The steps are separate calls so that a caller checks what it must between them (that the
// chosen arrays fit its output, before an indices file is read); each throws tslice::Error,
// naming the input file where the error is about it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tslice/container.hpp"
#include "tslice/expr.hpp"
#include "tslice/ops.hpp"
#include "tslice/source.hpp"
#include "tslice/steps.hpp"

namespace tslice {

// One chosen array, planned.
struct PlannedArray {
    const ArrayInFile* array = nullptr;  // one of Prepared::arrays()
    Pipeline pipeline;
    ElementType type;  // the result's type as sliced (a field selection's, or the array's), before --astype
};

// A planned array's result over its bytes: `data` owns or maps them, `result` views them.
struct ViewedArray {
    ArrayData data;
    Result result;
    // The input pages the result is read from, for the read and write stages; none where the
    // pipeline had to make the result in memory (a gather of a gather).
    // Valid while this ViewedArray lives where it is.
    InputPages pages() const;
};

// How arrays are chosen, for what they are chosen for.
struct ChooseOptions {
    // --astype: a quantized GGUF tensor is chosen as the floats its blocks decode to.
    bool converting = false;
    // --list: an array tslice cannot read is chosen too (to be listed with its reason), where
    // otherwise it is Error(Input).
    bool listing = false;
};

struct ViewOptions {
    // The workers a region source (HDF5, Zarr) reads with; 0: default_thread_count().
    unsigned threads = 0;
    // The caller reads the result only through the read stage (ResultReader), which can take a
    // region source's box a band at a time (ViewedArray::data then holds no bytes). (A gather
    // of rows of a region source reads those rows only, for every caller.)
    bool bands = false;
};

struct PlanOptions {
    // A run that writes: an array whose bytes cannot be sliced as they are (a quantized GGUF
    // tensor) is Error(Usage) here, before anything is written. Otherwise view() says so when
    // it reads the array, and a dry run, which reads none, plans it like any other.
    bool refuse_unsliceable = false;
};

class Prepared {
public:
    // Opens `path` ("-": standard input) and lists its arrays. `headers_only`: a dry run,
    // which reads no array data (a .npy stream is read only through its header, an indices
    // file only through its shape).
    static Prepared open(const std::string& path, bool headers_only = false);

    Prepared(Prepared&&) = default;
    Prepared& operator=(Prepared&&) = default;
    // chosen() and planned() point into arrays(): a copy would point into the original.
    Prepared(const Prepared&) = delete;
    Prepared& operator=(const Prepared&) = delete;

    // Chooses the arrays `keys` name (names or globs, select_arrays; none: the only one), in
    // the file's order. Choosing again starts over.
    void choose(const std::vector<std::string>& keys, const ChooseOptions& options = {});

    // Plans `ops` (left to right) and then `expr` for each chosen array, reading the indices
    // files the ops name first (a dry run only their shapes).
    void plan(std::vector<OpSpec> ops, const std::optional<IndexExpr>& expr, const PlanOptions& options = {});

    // Reads the i-th planned array's bytes (only the box its plan reaches, for a region
    // source) and applies its pipeline.
    ViewedArray view(std::size_t i, const ViewOptions& options = {}) const;
    // Drops the i-th plan once viewed: a gather's indices would stay resident beside the view's
    // offset table, which holds all a copy needs.
    void forget_plan(std::size_t i) { planned_.at(i).pipeline = {}; }

    const std::string& path() const { return path_; }
    const InputBytes& input() const { return input_; }
    // Every array of the input, in its order (quantized ones as floats once chosen converting).
    const std::vector<ArrayInFile>& arrays() const { return arrays_; }
    const std::vector<const ArrayInFile*>& chosen() const { return chosen_; }
    const std::vector<PlannedArray>& planned() const { return planned_; }
    bool headers_only() const { return headers_only_; }

private:
    Prepared() = default;
    std::optional<ViewedArray> view_in_parts(const PlannedArray& planned, const ViewOptions& options) const;

    std::string path_;
    bool headers_only_ = false;
    InputBytes input_;
    std::vector<ArrayInFile> arrays_;
    std::vector<const ArrayInFile*> chosen_;
    std::vector<PlannedArray> planned_;
};

}  // namespace tslice
