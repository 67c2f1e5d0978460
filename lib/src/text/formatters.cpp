// One formatter per numpy Format class (numpy/core/arrayprint.py), each built like numpy's
// from exactly the elements that will be shown; and the str() of a 0-d array's scalar
// (numpy/core/src/multiarray/scalartypes.c.src).
#include "text/formatters.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/datetime_text.hpp"
#include "text/dragon4.hpp"
#include "text/element_value.hpp"
#include "base/python_text.hpp"

namespace tslice {
namespace {

bool is_finite(const Real& x) { return std::isfinite(x.value); }

// max / min computed in the array's own type, as numpy's fillFormat does (so float16 ratios
// round to float16 before they are compared with 1000).
long double ratio_in_kind(const Real& max, const Real& min) {
    switch (max.kind) {
        case FloatKind::Half:
            return round_to_half(static_cast<float>(max.value) / static_cast<float>(min.value));
        case FloatKind::Single: return static_cast<float>(max.value) / static_cast<float>(min.value);
        case FloatKind::Double: return static_cast<double>(max.value) / static_cast<double>(min.value);
        case FloatKind::Extended: return max.value / min.value;
    }
    return 0;
}

std::string pad_left_to(std::string text, std::size_t width) {
    if (text.size() < width) text.insert(0, width - text.size(), ' ');
    return text;
}

// numpy's FloatingFormat with floatmode 'maxprec', precision 8, suppress False; `plus` is
// sign='+' (the imaginary part of a complex number).
class FloatingFormat {
public:
    FloatingFormat(const std::vector<Real>& data, bool plus, int precision)
        : plus_(plus), option_precision_(precision), precision_(precision) {
        fill_format(data);
    }

    std::string operator()(const Real& x) const {
        if (!is_finite(x)) {
            std::string text;
            if (std::isnan(x.value)) text = plus_ ? "+nan" : "nan";
            else text = sign_text(x.value < 0, plus_) + "inf";
            return pad_left_to(text, static_cast<std::size_t>(pad_left_ + pad_right_ + 1));
        }
        if (exp_format_)
            return pad_whole(dragon4_scientific(x, precision_, precision_, Trim::Keep, plus_, exp_size_));
        std::string text = dragon4_positional(x, option_precision_, 0, Trim::Zeros, plus_);
        const std::size_t fraction = text.size() - text.find('.') - 1;
        if (fraction < static_cast<std::size_t>(pad_right_))
            text.append(static_cast<std::size_t>(pad_right_) - fraction, ' ');
        return pad_whole(text);
    }

private:
    // Dragon4's pad_left: spaces until the part before the point is pad_left_ wide.
    std::string pad_whole(const std::string& text) const {
        const std::size_t whole = text.find('.');
        const auto target = static_cast<std::size_t>(pad_left_);
        return whole < target ? std::string(target - whole, ' ') + text : text;
    }

    void fill_format(const std::vector<Real>& data) {
        std::vector<Real> finite;
        for (const Real& x : data)
            if (is_finite(x)) finite.push_back(x);
        choose_exp_format(finite);
        if (finite.empty()) {
            pad_left_ = pad_right_ = 0;
        } else if (exp_format_) {
            fill_exponential(finite);
        } else {
            fill_positional(finite);
        }
        if (finite.size() != data.size()) {
            bool neginf = plus_;
            for (const Real& x : data)
                if (std::isinf(x.value) && x.value < 0) neginf = true;
            const int offset = pad_right_ + 1;
            pad_left_ = std::max({pad_left_, 3 - offset, 3 + (neginf ? 1 : 0) - offset});
        }
    }

    void choose_exp_format(const std::vector<Real>& finite) {
        bool any = false;
        Real max, min;
        for (const Real& x : finite) {
            if (x.value == 0) continue;
            const Real magnitude{std::fabs(x.value), x.kind};
            if (!any || magnitude.value > max.value) max = magnitude;
            if (!any || magnitude.value < min.value) min = magnitude;
            any = true;
        }
        // numpy compares the array's scalars with the Python floats 1e8, 1e-4 and 1000
        // exactly (the double 1e-4, not the decimal).
        if (any)
            exp_format_ = max.value >= 1e8L || min.value < static_cast<long double>(1e-4) ||
                          ratio_in_kind(max, min) > 1000.0L;
    }

    void fill_exponential(const std::vector<Real>& finite) {
        std::size_t exp_length = 0, fraction_length = 0, whole_length = 0;
        for (const Real& x : finite) {
            const std::string text = dragon4_scientific(x, option_precision_, -1, Trim::Zeros, plus_, -1);
            const std::size_t e = text.find('e');
            const std::size_t dot = text.find('.');
            exp_length = std::max(exp_length, text.size() - e - 1);
            fraction_length = std::max(fraction_length, e - dot - 1);
            whole_length = std::max(whole_length, dot);
        }
        exp_size_ = static_cast<int>(exp_length) - 1;
        precision_ = static_cast<int>(fraction_length);
        pad_left_ = static_cast<int>(whole_length);
        pad_right_ = exp_size_ + 2 + precision_;
    }

    void fill_positional(const std::vector<Real>& finite) {
        std::size_t whole_length = 0, fraction_length = 0;
        for (const Real& x : finite) {
            const std::string text = dragon4_positional(x, option_precision_, -1, Trim::Zeros, plus_);
            const std::size_t dot = text.find('.');
            whole_length = std::max(whole_length, dot);
            fraction_length = std::max(fraction_length, text.size() - dot - 1);
        }
        pad_left_ = static_cast<int>(whole_length);
        pad_right_ = static_cast<int>(fraction_length);
    }

    bool plus_;
    bool exp_format_ = false;
    int option_precision_;  // set_printoptions(precision=)
    int precision_;         // the digits after the point in exponent format
    int pad_left_ = 0;
    int pad_right_ = 0;
    int exp_size_ = -1;
};

// str() of a float scalar: positional between 1e-4 and 1e16 (and for zero), else scientific.
std::string float_scalar_text(const Real& x, Trim positional_trim, Trim scientific_trim, bool plus) {
    if (std::isnan(x.value)) return "nan";
    if (std::isinf(x.value)) return sign_text(x.value < 0, plus) + "inf";
    // numpy compares with 1e-4L (the double 1e-4 for float16, but no float16 lies between).
    const long double magnitude = std::fabs(x.value);
    const bool positional = magnitude == 0 || (magnitude < 1e16L && magnitude >= 1e-4L);
    if (positional) return dragon4_positional(x, -1, -1, positional_trim, plus);
    return dragon4_scientific(x, -1, -1, scientific_trim, plus, -1);
}

std::string complex_scalar_text(const Real& real, const Real& imag) {
    constexpr Trim trim = Trim::DotAndZeros;
    if (real.value == 0 && !std::signbit(real.value))
        return float_scalar_text(imag, trim, trim, false) + "j";
    std::string real_text, imag_text;
    if (is_finite(real)) real_text = float_scalar_text(real, trim, trim, false);
    else if (std::isnan(real.value)) real_text = "nan";
    else real_text = real.value > 0 ? "inf" : "-inf";
    if (is_finite(imag)) imag_text = float_scalar_text(imag, trim, trim, true);
    else if (std::isnan(imag.value)) imag_text = "+nan";
    else imag_text = imag.value > 0 ? "+inf" : "-inf";
    return "(" + real_text + imag_text + "j)";
}
// numpy scalars drop trailing NULs before Python's repr sees them.
std::string bytes_scalar_repr(const std::byte* p, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(p), size);
    while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
    return bytes_repr(text);
}

std::string unicode_text(const std::u32string& text) {
    std::string out;
    for (char32_t c : text) append_utf8(out, c);
    return out;
}

// str() of a plain void scalar: every byte as \xHH, upper case, NULs kept.
std::string void_text(const std::byte* p, std::size_t size) {
    std::string out = "b'";
    for (std::size_t i = 0; i < size; ++i) {
        out += "\\x";
        append_hex(out, static_cast<std::uint32_t>(p[i]), 2, true);
    }
    return out + "'";
}

class BoolFormat final : public Formatter {
public:
    // 0-d data (a field of a 0-d structured array) prints "True" without numpy's alignment space.
    explicit BoolFormat(bool zero_d) : true_text_(zero_d ? "True" : " True") {}
    std::string operator()(const std::byte* element) const override {
        return std::to_integer<int>(*element) != 0 ? true_text_ : "False";
    }

private:
    std::string true_text_;
};

class IntegerFormat final : public Formatter {
public:
    IntegerFormat(const DType& dtype, const Pointers& data) : dtype_(dtype) {
        if (data.empty()) return;
        Int128 max = load_integer(data.front(), dtype), min = max;
        for (const std::byte* p : data) {
            const Int128 value = load_integer(p, dtype);
            max = std::max(max, value);
            min = std::min(min, value);
        }
        width_ = std::max(integer_text(max).size(), integer_text(min).size());
    }
    std::string operator()(const std::byte* element) const override {
        return pad_left_to(integer_text(load_integer(element, dtype_)), width_);
    }

private:
    DType dtype_;
    std::size_t width_ = 0;
};

struct RealReader {
    FloatKind kind;
    bool swap;
    std::size_t size;
    Real operator()(const std::byte* p) const { return load_real(p, kind, swap, size); }
};

class FloatFormat final : public Formatter {
public:
    FloatFormat(const DType& dtype, const Pointers& data, int precision)
        : read_{float_kind(dtype, dtype.itemsize), swapped(dtype.byte_order), dtype.itemsize},
          format_(read_all(data), false, precision) {}
    std::string operator()(const std::byte* element) const override { return format_(read_(element)); }

private:
    std::vector<Real> read_all(const Pointers& data) const {
        std::vector<Real> values;
        values.reserve(data.size());
        for (const std::byte* p : data) values.push_back(read_(p));
        return values;
    }
    RealReader read_;
    FloatingFormat format_;
};

RealReader complex_part_reader(const DType& dtype) {
    const std::size_t part = dtype.itemsize / 2;
    return {float_kind(dtype, part), swapped(dtype.byte_order), part};
}

std::vector<Real> read_parts(const RealReader& read, const Pointers& data, std::size_t offset) {
    std::vector<Real> values;
    values.reserve(data.size());
    for (const std::byte* p : data) values.push_back(read(p + offset));
    return values;
}

class ComplexFloatingFormat final : public Formatter {
public:
    ComplexFloatingFormat(const DType& dtype, const Pointers& data, int precision)
        : read_(complex_part_reader(dtype)),
          real_(read_parts(read_, data, 0), false, precision),
          imag_(read_parts(read_, data, read_.size), true, precision) {}
    std::string operator()(const std::byte* element) const override {
        const std::string r = real_(read_(element));
        std::string i = imag_(read_(element + read_.size));
        // The 'j' goes before the imaginary part's right padding.
        const std::size_t end = i.find_last_not_of(' ') + 1;
        i.insert(end, "j");
        return r + i;
    }

private:
    RealReader read_;
    FloatingFormat real_;
    FloatingFormat imag_;
};

// numpy's 'numpystr' formatter: repr() of each bytes or str scalar, unpadded.
class ReprFormat final : public Formatter {
public:
    explicit ReprFormat(const DType& dtype) : dtype_(dtype) {}
    std::string operator()(const std::byte* element) const override {
        if (dtype_.kind == 'S') return bytes_scalar_repr(element, dtype_.itemsize);
        return str_repr(load_code_points(element, dtype_));
    }

private:
    DType dtype_;
};

// numpy's 'void' formatter: str() of each plain void scalar.
class VoidFormat final : public Formatter {
public:
    explicit VoidFormat(std::size_t size) : size_(size) {}
    std::string operator()(const std::byte* element) const override { return void_text(element, size_); }

private:
    std::size_t size_;
};

// numpy's _TimelikeFormat: the width is that of the largest and smallest values' text (not
// of every value's), widened to 5 when a NaT is shown as 'NaT'.
class TimelikeFormat final : public Formatter {
public:
    TimelikeFormat(const DType& dtype, const Pointers& data)
        : dtype_(dtype), meta_(time_meta(dtype)) {
        bool any = false, nat = false;
        std::int64_t max = 0, min = 0;
        for (const std::byte* p : data) {
            const std::int64_t value = load_time(p, dtype);
            if (value == kNaT) {
                nat = true;
                continue;
            }
            if (!any || value > max) max = value;
            if (!any || value < min) min = value;
            any = true;
        }
        if (any) width_ = std::max(non_nat_text(max).size(), non_nat_text(min).size());
        if (nat) width_ = std::max<std::size_t>(width_, 5);
    }
    std::string operator()(const std::byte* element) const override {
        const std::int64_t value = load_time(element, dtype_);
        return pad_left_to(value == kNaT ? "'NaT'" : non_nat_text(value), width_);
    }

private:
    std::string non_nat_text(std::int64_t value) const {
        if (dtype_.kind == 'm') return integer_text(value);
        return "'" + datetime_text(value, meta_, dtype_) + "'";
    }

    DType dtype_;
    TimeMeta meta_;
    std::size_t width_ = 0;
};

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
    std::int64_t count = 1;
    for (auto length : shape) count *= length;
    return count;
}

// numpy's SubArrayFormat: a field's sub-array as nested lists joined by ", ".
class SubArrayFormat final : public Formatter {
public:
    SubArrayFormat(FormatterPtr inner, std::vector<std::int64_t> shape, std::size_t itemsize)
        : inner_(std::move(inner)), shape_(std::move(shape)), itemsize_(itemsize) {}
    std::string operator()(const std::byte* element) const override { return render(element, 0); }

private:
    std::string render(const std::byte* p, std::size_t axis) const {
        std::vector<std::int64_t> rest(shape_.begin() + static_cast<std::ptrdiff_t>(axis) + 1, shape_.end());
        const auto step = static_cast<std::int64_t>(itemsize_) * element_count(rest);
        std::string out = "[";
        for (std::int64_t i = 0; i < shape_[axis]; ++i) {
            if (i) out += ", ";
            const std::byte* item = p + i * step;
            out += axis + 1 == shape_.size() ? (*inner_)(item) : render(item, axis + 1);
        }
        return out + "]";
    }

    FormatterPtr inner_;
    std::vector<std::int64_t> shape_;
    std::size_t itemsize_;
};

// numpy drops the nameless void fields np.save writes for padding (descr_to_dtype).
bool is_padding(const DType::Field& field) {
    return field.name.empty() && field.type->kind == 'V' && !field.type->structured;
}

// numpy's StructuredVoidFormat: "(a, b)", or "(a,)" for one field, each field with a
// formatter built from that field's values over all shown elements.
class StructuredVoidFormat final : public Formatter {
public:
    StructuredVoidFormat(const DType& dtype, const Pointers& data, bool zero_d, int precision) {
        for (const DType::Field& field : dtype.fields) {
            if (is_padding(field)) continue;
            fields_.push_back({field.offset, field_formatter(field, data, zero_d, precision)});
        }
    }
    std::string operator()(const std::byte* element) const override {
        std::string out = "(";
        for (std::size_t i = 0; i < fields_.size(); ++i) {
            if (i) out += ", ";
            out += (*fields_[i].format)(element + fields_[i].offset);
        }
        return out + (fields_.size() == 1 ? ",)" : ")");
    }

private:
    static FormatterPtr field_formatter(const DType::Field& field, const Pointers& data, bool zero_d, int precision) {
        const DType& type = *field.type;
        Pointers values;
        if (field.subshape.empty()) {
            values.reserve(data.size());
            for (const std::byte* p : data) values.push_back(p + field.offset);
            return make_formatter(type, values, zero_d, precision);
        }
        const std::int64_t count = element_count(field.subshape);
        for (const std::byte* p : data)
            for (std::int64_t k = 0; k < count; ++k)
                values.push_back(p + field.offset + k * static_cast<std::int64_t>(type.itemsize));
        return std::make_unique<SubArrayFormat>(make_formatter(type, values, false, precision), field.subshape,
                                                type.itemsize);
    }

    struct FieldFormat {
        std::size_t offset;
        FormatterPtr format;
    };
    std::vector<FieldFormat> fields_;
};

// Sizes numpy has for each kind (float sizes are checked by float_kind), so that reading an
// element never goes past it.
void check_itemsize(const DType& dtype) {
    const std::size_t size = dtype.itemsize;
    bool valid = size > 0;
    switch (dtype.kind) {
        case 'b': valid = size == 1; break;
        case 'i':
        case 'u': valid = size == 1 || size == 2 || size == 4 || size == 8; break;
        case 'M':
        case 'm': valid = size == 8; break;
        case 'c': valid = size % 2 == 0; break;
        case 'U': valid = size % 4 == 0; break;
        default: break;
    }
    if (!valid) unprintable(dtype);
}

}  // namespace

// numpy's _get_format_function.
FormatterPtr make_formatter(const DType& dtype, const Pointers& data, bool zero_d, int precision) {
    if (dtype.structured) return std::make_unique<StructuredVoidFormat>(dtype, data, zero_d, precision);
    check_itemsize(dtype);
    switch (dtype.kind) {
        case 'b': return std::make_unique<BoolFormat>(zero_d);
        case 'i':
        case 'u': return std::make_unique<IntegerFormat>(dtype, data);
        case 'f': return std::make_unique<FloatFormat>(dtype, data, precision);
        case 'c': return std::make_unique<ComplexFloatingFormat>(dtype, data, precision);
        case 'S':
        case 'U': return std::make_unique<ReprFormat>(dtype);
        case 'V': return std::make_unique<VoidFormat>(dtype.itemsize);
        case 'M':
        case 'm': return std::make_unique<TimelikeFormat>(dtype, data);
        default: unprintable(dtype);
    }
}

std::string scalar_text(const std::byte* p, const DType& dtype, int precision) {
    if (dtype.structured) return (*make_formatter(dtype, {p}, true, precision))(p);
    check_itemsize(dtype);
    switch (dtype.kind) {
        case 'b': return std::to_integer<int>(*p) != 0 ? "True" : "False";
        case 'i':
        case 'u': return integer_text(load_integer(p, dtype));
        case 'f': {
            const Real x = load_real(p, float_kind(dtype, dtype.itemsize), swapped(dtype.byte_order),
                                     dtype.itemsize);
            return float_scalar_text(x, Trim::LeaveOneZero, Trim::DotAndZeros, false);
        }
        case 'c': {
            const RealReader read = complex_part_reader(dtype);
            return complex_scalar_text(read(p), read(p + read.size));
        }
        case 'S': return bytes_scalar_repr(p, dtype.itemsize);
        case 'U': return unicode_text(load_code_points(p, dtype));
        case 'V': return void_text(p, dtype.itemsize);
        case 'M': return datetime_text(load_time(p, dtype), time_meta(dtype), dtype);
        case 'm': return timedelta_scalar_text(load_time(p, dtype), time_meta(dtype));
        default: unprintable(dtype);
    }
}
}  // namespace tslice
