// numpy 1.24's str(array) with the default print options, rebuilt piece by piece from
// numpy/core/arrayprint.py: each formatter class below mirrors one numpy Format class, is
// built like numpy's from exactly the elements that will be shown, and Layout mirrors
// _formatArray/_extendLine. 0-d arrays follow numpy's scalar str rules
// (numpy/core/src/multiarray/scalartypes.c.src). Float digits come from a port of numpy's
// Dragon4, whose rounding of a cut-off last digit follows its own margin tests and so is
// not always the exact value's rounding (float16 2**-6 prints 1.563e-02 beside 1.001e-05).
#include "tslice/print.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "tslice/error.hpp"

namespace tslice {
namespace {

// numpy's default print options.
constexpr std::int64_t kLineWidth = 75;
constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;
constexpr int kPrecision = 8;

using Pointers = std::vector<const std::byte*>;

// Wide enough for every numpy integer, signed or unsigned, and for exact binary16 arithmetic.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

[[noreturn]] void unsupported(const DType& dtype) {
    const std::string name = dtype.type_string.empty() ? dtype.descr : dtype.type_string;
    throw Error(ErrorKind::Usage,
                "printing " + name + " values is not supported; write the result with -o FILE");
}

// ---------------------------------------------------------------------------------------------
// Reading elements

// Elements are assembled little-end first below, as on the x86-64 hosts tslice targets
// (whose x87 long double is also assumed).
static_assert(std::endian::native == std::endian::little, "the printer assumes a little-endian host");

bool swapped(char byte_order) { return byte_order == '>'; }

// The element's bytes in native order.
void load_native(const std::byte* src, std::size_t size, bool swap, void* dst) {
    std::memcpy(dst, src, size);
    if (swap) {
        auto* bytes = static_cast<unsigned char*>(dst);
        std::reverse(bytes, bytes + size);
    }
}

// Any numpy integer (and timedelta/datetime) fits in Int128 with its sign intact, so one
// comparison serves signed and unsigned kinds alike.
Int128 load_integer(const std::byte* p, const DType& dtype) {
    std::uint64_t bits = 0;
    load_native(p, dtype.itemsize, swapped(dtype.byte_order), &bits);
    if (dtype.kind == 'u') return bits;
    const auto unused = static_cast<unsigned>(64 - 8 * dtype.itemsize);  // sign-extend
    return static_cast<std::int64_t>(bits << unused) >> unused;
}

std::string integer_text(Int128 value) {
    const bool negative = value < 0;
    UInt128 magnitude = negative ? -static_cast<UInt128>(value) : static_cast<UInt128>(value);
    std::string digits;
    do {
        digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
        magnitude /= 10;
    } while (magnitude != 0);
    if (negative) digits.push_back('-');
    std::reverse(digits.begin(), digits.end());
    return digits;
}

// The float formats numpy has; every value of each is exactly a long double (x87 80-bit).
enum class FloatKind { Half, Single, Double, Extended };

struct Real {
    long double value = 0;
    FloatKind kind = FloatKind::Double;
};

static_assert(LDBL_MANT_DIG >= 53, "long double must hold every double exactly");

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    const std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// The nearest binary16 value (ties to even), as numpy's float->half cast rounds.
float round_to_half(float value) {
    if (std::isnan(value)) return value;
    const float magnitude = std::fabs(value);
    if (magnitude >= 65520.0f) return std::copysign(INFINITY, value);
    int exponent = 0;
    std::frexp(magnitude, &exponent);  // magnitude in [2^(exponent-1), 2^exponent)
    const int quantum = std::max(exponent - 11, -24);
    const float rounded = std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantum)), quantum);
    return std::copysign(rounded, value);
}

FloatKind float_kind(const DType& dtype, std::size_t size) {
    switch (size) {
        case 2: return FloatKind::Half;
        case 4: return FloatKind::Single;
        case 8: return FloatKind::Double;
        case 12:
        case 16:
            if (LDBL_MANT_DIG == 64 && sizeof(long double) >= 10) return FloatKind::Extended;
            break;
        default: break;
    }
    unsupported(dtype);
}

Real load_real(const std::byte* p, FloatKind kind, bool swap, std::size_t size) {
    unsigned char raw[16] = {};
    load_native(p, size, swap, raw);
    switch (kind) {
        case FloatKind::Half: {
            std::uint16_t bits;
            std::memcpy(&bits, raw, 2);
            return {half_to_float(bits), kind};
        }
        case FloatKind::Single: {
            float value;
            std::memcpy(&value, raw, 4);
            return {value, kind};
        }
        case FloatKind::Double: {
            double value;
            std::memcpy(&value, raw, 8);
            return {value, kind};
        }
        case FloatKind::Extended: {
            long double value = 0;
            std::memcpy(&value, raw, 10);  // the x87 format's 10 bytes; the rest is padding
            return {value, kind};
        }
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Float digits: a port of numpy's Dragon4 (numpy/core/src/multiarray/dragon4.c)

// Just enough unsigned big-integer arithmetic for Dragon4: numpy scales the value, its
// rounding margins and a power of ten to integers of up to ~16500 bits (long double).
class BigInt {
public:
    explicit BigInt(std::uint64_t value = 0) {
        if (value) words_.push_back(static_cast<std::uint32_t>(value));
        if (value >> 32) words_.push_back(static_cast<std::uint32_t>(value >> 32));
    }

    static BigInt pow2(int exponent) {
        BigInt result(1);
        result.shift_left(exponent);
        return result;
    }

    void shift_left(int bits) {
        if (words_.empty() || bits == 0) return;
        const auto word_shift = static_cast<std::size_t>(bits / 32);
        const int bit_shift = bits % 32;
        std::vector<std::uint32_t> shifted(word_shift, 0);
        std::uint32_t carry = 0;
        for (std::uint32_t word : words_) {
            shifted.push_back(bit_shift ? (word << bit_shift) | carry : word);
            carry = bit_shift ? word >> (32 - bit_shift) : 0;
        }
        if (carry) shifted.push_back(carry);
        words_ = std::move(shifted);
    }

    void multiply(std::uint32_t factor) {
        std::uint64_t carry = 0;
        for (std::uint32_t& word : words_) {
            const std::uint64_t product = static_cast<std::uint64_t>(word) * factor + carry;
            word = static_cast<std::uint32_t>(product);
            carry = product >> 32;
        }
        if (carry) words_.push_back(static_cast<std::uint32_t>(carry));
        trim();
    }

    void multiply_pow10(int exponent) {
        for (; exponent >= 9; exponent -= 9) multiply(1000000000u);
        std::uint32_t rest = 1;
        for (; exponent > 0; --exponent) rest *= 10;
        multiply(rest);
    }

    BigInt plus(const BigInt& other) const {
        BigInt sum;
        std::uint64_t carry = 0;
        for (std::size_t i = 0; i < std::max(words_.size(), other.words_.size()); ++i) {
            const std::uint64_t total = carry + word(i) + other.word(i);
            sum.words_.push_back(static_cast<std::uint32_t>(total));
            carry = total >> 32;
        }
        if (carry) sum.words_.push_back(static_cast<std::uint32_t>(carry));
        return sum;
    }

    // *this -= other, for other <= *this.
    void subtract(const BigInt& other) {
        std::int64_t borrow = 0;
        for (std::size_t i = 0; i < words_.size(); ++i) {
            std::int64_t difference = static_cast<std::int64_t>(words_[i]) - other.word(i) - borrow;
            borrow = difference < 0;
            if (borrow) difference += std::int64_t(1) << 32;
            words_[i] = static_cast<std::uint32_t>(difference);
        }
        trim();
    }

    int compare(const BigInt& other) const {
        if (words_.size() != other.words_.size()) return words_.size() < other.words_.size() ? -1 : 1;
        for (std::size_t i = words_.size(); i-- > 0;)
            if (words_[i] != other.words_[i]) return words_[i] < other.words_[i] ? -1 : 1;
        return 0;
    }

    // The quotient (below 10 in Dragon4) of *this / divisor; *this becomes the remainder.
    std::uint32_t divide_small(const BigInt& divisor) {
        std::uint32_t quotient = 0;
        while (compare(divisor) >= 0) {
            subtract(divisor);
            ++quotient;
        }
        return quotient;
    }

private:
    std::uint64_t word(std::size_t i) const { return i < words_.size() ? words_[i] : 0; }
    void trim() {
        while (!words_.empty() && words_.back() == 0) words_.pop_back();
    }
    std::vector<std::uint32_t> words_;  // least significant first, no leading zero words
};

// value = (negative ? -1 : 1) * d0.d1d2d3... * 10^exponent, for digits "d0d1d2d3...".
struct Decimal {
    bool negative = false;
    std::string digits;
    int exponent = 0;
};

// numpy's Dragon4 cut-off modes: `precision` and `min_digits` count digits after the point
// (FractionLength) or significant digits (TotalLength); -1 is no limit.
enum class Cutoff { FractionLength, TotalLength };

// A finite float as numpy's Dragon4_PrintFloat_* splits it: value = mantissa * 2^exponent,
// with unequal margins when the gap below is half the gap above (a power of two that is
// not the smallest normal).
struct BinaryFloat {
    std::uint64_t mantissa = 0;
    int exponent = 0;
    int mantissa_bit = 0;
    bool unequal_margins = false;
};

BinaryFloat split_binary(const Real& x) {
    int precision_bits = 0, min_exponent = 0;
    switch (x.kind) {
        case FloatKind::Half: precision_bits = 11, min_exponent = -24; break;
        case FloatKind::Single: precision_bits = 24, min_exponent = -149; break;
        case FloatKind::Double: precision_bits = 53, min_exponent = -1074; break;
        case FloatKind::Extended: precision_bits = 64, min_exponent = -16445; break;
    }
    const long double magnitude = std::fabs(x.value);
    BinaryFloat b;
    if (magnitude == 0) return b;
    int binary_exponent = 0;
    std::frexp(magnitude, &binary_exponent);  // magnitude in [2^(binary_exponent-1), 2^binary_exponent)
    b.exponent = std::max(binary_exponent - precision_bits, min_exponent);
    b.mantissa = static_cast<std::uint64_t>(std::ldexp(magnitude, -b.exponent));
    b.mantissa_bit = static_cast<int>(std::bit_width(b.mantissa)) - 1;
    b.unequal_margins = b.mantissa == (std::uint64_t(1) << (precision_bits - 1)) && b.exponent > min_exponent;
    return b;
}

// numpy's Dragon4 in its unique (shortest round-trip) digit mode: digits are produced until
// they identify the value among its neighbours, but stop at `cutoff_max` digits and go on
// to at least `cutoff_min` digits; the last digit is rounded by numpy's margin rules.
Decimal dragon4(const Real& x, Cutoff mode, int cutoff_max, int cutoff_min) {
    Decimal out;
    out.negative = std::signbit(x.value);
    const BinaryFloat b = split_binary(x);
    if (b.mantissa == 0) {
        out.digits = "0";
        return out;
    }
    const bool even = b.mantissa % 2 == 0;
    // value / scale is the number; margins are half the gaps to the neighbouring floats.
    BigInt value(b.mantissa), scale, margin_low;
    const int extra = b.unequal_margins ? 2 : 1;
    if (b.exponent > 0) {
        value.shift_left(b.exponent + extra);
        scale = BigInt(std::uint64_t(1) << extra);
        margin_low = BigInt::pow2(b.exponent);
    } else {
        value.shift_left(extra);
        scale = BigInt::pow2(-b.exponent + extra);
        margin_low = BigInt(1);
    }
    const auto margin_high = [&] {
        BigInt high = margin_low;
        if (b.unequal_margins) high.shift_left(1);
        return high;
    };

    constexpr double kLog10Of2 = 0.30102999566398119521373889472449;
    int digit_exponent = static_cast<int>(std::ceil((b.mantissa_bit + b.exponent) * kLog10Of2 - 0.69));
    if (cutoff_max >= 0 && mode == Cutoff::FractionLength && digit_exponent <= -cutoff_max)
        digit_exponent = -cutoff_max + 1;
    if (digit_exponent > 0) {
        scale.multiply_pow10(digit_exponent);
    } else if (digit_exponent < 0) {
        value.multiply_pow10(-digit_exponent);
        margin_low.multiply_pow10(-digit_exponent);
    }
    if (value.compare(scale) >= 0) {
        digit_exponent += 1;  // the estimate was one too low
    } else {
        value.multiply(10);
        margin_low.multiply(10);
    }

    constexpr int kBufferSize = 16384;
    int cutoff_max_exponent = digit_exponent - kBufferSize;
    if (cutoff_max >= 0)
        cutoff_max_exponent = std::max(cutoff_max_exponent,
                                       mode == Cutoff::TotalLength ? digit_exponent - cutoff_max : -cutoff_max);
    int cutoff_min_exponent = digit_exponent;
    if (cutoff_min >= 0)
        cutoff_min_exponent = std::min(cutoff_min_exponent,
                                       mode == Cutoff::TotalLength ? digit_exponent - cutoff_min : -cutoff_min);
    out.exponent = digit_exponent - 1;

    bool low = false, high = false;
    std::uint32_t digit = 0;
    for (;;) {
        digit_exponent -= 1;
        digit = value.divide_small(scale);
        const int below = value.compare(margin_low);
        const int above = value.plus(margin_high()).compare(scale);
        low = even ? below <= 0 : below < 0;
        high = even ? above >= 0 : above > 0;
        if (((low || high) && digit_exponent <= cutoff_min_exponent) || digit_exponent == cutoff_max_exponent)
            break;
        out.digits.push_back(static_cast<char>('0' + digit));
        value.multiply(10);
        margin_low.multiply(10);
    }

    bool round_down = low;
    if (low == high) {  // both or neither way is allowed: round to the nearer, ties to even
        BigInt twice = value;
        twice.shift_left(1);
        const int half = twice.compare(scale);
        round_down = half < 0 || (half == 0 && digit % 2 == 0);
    }
    if (round_down) {
        out.digits.push_back(static_cast<char>('0' + digit));
    } else if (digit < 9) {
        out.digits.push_back(static_cast<char>('0' + digit + 1));
    } else {
        while (!out.digits.empty() && out.digits.back() == '9') out.digits.pop_back();
        if (out.digits.empty()) {
            out.digits = "1";
            out.exponent += 1;
        } else {
            out.digits.back() += 1;
        }
    }
    return out;
}

// Dragon4's trim modes: 'k', '.', '0' and '-'.
enum class Trim { Keep, Zeros, LeaveOneZero, DotAndZeros };

std::string apply_trim(const std::string& whole, std::string fraction, Trim trim) {
    if (trim != Trim::Keep)
        while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    if (trim == Trim::LeaveOneZero && fraction.empty()) fraction = "0";
    if (trim == Trim::DotAndZeros && fraction.empty()) return whole;
    return whole + "." + fraction;
}

std::string sign_text(bool negative, bool plus) { return negative ? "-" : plus ? "+" : ""; }

// numpy's dragon4_positional(x, precision, min_digits, unique=True, fractional=True, trim,
// sign), before padding. FloatingFormat passes min_digits=0, which makes Dragon4 produce at
// least every integer digit: a float16 18192 prints "18192." in an array, though its
// shortest digits give "18190." in format_float_positional.
std::string dragon4_positional(const Real& x, int precision, int min_digits, Trim trim, bool plus) {
    const Decimal d = dragon4(x, Cutoff::FractionLength, precision, min_digits);
    std::string whole, fraction;
    if (d.exponent >= 0) {
        const auto whole_length = static_cast<std::size_t>(d.exponent) + 1;
        whole = d.digits.substr(0, whole_length);
        whole.append(whole_length - whole.size(), '0');
        if (d.digits.size() > whole_length) fraction = d.digits.substr(whole_length);
    } else {
        whole = "0";
        fraction = std::string(static_cast<std::size_t>(-d.exponent - 1), '0') + d.digits;
    }
    return sign_text(d.negative, plus) + apply_trim(whole, fraction, trim);
}

std::string exponent_text(int exponent, int min_digits) {
    std::string digits = std::to_string(exponent < 0 ? -exponent : exponent);
    if (static_cast<int>(digits.size()) < min_digits)
        digits.insert(0, static_cast<std::size_t>(min_digits) - digits.size(), '0');
    return std::string(exponent < 0 ? "e-" : "e+") + digits;
}

// numpy's dragon4_scientific(x, precision, min_digits, unique=True, trim, sign, exp_digits),
// before padding: precision and min_digits count the digits after the point.
std::string dragon4_scientific(const Real& x, int precision, int min_digits, Trim trim, bool plus,
                               int exp_digits) {
    const Decimal d = dragon4(x, Cutoff::TotalLength, precision < 0 ? -1 : precision + 1,
                              min_digits < 0 ? -1 : min_digits + 1);
    std::string fraction = d.digits.substr(1);
    if (trim == Trim::Keep && static_cast<int>(fraction.size()) < min_digits)
        fraction.append(static_cast<std::size_t>(min_digits) - fraction.size(), '0');
    return sign_text(d.negative, plus) + apply_trim(d.digits.substr(0, 1), fraction, trim) +
           exponent_text(d.exponent, exp_digits < 0 ? 2 : exp_digits);
}

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
    FloatingFormat(const std::vector<Real>& data, bool plus) : plus_(plus) { fill_format(data); }

    std::string operator()(const Real& x) const {
        if (!is_finite(x)) {
            std::string text;
            if (std::isnan(x.value)) text = plus_ ? "+nan" : "nan";
            else text = sign_text(x.value < 0, plus_) + "inf";
            return pad_left_to(text, static_cast<std::size_t>(pad_left_ + pad_right_ + 1));
        }
        if (exp_format_)
            return pad_whole(dragon4_scientific(x, precision_, precision_, Trim::Keep, plus_, exp_size_));
        std::string text = dragon4_positional(x, kPrecision, 0, Trim::Zeros, plus_);
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
            const std::string text = dragon4_scientific(x, kPrecision, -1, Trim::Zeros, plus_, -1);
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
            const std::string text = dragon4_positional(x, kPrecision, -1, Trim::Zeros, plus_);
            const std::size_t dot = text.find('.');
            whole_length = std::max(whole_length, dot);
            fraction_length = std::max(fraction_length, text.size() - dot - 1);
        }
        pad_left_ = static_cast<int>(whole_length);
        pad_right_ = static_cast<int>(fraction_length);
    }

    bool plus_;
    bool exp_format_ = false;
    int precision_ = kPrecision;
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

// ---------------------------------------------------------------------------------------------
// Python's repr of bytes and str

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

void append_hex(std::string& out, std::uint32_t value, int digits, const char* alphabet) {
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out.push_back(alphabet[(value >> shift) & 0xF]);
}

constexpr const char* kLowerHex = "0123456789abcdef";
constexpr const char* kUpperHex = "0123456789ABCDEF";

// Python picks double quotes only when the text has a single quote and no double quote.
template <class Char>
char python_quote(const std::basic_string<Char>& text) {
    const bool single = std::find(text.begin(), text.end(), Char('\'')) != text.end();
    const bool dbl = std::find(text.begin(), text.end(), Char('"')) != text.end();
    return single && !dbl ? '"' : '\'';
}

// The escapes bytes and str reprs share for ASCII; false when `c` needs another rule.
bool append_ascii_escape(std::string& out, std::uint32_t c, char quote) {
    if (c == static_cast<std::uint32_t>(quote) || c == '\\') {
        out.push_back('\\');
        out.push_back(static_cast<char>(c));
    } else if (c == '\t') {
        out += "\\t";
    } else if (c == '\n') {
        out += "\\n";
    } else if (c == '\r') {
        out += "\\r";
    } else if (c < ' ' || c == 0x7F) {
        out += "\\x";
        append_hex(out, c, 2, kLowerHex);
    } else if (c < 0x7F) {
        out.push_back(static_cast<char>(c));
    } else {
        return false;
    }
    return true;
}

// numpy scalars drop trailing NULs before Python's repr sees them.
std::string bytes_repr(const std::byte* p, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(p), size);
    while (!text.empty() && text.back() == '\0') text.pop_back();
    const char quote = python_quote(text);
    std::string out = "b";
    out.push_back(quote);
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (!append_ascii_escape(out, c, quote)) {
            out += "\\x";
            append_hex(out, c, 2, kLowerHex);
        }
    }
    out.push_back(quote);
    return out;
}

bool is_printable(char32_t c);

std::u32string load_code_points(const std::byte* p, const DType& dtype) {
    const bool swap = swapped(dtype.byte_order);
    std::u32string text(dtype.itemsize / 4, U'\0');
    for (std::size_t i = 0; i < text.size(); ++i) {
        std::uint32_t c;
        load_native(p + 4 * i, 4, swap, &c);
        text[i] = c;
    }
    while (!text.empty() && text.back() == U'\0') text.pop_back();
    for (char32_t c : text)
        if (c > 0x10FFFF)
            throw Error(ErrorKind::Input, "a string holds the code point " + std::to_string(c) +
                                              ", which is beyond Unicode's range");
    return text;
}

std::string unicode_repr(const std::u32string& text) {
    const char quote = python_quote(text);
    std::string out(1, quote);
    for (char32_t c : text) {
        if (append_ascii_escape(out, c, quote)) continue;
        if (is_printable(c)) {
            append_utf8(out, c);
        } else if (c <= 0xFF) {
            out += "\\x";
            append_hex(out, c, 2, kLowerHex);
        } else if (c <= 0xFFFF) {
            out += "\\u";
            append_hex(out, c, 4, kLowerHex);
        } else {
            out += "\\U";
            append_hex(out, c, 8, kLowerHex);
        }
    }
    out.push_back(quote);
    return out;
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
        append_hex(out, static_cast<std::uint32_t>(p[i]), 2, kUpperHex);
    }
    return out + "'";
}

// ---------------------------------------------------------------------------------------------
// Datetimes and timedeltas

enum class TimeUnit { Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, Generic };

struct TimeMeta {
    TimeUnit unit = TimeUnit::Generic;
    std::int64_t multiplier = 1;
};

TimeMeta time_meta(const DType& dtype) {
    TimeMeta meta;
    const std::string& type = dtype.type_string;
    const std::size_t open = type.find('[');
    if (open == std::string::npos) return meta;
    std::string_view unit(type);
    unit = unit.substr(open + 1, type.size() - open - 2);
    std::size_t k = 0;
    while (k < unit.size() && unit[k] >= '0' && unit[k] <= '9') ++k;
    if (k > 0) std::from_chars(unit.data(), unit.data() + k, meta.multiplier);
    static constexpr std::pair<const char*, TimeUnit> kUnits[] = {
        {"Y", TimeUnit::Y},   {"M", TimeUnit::M},   {"W", TimeUnit::W},   {"D", TimeUnit::D},
        {"h", TimeUnit::h},   {"m", TimeUnit::m},   {"s", TimeUnit::s},   {"ms", TimeUnit::ms},
        {"us", TimeUnit::us}, {"ns", TimeUnit::ns}, {"ps", TimeUnit::ps}, {"fs", TimeUnit::fs},
        {"as", TimeUnit::as}, {"generic", TimeUnit::Generic}};
    for (const auto& [name, value] : kUnits)
        if (unit.substr(k) == name) meta.unit = value;
    return meta;
}

constexpr std::int64_t kNaT = INT64_MIN;

std::int64_t load_time(const std::byte* p, const DType& dtype) {
    std::int64_t value;
    load_native(p, 8, swapped(dtype.byte_order), &value);
    return value;
}

// numpy's C arithmetic here overflows silently; unsigned arithmetic gives the same
// wrapped results without undefined behaviour.
std::int64_t wrap_mul(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
std::int64_t wrap_add(std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

// numpy's extract_unit_64: floor division, leaving the non-negative remainder in `value`.
std::int64_t extract_unit(std::int64_t& value, std::int64_t unit) {
    std::int64_t quotient = value / unit;
    std::int64_t remainder = value % unit;
    if (remainder < 0) {
        remainder += unit;
        quotient -= 1;
    }
    value = remainder;
    return quotient;
}

struct DateTimeParts {
    std::int64_t year = 1970;
    int month = 1, day = 1, hour = 0, minute = 0, second = 0;
    std::int64_t us = 0, ps = 0, as = 0;
};

bool is_leap_year(std::int64_t year) {
    return (year & 0x3) == 0 && ((year % 100) != 0 || (year % 400) == 0);
}

// numpy's set_datetimestruct_days: days since 1970-01-01 in the proleptic Gregorian calendar.
void set_days(std::int64_t days, DateTimeParts& out) {
    constexpr std::int64_t kDaysPer400Years = 400 * 365 + 100 - 4 + 1;
    days = wrap_add(days, -(365 * 30 + 7));  // relative to 2000, a multiple of 400 years
    std::int64_t year = wrap_mul(400, extract_unit(days, kDaysPer400Years));
    if (days >= 366) {
        year += 100 * ((days - 1) / (100 * 365 + 25 - 1));
        days = (days - 1) % (100 * 365 + 25 - 1);
        if (days >= 365) {
            year += 4 * ((days + 1) / (4 * 365 + 1));
            days = (days + 1) % (4 * 365 + 1);
            if (days >= 366) {
                year += (days - 1) / 365;
                days = (days - 1) % 365;
            }
        }
    }
    out.year = wrap_add(year, 2000);
    static constexpr int kMonthDays[2][12] = {{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
                                              {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}};
    const int* lengths = kMonthDays[is_leap_year(out.year) ? 1 : 0];
    for (int i = 0; i < 12; ++i) {
        if (days < lengths[i]) {
            out.month = i + 1;
            out.day = static_cast<int>(days) + 1;
            return;
        }
        days -= lengths[i];
    }
}

// Splits `value` units (`per_second` to the second) into the date and the time of day, as
// numpy's convert_datetime_to_datetimestruct does; returns the sub-second remainder.
std::int64_t set_day_time(std::int64_t value, std::int64_t per_second, DateTimeParts& out) {
    set_days(extract_unit(value, 86400 * per_second), out);
    out.hour = static_cast<int>(extract_unit(value, 3600 * per_second));
    out.minute = static_cast<int>(extract_unit(value, 60 * per_second));
    out.second = static_cast<int>(extract_unit(value, per_second));
    return value;
}

// numpy's convert_datetime_to_datetimestruct.
DateTimeParts datetime_parts(std::int64_t value, const TimeMeta& meta) {
    constexpr std::int64_t k1e3 = 1000, k1e6 = 1000000, k1e9 = 1000000000, k1e12 = 1000000000000;
    DateTimeParts out;
    std::int64_t dt = wrap_mul(value, meta.multiplier);
    switch (meta.unit) {
        case TimeUnit::Y: out.year = wrap_add(1970, dt); break;
        case TimeUnit::M:
            out.year = wrap_add(1970, extract_unit(dt, 12));
            out.month = static_cast<int>(dt) + 1;
            break;
        case TimeUnit::W: set_days(wrap_mul(dt, 7), out); break;
        case TimeUnit::D: set_days(dt, out); break;
        case TimeUnit::h:
            set_days(extract_unit(dt, 24), out);
            out.hour = static_cast<int>(dt);
            break;
        case TimeUnit::m:
            set_days(extract_unit(dt, 60 * 24), out);
            out.hour = static_cast<int>(extract_unit(dt, 60));
            out.minute = static_cast<int>(dt);
            break;
        case TimeUnit::s: set_day_time(dt, 1, out); break;
        case TimeUnit::ms: out.us = set_day_time(dt, k1e3, out) * k1e3; break;
        case TimeUnit::us: out.us = set_day_time(dt, k1e6, out); break;
        case TimeUnit::ns: {
            std::int64_t rest = set_day_time(dt, k1e9, out);
            out.us = extract_unit(rest, k1e3);
            out.ps = rest * k1e3;
            break;
        }
        case TimeUnit::ps: {
            std::int64_t rest = set_day_time(dt, k1e12, out);
            out.us = extract_unit(rest, k1e6);
            out.ps = rest;
            break;
        }
        case TimeUnit::fs:
            // The whole range is about +-2.6 hours around the epoch.
            out.hour = static_cast<int>(extract_unit(dt, 3600 * k1e12 * k1e3));
            if (out.hour < 0) {
                out.year = 1969, out.month = 12, out.day = 31;
                out.hour += 24;
            }
            out.minute = static_cast<int>(extract_unit(dt, 60 * k1e12 * k1e3));
            out.second = static_cast<int>(extract_unit(dt, k1e12 * k1e3));
            out.us = extract_unit(dt, k1e9);
            out.ps = extract_unit(dt, k1e3);
            out.as = dt * k1e3;
            break;
        case TimeUnit::as:
            // The whole range is about +-9.2 seconds around the epoch.
            out.second = static_cast<int>(extract_unit(dt, k1e12 * k1e6));
            if (out.second < 0) {
                out.year = 1969, out.month = 12, out.day = 31;
                out.hour = 23, out.minute = 59;
                out.second += 60;
            }
            out.us = extract_unit(dt, k1e12);
            out.ps = extract_unit(dt, k1e6);
            out.as = dt;
            break;
        case TimeUnit::Generic: break;
    }
    return out;
}

std::string zero_padded(std::int64_t value, int width) {
    std::string digits = integer_text(value);
    const bool negative = value < 0;
    const std::size_t have = digits.size();
    if (static_cast<int>(have) < width)  // printf's %0Nd: zeros after the sign
        digits.insert(negative ? 1 : 0, static_cast<std::size_t>(width) - have, '0');
    return digits;
}

// numpy's make_iso_8601_datetime for a naive datetime shown in its own unit.
std::string iso_datetime(std::int64_t value, const TimeMeta& meta) {
    const DateTimeParts t = datetime_parts(value, meta);
    if (t.year == kNaT) return "NaT";  // numpy's own check, reached by wrapped year values
    const TimeUnit unit = meta.unit;
    std::string out = zero_padded(t.year, 4);
    if (unit == TimeUnit::Y) return out;
    out += "-" + zero_padded(t.month, 2);
    if (unit == TimeUnit::M) return out;
    out += "-" + zero_padded(t.day, 2);
    if (unit == TimeUnit::W || unit == TimeUnit::D) return out;
    out += "T" + zero_padded(t.hour, 2);
    if (unit == TimeUnit::h) return out;
    out += ":" + zero_padded(t.minute, 2);
    if (unit == TimeUnit::m) return out;
    out += ":" + zero_padded(t.second, 2);
    if (unit == TimeUnit::s) return out;
    out += "." + zero_padded(t.us / 1000, 3);
    if (unit == TimeUnit::ms) return out;
    out += zero_padded(t.us % 1000, 3);
    if (unit == TimeUnit::us) return out;
    out += zero_padded(t.ps / 1000, 3);
    if (unit == TimeUnit::ns) return out;
    out += zero_padded(t.ps % 1000, 3);
    if (unit == TimeUnit::ps) return out;
    out += zero_padded(t.as / 1000, 3);
    if (unit == TimeUnit::fs) return out;
    return out + zero_padded(t.as % 1000, 3);
}

std::string datetime_text(std::int64_t value, const TimeMeta& meta, const DType& dtype) {
    if (value == kNaT) return "NaT";
    if (meta.unit == TimeUnit::Generic) unsupported(dtype);  // numpy cannot show these either
    return iso_datetime(value, meta);
}

std::string timedelta_scalar_text(std::int64_t value, const TimeMeta& meta) {
    static constexpr const char* kNames[] = {
        "years",        "months",      "weeks",       "days",         "hours",
        "minutes",      "seconds",     "milliseconds", "microseconds", "nanoseconds",
        "picoseconds",  "femtoseconds", "attoseconds", "generic time units"};
    if (value == kNaT) return "NaT";
    return integer_text(wrap_mul(value, meta.multiplier)) + " " + kNames[static_cast<int>(meta.unit)];
}

// ---------------------------------------------------------------------------------------------
// Formatters: one per numpy Format class, each built from the elements it will show

class Formatter {
public:
    virtual ~Formatter() = default;
    virtual std::string operator()(const std::byte* element) const = 0;
};

using FormatterPtr = std::unique_ptr<Formatter>;

FormatterPtr make_formatter(const DType& dtype, const Pointers& data, bool zero_d);

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
    FloatFormat(const DType& dtype, const Pointers& data)
        : read_{float_kind(dtype, dtype.itemsize), swapped(dtype.byte_order), dtype.itemsize},
          format_(read_all(data), false) {}
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
    ComplexFloatingFormat(const DType& dtype, const Pointers& data)
        : read_(complex_part_reader(dtype)),
          real_(read_parts(read_, data, 0), false),
          imag_(read_parts(read_, data, read_.size), true) {}
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
        if (dtype_.kind == 'S') return bytes_repr(element, dtype_.itemsize);
        return unicode_repr(load_code_points(element, dtype_));
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
    StructuredVoidFormat(const DType& dtype, const Pointers& data, bool zero_d) {
        for (const DType::Field& field : dtype.fields) {
            if (is_padding(field)) continue;
            fields_.push_back({field.offset, field_formatter(field, data, zero_d)});
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
    static FormatterPtr field_formatter(const DType::Field& field, const Pointers& data, bool zero_d) {
        const DType& type = *field.type;
        Pointers values;
        if (field.subshape.empty()) {
            values.reserve(data.size());
            for (const std::byte* p : data) values.push_back(p + field.offset);
            return make_formatter(type, values, zero_d);
        }
        const std::int64_t count = element_count(field.subshape);
        for (const std::byte* p : data)
            for (std::int64_t k = 0; k < count; ++k)
                values.push_back(p + field.offset + k * static_cast<std::int64_t>(type.itemsize));
        return std::make_unique<SubArrayFormat>(make_formatter(type, values, false), field.subshape,
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
    if (!valid) unsupported(dtype);
}

// numpy's _get_format_function. `zero_d` says the data is a 0-d array's (only a structured
// 0-d array's fields are formatted this way).
FormatterPtr make_formatter(const DType& dtype, const Pointers& data, bool zero_d) {
    if (dtype.structured) return std::make_unique<StructuredVoidFormat>(dtype, data, zero_d);
    check_itemsize(dtype);
    switch (dtype.kind) {
        case 'b': return std::make_unique<BoolFormat>(zero_d);
        case 'i':
        case 'u': return std::make_unique<IntegerFormat>(dtype, data);
        case 'f': return std::make_unique<FloatFormat>(dtype, data);
        case 'c': return std::make_unique<ComplexFloatingFormat>(dtype, data);
        case 'S':
        case 'U': return std::make_unique<ReprFormat>(dtype);
        case 'V': return std::make_unique<VoidFormat>(dtype.itemsize);
        case 'M':
        case 'm': return std::make_unique<TimelikeFormat>(dtype, data);
        default: unsupported(dtype);
    }
}

// str() of a 0-d array: the str of its scalar.
std::string scalar_text(const std::byte* p, const DType& dtype) {
    if (dtype.structured) return (*make_formatter(dtype, {p}, true))(p);
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
        case 'S': return bytes_repr(p, dtype.itemsize);
        case 'U': return unicode_text(load_code_points(p, dtype));
        case 'V': return void_text(p, dtype.itemsize);
        case 'M': return datetime_text(load_time(p, dtype), time_meta(dtype), dtype);
        case 'm': return timedelta_scalar_text(load_time(p, dtype), time_meta(dtype));
        default: unsupported(dtype);
    }
}

// ---------------------------------------------------------------------------------------------
// Layout: numpy's _formatArray over the shown elements' texts

// Python measures lines in code points; the texts are UTF-8.
std::int64_t text_width(const std::string& text) {
    std::int64_t width = 0;
    for (char c : text)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
    return width;
}

struct Line {
    std::string text;
    std::int64_t width = 0;
    void append(const std::string& more, std::int64_t more_width) {
        text += more;
        width += more_width;
    }
};

class Layout {
public:
    // `words` holds the shown elements' texts in C order over the shown indices.
    Layout(std::vector<std::int64_t> shape, std::vector<std::int64_t> shown, bool summarise,
           const std::vector<std::string>& words)
        : shape_(std::move(shape)), shown_(std::move(shown)), summarise_(summarise), words_(words),
          stride_(shape_.size(), 1) {
        for (std::size_t k = shape_.size(); k-- > 1;) stride_[k - 1] = stride_[k] * shown_[k];
    }

    std::string render() const { return recurse(0, 0, " ", kLineWidth); }

private:
    std::string recurse(std::size_t axis, std::int64_t base, const std::string& hanging,
                        std::int64_t width) const {
        if (axis == shape_.size()) return words_[static_cast<std::size_t>(base)];
        const std::string next_hanging = hanging + " ";
        const auto child = [&](std::int64_t position) {
            return recurse(axis + 1, base + position * stride_[axis], next_hanging, width - 1);
        };
        const bool show_summary = summarise_ && 2 * kEdgeItems < shape_[axis];
        const std::int64_t leading = show_summary ? kEdgeItems : 0;
        const std::int64_t trailing = show_summary ? kEdgeItems : shape_[axis];
        const std::int64_t count = shown_[axis];

        std::string s;
        if (shape_.size() - axis == 1) {
            const std::int64_t element_width = width - 1;  // room for the closing ']'
            Line line{hanging, text_width(hanging)};
            for (std::int64_t i = 0; i < leading; ++i) {
                extend_line(s, line, child(i), element_width, hanging);
                line.append(" ", 1);
            }
            if (show_summary) {
                extend_line(s, line, "...", element_width, hanging);
                line.append(" ", 1);
            }
            for (std::int64_t i = trailing; i > 1; --i) {
                extend_line(s, line, child(count - i), element_width, hanging);
                line.append(" ", 1);
            }
            extend_line(s, line, child(count - 1), element_width, hanging);
            s += line.text;
        } else {
            const std::string line_sep(shape_.size() - axis - 1, '\n');
            for (std::int64_t i = 0; i < leading; ++i) s += hanging + child(i) + line_sep;
            if (show_summary) s += hanging + "..." + line_sep;
            for (std::int64_t i = trailing; i > 1; --i) s += hanging + child(count - i) + line_sep;
            s += hanging + child(count - 1);
        }
        return "[" + s.substr(hanging.size()) + "]";
    }

    // numpy's _extendLine: wrap before `word` if it would pass `line_width`, unless the line
    // holds nothing but its indent (wrapping would not help).
    static void extend_line(std::string& s, Line& line, const std::string& word, std::int64_t line_width,
                            const std::string& prefix) {
        const std::int64_t word_width = text_width(word);
        const auto prefix_width = static_cast<std::int64_t>(prefix.size());
        if (line.width + word_width > line_width && line.width > prefix_width) {
            const std::size_t end = line.text.find_last_not_of(' ');
            s += line.text.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
            line = Line{prefix, prefix_width};
        }
        line.append(word, word_width);
    }

    std::vector<std::int64_t> shape_;
    std::vector<std::int64_t> shown_;
    bool summarise_;
    const std::vector<std::string>& words_;
    std::vector<std::int64_t> stride_;
};

// numpy's _leading_trailing: the indices shown along an axis.
std::vector<std::int64_t> shown_indices(std::int64_t length, bool summarise) {
    std::vector<std::int64_t> indices;
    if (summarise && length > 2 * kEdgeItems) {
        for (std::int64_t i = 0; i < kEdgeItems; ++i) indices.push_back(i);
        for (std::int64_t i = length - kEdgeItems; i < length; ++i) indices.push_back(i);
    } else {
        for (std::int64_t i = 0; i < length; ++i) indices.push_back(i);
    }
    return indices;
}

// The shown elements' addresses in C order. A gathered element that stands for zeros
// (View::kZeroElement) points at `zeros`, one element of zero bytes.
Pointers shown_elements(const std::byte* data, const View& view,
                        const std::vector<std::vector<std::int64_t>>& indices, const std::byte* zeros) {
    Pointers out;
    const std::size_t rank = view.rank();
    std::vector<std::size_t> position(rank, 0);
    std::vector<std::int64_t> index(rank, 0);
    for (;;) {
        for (std::size_t k = 0; k < rank; ++k) index[k] = indices[k][position[k]];
        const std::int64_t offset = view.element_offset(index);
        out.push_back(offset == View::kZeroElement ? zeros : data + offset);
        std::size_t k = rank;  // advance the last axis, carrying into earlier ones
        while (k > 0 && ++position[k - 1] == indices[k - 1].size()) position[--k] = 0;
        if (k == 0) return out;
    }
}

// Whether a non-empty shape holds more than numpy's threshold of elements, without
// overflowing on views that repeat elements through zero strides.
bool over_threshold(const std::vector<std::int64_t>& shape) {
    std::int64_t count = 1;
    for (std::int64_t length : shape) {
        if (length > kThreshold) return true;
        count *= length;
        if (count > kThreshold) return true;
    }
    return false;
}

}  // namespace

std::string format_array(const std::byte* data, const View& view, const DType& dtype) {
    const std::vector<std::byte> zeros(view.itemsize);
    if (view.rank() == 0) {
        const std::int64_t offset = view.element_offset({});
        return scalar_text(offset == View::kZeroElement ? zeros.data() : data + offset, dtype);
    }
    if (std::find(view.shape.begin(), view.shape.end(), 0) != view.shape.end()) return "[]";

    const bool summarise = over_threshold(view.shape);
    std::vector<std::vector<std::int64_t>> indices;
    std::vector<std::int64_t> shown;
    for (std::int64_t length : view.shape) {
        indices.push_back(shown_indices(length, summarise));
        shown.push_back(static_cast<std::int64_t>(indices.back().size()));
    }
    const Pointers elements = shown_elements(data, view, indices, zeros.data());
    const FormatterPtr format = make_formatter(dtype, elements, false);
    std::vector<std::string> words;
    words.reserve(elements.size());
    for (const std::byte* p : elements) words.push_back((*format)(p));
    return Layout(view.shape, shown, summarise, words).render();
}

// ---------------------------------------------------------------------------------------------
// Python's str.isprintable() for code points from U+007F: the ranges it rejects (categories
// Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than the space), from CPython 3.11's Unicode 14.0
// database, generated with
//   [(a, b) for the maximal runs a..b of c >= 0x7F with not chr(c).isprintable()]

namespace {

struct CodeRange {
    char32_t first, last;
};

constexpr CodeRange kNonPrintable[] = {
    {0x7F, 0xA0}, {0xAD, 0xAD}, {0x378, 0x379}, {0x380, 0x383}, {0x38B, 0x38B}, {0x38D, 0x38D},
    {0x3A2, 0x3A2}, {0x530, 0x530}, {0x557, 0x558}, {0x58B, 0x58C}, {0x590, 0x590}, {0x5C8, 0x5CF},
    {0x5EB, 0x5EE}, {0x5F5, 0x605}, {0x61C, 0x61C}, {0x6DD, 0x6DD}, {0x70E, 0x70F}, {0x74B, 0x74C},
    {0x7B2, 0x7BF}, {0x7FB, 0x7FC}, {0x82E, 0x82F}, {0x83F, 0x83F}, {0x85C, 0x85D}, {0x85F, 0x85F},
    {0x86B, 0x86F}, {0x88F, 0x897}, {0x8E2, 0x8E2}, {0x984, 0x984}, {0x98D, 0x98E}, {0x991, 0x992},
    {0x9A9, 0x9A9}, {0x9B1, 0x9B1}, {0x9B3, 0x9B5}, {0x9BA, 0x9BB}, {0x9C5, 0x9C6}, {0x9C9, 0x9CA},
    {0x9CF, 0x9D6}, {0x9D8, 0x9DB}, {0x9DE, 0x9DE}, {0x9E4, 0x9E5}, {0x9FF, 0xA00}, {0xA04, 0xA04},
    {0xA0B, 0xA0E}, {0xA11, 0xA12}, {0xA29, 0xA29}, {0xA31, 0xA31}, {0xA34, 0xA34}, {0xA37, 0xA37},
    {0xA3A, 0xA3B}, {0xA3D, 0xA3D}, {0xA43, 0xA46}, {0xA49, 0xA4A}, {0xA4E, 0xA50}, {0xA52, 0xA58},
    {0xA5D, 0xA5D}, {0xA5F, 0xA65}, {0xA77, 0xA80}, {0xA84, 0xA84}, {0xA8E, 0xA8E}, {0xA92, 0xA92},
    {0xAA9, 0xAA9}, {0xAB1, 0xAB1}, {0xAB4, 0xAB4}, {0xABA, 0xABB}, {0xAC6, 0xAC6}, {0xACA, 0xACA},
    {0xACE, 0xACF}, {0xAD1, 0xADF}, {0xAE4, 0xAE5}, {0xAF2, 0xAF8}, {0xB00, 0xB00}, {0xB04, 0xB04},
    {0xB0D, 0xB0E}, {0xB11, 0xB12}, {0xB29, 0xB29}, {0xB31, 0xB31}, {0xB34, 0xB34}, {0xB3A, 0xB3B},
    {0xB45, 0xB46}, {0xB49, 0xB4A}, {0xB4E, 0xB54}, {0xB58, 0xB5B}, {0xB5E, 0xB5E}, {0xB64, 0xB65},
    {0xB78, 0xB81}, {0xB84, 0xB84}, {0xB8B, 0xB8D}, {0xB91, 0xB91}, {0xB96, 0xB98}, {0xB9B, 0xB9B},
    {0xB9D, 0xB9D}, {0xBA0, 0xBA2}, {0xBA5, 0xBA7}, {0xBAB, 0xBAD}, {0xBBA, 0xBBD}, {0xBC3, 0xBC5},
    {0xBC9, 0xBC9}, {0xBCE, 0xBCF}, {0xBD1, 0xBD6}, {0xBD8, 0xBE5}, {0xBFB, 0xBFF}, {0xC0D, 0xC0D},
    {0xC11, 0xC11}, {0xC29, 0xC29}, {0xC3A, 0xC3B}, {0xC45, 0xC45}, {0xC49, 0xC49}, {0xC4E, 0xC54},
    {0xC57, 0xC57}, {0xC5B, 0xC5C}, {0xC5E, 0xC5F}, {0xC64, 0xC65}, {0xC70, 0xC76}, {0xC8D, 0xC8D},
    {0xC91, 0xC91}, {0xCA9, 0xCA9}, {0xCB4, 0xCB4}, {0xCBA, 0xCBB}, {0xCC5, 0xCC5}, {0xCC9, 0xCC9},
    {0xCCE, 0xCD4}, {0xCD7, 0xCDC}, {0xCDF, 0xCDF}, {0xCE4, 0xCE5}, {0xCF0, 0xCF0}, {0xCF3, 0xCFF},
    {0xD0D, 0xD0D}, {0xD11, 0xD11}, {0xD45, 0xD45}, {0xD49, 0xD49}, {0xD50, 0xD53}, {0xD64, 0xD65},
    {0xD80, 0xD80}, {0xD84, 0xD84}, {0xD97, 0xD99}, {0xDB2, 0xDB2}, {0xDBC, 0xDBC}, {0xDBE, 0xDBF},
    {0xDC7, 0xDC9}, {0xDCB, 0xDCE}, {0xDD5, 0xDD5}, {0xDD7, 0xDD7}, {0xDE0, 0xDE5}, {0xDF0, 0xDF1},
    {0xDF5, 0xE00}, {0xE3B, 0xE3E}, {0xE5C, 0xE80}, {0xE83, 0xE83}, {0xE85, 0xE85}, {0xE8B, 0xE8B},
    {0xEA4, 0xEA4}, {0xEA6, 0xEA6}, {0xEBE, 0xEBF}, {0xEC5, 0xEC5}, {0xEC7, 0xEC7}, {0xECE, 0xECF},
    {0xEDA, 0xEDB}, {0xEE0, 0xEFF}, {0xF48, 0xF48}, {0xF6D, 0xF70}, {0xF98, 0xF98}, {0xFBD, 0xFBD},
    {0xFCD, 0xFCD}, {0xFDB, 0xFFF}, {0x10C6, 0x10C6}, {0x10C8, 0x10CC}, {0x10CE, 0x10CF},
    {0x1249, 0x1249}, {0x124E, 0x124F}, {0x1257, 0x1257}, {0x1259, 0x1259}, {0x125E, 0x125F},
    {0x1289, 0x1289}, {0x128E, 0x128F}, {0x12B1, 0x12B1}, {0x12B6, 0x12B7}, {0x12BF, 0x12BF},
    {0x12C1, 0x12C1}, {0x12C6, 0x12C7}, {0x12D7, 0x12D7}, {0x1311, 0x1311}, {0x1316, 0x1317},
    {0x135B, 0x135C}, {0x137D, 0x137F}, {0x139A, 0x139F}, {0x13F6, 0x13F7}, {0x13FE, 0x13FF},
    {0x1680, 0x1680}, {0x169D, 0x169F}, {0x16F9, 0x16FF}, {0x1716, 0x171E}, {0x1737, 0x173F},
    {0x1754, 0x175F}, {0x176D, 0x176D}, {0x1771, 0x1771}, {0x1774, 0x177F}, {0x17DE, 0x17DF},
    {0x17EA, 0x17EF}, {0x17FA, 0x17FF}, {0x180E, 0x180E}, {0x181A, 0x181F}, {0x1879, 0x187F},
    {0x18AB, 0x18AF}, {0x18F6, 0x18FF}, {0x191F, 0x191F}, {0x192C, 0x192F}, {0x193C, 0x193F},
    {0x1941, 0x1943}, {0x196E, 0x196F}, {0x1975, 0x197F}, {0x19AC, 0x19AF}, {0x19CA, 0x19CF},
    {0x19DB, 0x19DD}, {0x1A1C, 0x1A1D}, {0x1A5F, 0x1A5F}, {0x1A7D, 0x1A7E}, {0x1A8A, 0x1A8F},
    {0x1A9A, 0x1A9F}, {0x1AAE, 0x1AAF}, {0x1ACF, 0x1AFF}, {0x1B4D, 0x1B4F}, {0x1B7F, 0x1B7F},
    {0x1BF4, 0x1BFB}, {0x1C38, 0x1C3A}, {0x1C4A, 0x1C4C}, {0x1C89, 0x1C8F}, {0x1CBB, 0x1CBC},
    {0x1CC8, 0x1CCF}, {0x1CFB, 0x1CFF}, {0x1F16, 0x1F17}, {0x1F1E, 0x1F1F}, {0x1F46, 0x1F47},
    {0x1F4E, 0x1F4F}, {0x1F58, 0x1F58}, {0x1F5A, 0x1F5A}, {0x1F5C, 0x1F5C}, {0x1F5E, 0x1F5E},
    {0x1F7E, 0x1F7F}, {0x1FB5, 0x1FB5}, {0x1FC5, 0x1FC5}, {0x1FD4, 0x1FD5}, {0x1FDC, 0x1FDC},
    {0x1FF0, 0x1FF1}, {0x1FF5, 0x1FF5}, {0x1FFF, 0x200F}, {0x2028, 0x202F}, {0x205F, 0x206F},
    {0x2072, 0x2073}, {0x208F, 0x208F}, {0x209D, 0x209F}, {0x20C1, 0x20CF}, {0x20F1, 0x20FF},
    {0x218C, 0x218F}, {0x2427, 0x243F}, {0x244B, 0x245F}, {0x2B74, 0x2B75}, {0x2B96, 0x2B96},
    {0x2CF4, 0x2CF8}, {0x2D26, 0x2D26}, {0x2D28, 0x2D2C}, {0x2D2E, 0x2D2F}, {0x2D68, 0x2D6E},
    {0x2D71, 0x2D7E}, {0x2D97, 0x2D9F}, {0x2DA7, 0x2DA7}, {0x2DAF, 0x2DAF}, {0x2DB7, 0x2DB7},
    {0x2DBF, 0x2DBF}, {0x2DC7, 0x2DC7}, {0x2DCF, 0x2DCF}, {0x2DD7, 0x2DD7}, {0x2DDF, 0x2DDF},
    {0x2E5E, 0x2E7F}, {0x2E9A, 0x2E9A}, {0x2EF4, 0x2EFF}, {0x2FD6, 0x2FEF}, {0x2FFC, 0x3000},
    {0x3040, 0x3040}, {0x3097, 0x3098}, {0x3100, 0x3104}, {0x3130, 0x3130}, {0x318F, 0x318F},
    {0x31E4, 0x31EF}, {0x321F, 0x321F}, {0xA48D, 0xA48F}, {0xA4C7, 0xA4CF}, {0xA62C, 0xA63F},
    {0xA6F8, 0xA6FF}, {0xA7CB, 0xA7CF}, {0xA7D2, 0xA7D2}, {0xA7D4, 0xA7D4}, {0xA7DA, 0xA7F1},
    {0xA82D, 0xA82F}, {0xA83A, 0xA83F}, {0xA878, 0xA87F}, {0xA8C6, 0xA8CD}, {0xA8DA, 0xA8DF},
    {0xA954, 0xA95E}, {0xA97D, 0xA97F}, {0xA9CE, 0xA9CE}, {0xA9DA, 0xA9DD}, {0xA9FF, 0xA9FF},
    {0xAA37, 0xAA3F}, {0xAA4E, 0xAA4F}, {0xAA5A, 0xAA5B}, {0xAAC3, 0xAADA}, {0xAAF7, 0xAB00},
    {0xAB07, 0xAB08}, {0xAB0F, 0xAB10}, {0xAB17, 0xAB1F}, {0xAB27, 0xAB27}, {0xAB2F, 0xAB2F},
    {0xAB6C, 0xAB6F}, {0xABEE, 0xABEF}, {0xABFA, 0xABFF}, {0xD7A4, 0xD7AF}, {0xD7C7, 0xD7CA},
    {0xD7FC, 0xF8FF}, {0xFA6E, 0xFA6F}, {0xFADA, 0xFAFF}, {0xFB07, 0xFB12}, {0xFB18, 0xFB1C},
    {0xFB37, 0xFB37}, {0xFB3D, 0xFB3D}, {0xFB3F, 0xFB3F}, {0xFB42, 0xFB42}, {0xFB45, 0xFB45},
    {0xFBC3, 0xFBD2}, {0xFD90, 0xFD91}, {0xFDC8, 0xFDCE}, {0xFDD0, 0xFDEF}, {0xFE1A, 0xFE1F},
    {0xFE53, 0xFE53}, {0xFE67, 0xFE67}, {0xFE6C, 0xFE6F}, {0xFE75, 0xFE75}, {0xFEFD, 0xFF00},
    {0xFFBF, 0xFFC1}, {0xFFC8, 0xFFC9}, {0xFFD0, 0xFFD1}, {0xFFD8, 0xFFD9}, {0xFFDD, 0xFFDF},
    {0xFFE7, 0xFFE7}, {0xFFEF, 0xFFFB}, {0xFFFE, 0xFFFF}, {0x1000C, 0x1000C}, {0x10027, 0x10027},
    {0x1003B, 0x1003B}, {0x1003E, 0x1003E}, {0x1004E, 0x1004F}, {0x1005E, 0x1007F},
    {0x100FB, 0x100FF}, {0x10103, 0x10106}, {0x10134, 0x10136}, {0x1018F, 0x1018F},
    {0x1019D, 0x1019F}, {0x101A1, 0x101CF}, {0x101FE, 0x1027F}, {0x1029D, 0x1029F},
    {0x102D1, 0x102DF}, {0x102FC, 0x102FF}, {0x10324, 0x1032C}, {0x1034B, 0x1034F},
    {0x1037B, 0x1037F}, {0x1039E, 0x1039E}, {0x103C4, 0x103C7}, {0x103D6, 0x103FF},
    {0x1049E, 0x1049F}, {0x104AA, 0x104AF}, {0x104D4, 0x104D7}, {0x104FC, 0x104FF},
    {0x10528, 0x1052F}, {0x10564, 0x1056E}, {0x1057B, 0x1057B}, {0x1058B, 0x1058B},
    {0x10593, 0x10593}, {0x10596, 0x10596}, {0x105A2, 0x105A2}, {0x105B2, 0x105B2},
    {0x105BA, 0x105BA}, {0x105BD, 0x105FF}, {0x10737, 0x1073F}, {0x10756, 0x1075F},
    {0x10768, 0x1077F}, {0x10786, 0x10786}, {0x107B1, 0x107B1}, {0x107BB, 0x107FF},
    {0x10806, 0x10807}, {0x10809, 0x10809}, {0x10836, 0x10836}, {0x10839, 0x1083B},
    {0x1083D, 0x1083E}, {0x10856, 0x10856}, {0x1089F, 0x108A6}, {0x108B0, 0x108DF},
    {0x108F3, 0x108F3}, {0x108F6, 0x108FA}, {0x1091C, 0x1091E}, {0x1093A, 0x1093E},
    {0x10940, 0x1097F}, {0x109B8, 0x109BB}, {0x109D0, 0x109D1}, {0x10A04, 0x10A04},
    {0x10A07, 0x10A0B}, {0x10A14, 0x10A14}, {0x10A18, 0x10A18}, {0x10A36, 0x10A37},
    {0x10A3B, 0x10A3E}, {0x10A49, 0x10A4F}, {0x10A59, 0x10A5F}, {0x10AA0, 0x10ABF},
    {0x10AE7, 0x10AEA}, {0x10AF7, 0x10AFF}, {0x10B36, 0x10B38}, {0x10B56, 0x10B57},
    {0x10B73, 0x10B77}, {0x10B92, 0x10B98}, {0x10B9D, 0x10BA8}, {0x10BB0, 0x10BFF},
    {0x10C49, 0x10C7F}, {0x10CB3, 0x10CBF}, {0x10CF3, 0x10CF9}, {0x10D28, 0x10D2F},
    {0x10D3A, 0x10E5F}, {0x10E7F, 0x10E7F}, {0x10EAA, 0x10EAA}, {0x10EAE, 0x10EAF},
    {0x10EB2, 0x10EFF}, {0x10F28, 0x10F2F}, {0x10F5A, 0x10F6F}, {0x10F8A, 0x10FAF},
    {0x10FCC, 0x10FDF}, {0x10FF7, 0x10FFF}, {0x1104E, 0x11051}, {0x11076, 0x1107E},
    {0x110BD, 0x110BD}, {0x110C3, 0x110CF}, {0x110E9, 0x110EF}, {0x110FA, 0x110FF},
    {0x11135, 0x11135}, {0x11148, 0x1114F}, {0x11177, 0x1117F}, {0x111E0, 0x111E0},
    {0x111F5, 0x111FF}, {0x11212, 0x11212}, {0x1123F, 0x1127F}, {0x11287, 0x11287},
    {0x11289, 0x11289}, {0x1128E, 0x1128E}, {0x1129E, 0x1129E}, {0x112AA, 0x112AF},
    {0x112EB, 0x112EF}, {0x112FA, 0x112FF}, {0x11304, 0x11304}, {0x1130D, 0x1130E},
    {0x11311, 0x11312}, {0x11329, 0x11329}, {0x11331, 0x11331}, {0x11334, 0x11334},
    {0x1133A, 0x1133A}, {0x11345, 0x11346}, {0x11349, 0x1134A}, {0x1134E, 0x1134F},
    {0x11351, 0x11356}, {0x11358, 0x1135C}, {0x11364, 0x11365}, {0x1136D, 0x1136F},
    {0x11375, 0x113FF}, {0x1145C, 0x1145C}, {0x11462, 0x1147F}, {0x114C8, 0x114CF},
    {0x114DA, 0x1157F}, {0x115B6, 0x115B7}, {0x115DE, 0x115FF}, {0x11645, 0x1164F},
    {0x1165A, 0x1165F}, {0x1166D, 0x1167F}, {0x116BA, 0x116BF}, {0x116CA, 0x116FF},
    {0x1171B, 0x1171C}, {0x1172C, 0x1172F}, {0x11747, 0x117FF}, {0x1183C, 0x1189F},
    {0x118F3, 0x118FE}, {0x11907, 0x11908}, {0x1190A, 0x1190B}, {0x11914, 0x11914},
    {0x11917, 0x11917}, {0x11936, 0x11936}, {0x11939, 0x1193A}, {0x11947, 0x1194F},
    {0x1195A, 0x1199F}, {0x119A8, 0x119A9}, {0x119D8, 0x119D9}, {0x119E5, 0x119FF},
    {0x11A48, 0x11A4F}, {0x11AA3, 0x11AAF}, {0x11AF9, 0x11BFF}, {0x11C09, 0x11C09},
    {0x11C37, 0x11C37}, {0x11C46, 0x11C4F}, {0x11C6D, 0x11C6F}, {0x11C90, 0x11C91},
    {0x11CA8, 0x11CA8}, {0x11CB7, 0x11CFF}, {0x11D07, 0x11D07}, {0x11D0A, 0x11D0A},
    {0x11D37, 0x11D39}, {0x11D3B, 0x11D3B}, {0x11D3E, 0x11D3E}, {0x11D48, 0x11D4F},
    {0x11D5A, 0x11D5F}, {0x11D66, 0x11D66}, {0x11D69, 0x11D69}, {0x11D8F, 0x11D8F},
    {0x11D92, 0x11D92}, {0x11D99, 0x11D9F}, {0x11DAA, 0x11EDF}, {0x11EF9, 0x11FAF},
    {0x11FB1, 0x11FBF}, {0x11FF2, 0x11FFE}, {0x1239A, 0x123FF}, {0x1246F, 0x1246F},
    {0x12475, 0x1247F}, {0x12544, 0x12F8F}, {0x12FF3, 0x12FFF}, {0x1342F, 0x143FF},
    {0x14647, 0x167FF}, {0x16A39, 0x16A3F}, {0x16A5F, 0x16A5F}, {0x16A6A, 0x16A6D},
    {0x16ABF, 0x16ABF}, {0x16ACA, 0x16ACF}, {0x16AEE, 0x16AEF}, {0x16AF6, 0x16AFF},
    {0x16B46, 0x16B4F}, {0x16B5A, 0x16B5A}, {0x16B62, 0x16B62}, {0x16B78, 0x16B7C},
    {0x16B90, 0x16E3F}, {0x16E9B, 0x16EFF}, {0x16F4B, 0x16F4E}, {0x16F88, 0x16F8E},
    {0x16FA0, 0x16FDF}, {0x16FE5, 0x16FEF}, {0x16FF2, 0x16FFF}, {0x187F8, 0x187FF},
    {0x18CD6, 0x18CFF}, {0x18D09, 0x1AFEF}, {0x1AFF4, 0x1AFF4}, {0x1AFFC, 0x1AFFC},
    {0x1AFFF, 0x1AFFF}, {0x1B123, 0x1B14F}, {0x1B153, 0x1B163}, {0x1B168, 0x1B16F},
    {0x1B2FC, 0x1BBFF}, {0x1BC6B, 0x1BC6F}, {0x1BC7D, 0x1BC7F}, {0x1BC89, 0x1BC8F},
    {0x1BC9A, 0x1BC9B}, {0x1BCA0, 0x1CEFF}, {0x1CF2E, 0x1CF2F}, {0x1CF47, 0x1CF4F},
    {0x1CFC4, 0x1CFFF}, {0x1D0F6, 0x1D0FF}, {0x1D127, 0x1D128}, {0x1D173, 0x1D17A},
    {0x1D1EB, 0x1D1FF}, {0x1D246, 0x1D2DF}, {0x1D2F4, 0x1D2FF}, {0x1D357, 0x1D35F},
    {0x1D379, 0x1D3FF}, {0x1D455, 0x1D455}, {0x1D49D, 0x1D49D}, {0x1D4A0, 0x1D4A1},
    {0x1D4A3, 0x1D4A4}, {0x1D4A7, 0x1D4A8}, {0x1D4AD, 0x1D4AD}, {0x1D4BA, 0x1D4BA},
    {0x1D4BC, 0x1D4BC}, {0x1D4C4, 0x1D4C4}, {0x1D506, 0x1D506}, {0x1D50B, 0x1D50C},
    {0x1D515, 0x1D515}, {0x1D51D, 0x1D51D}, {0x1D53A, 0x1D53A}, {0x1D53F, 0x1D53F},
    {0x1D545, 0x1D545}, {0x1D547, 0x1D549}, {0x1D551, 0x1D551}, {0x1D6A6, 0x1D6A7},
    {0x1D7CC, 0x1D7CD}, {0x1DA8C, 0x1DA9A}, {0x1DAA0, 0x1DAA0}, {0x1DAB0, 0x1DEFF},
    {0x1DF1F, 0x1DFFF}, {0x1E007, 0x1E007}, {0x1E019, 0x1E01A}, {0x1E022, 0x1E022},
    {0x1E025, 0x1E025}, {0x1E02B, 0x1E0FF}, {0x1E12D, 0x1E12F}, {0x1E13E, 0x1E13F},
    {0x1E14A, 0x1E14D}, {0x1E150, 0x1E28F}, {0x1E2AF, 0x1E2BF}, {0x1E2FA, 0x1E2FE},
    {0x1E300, 0x1E7DF}, {0x1E7E7, 0x1E7E7}, {0x1E7EC, 0x1E7EC}, {0x1E7EF, 0x1E7EF},
    {0x1E7FF, 0x1E7FF}, {0x1E8C5, 0x1E8C6}, {0x1E8D7, 0x1E8FF}, {0x1E94C, 0x1E94F},
    {0x1E95A, 0x1E95D}, {0x1E960, 0x1EC70}, {0x1ECB5, 0x1ED00}, {0x1ED3E, 0x1EDFF},
    {0x1EE04, 0x1EE04}, {0x1EE20, 0x1EE20}, {0x1EE23, 0x1EE23}, {0x1EE25, 0x1EE26},
    {0x1EE28, 0x1EE28}, {0x1EE33, 0x1EE33}, {0x1EE38, 0x1EE38}, {0x1EE3A, 0x1EE3A},
    {0x1EE3C, 0x1EE41}, {0x1EE43, 0x1EE46}, {0x1EE48, 0x1EE48}, {0x1EE4A, 0x1EE4A},
    {0x1EE4C, 0x1EE4C}, {0x1EE50, 0x1EE50}, {0x1EE53, 0x1EE53}, {0x1EE55, 0x1EE56},
    {0x1EE58, 0x1EE58}, {0x1EE5A, 0x1EE5A}, {0x1EE5C, 0x1EE5C}, {0x1EE5E, 0x1EE5E},
    {0x1EE60, 0x1EE60}, {0x1EE63, 0x1EE63}, {0x1EE65, 0x1EE66}, {0x1EE6B, 0x1EE6B},
    {0x1EE73, 0x1EE73}, {0x1EE78, 0x1EE78}, {0x1EE7D, 0x1EE7D}, {0x1EE7F, 0x1EE7F},
    {0x1EE8A, 0x1EE8A}, {0x1EE9C, 0x1EEA0}, {0x1EEA4, 0x1EEA4}, {0x1EEAA, 0x1EEAA},
    {0x1EEBC, 0x1EEEF}, {0x1EEF2, 0x1EFFF}, {0x1F02C, 0x1F02F}, {0x1F094, 0x1F09F},
    {0x1F0AF, 0x1F0B0}, {0x1F0C0, 0x1F0C0}, {0x1F0D0, 0x1F0D0}, {0x1F0F6, 0x1F0FF},
    {0x1F1AE, 0x1F1E5}, {0x1F203, 0x1F20F}, {0x1F23C, 0x1F23F}, {0x1F249, 0x1F24F},
    {0x1F252, 0x1F25F}, {0x1F266, 0x1F2FF}, {0x1F6D8, 0x1F6DC}, {0x1F6ED, 0x1F6EF},
    {0x1F6FD, 0x1F6FF}, {0x1F774, 0x1F77F}, {0x1F7D9, 0x1F7DF}, {0x1F7EC, 0x1F7EF},
    {0x1F7F1, 0x1F7FF}, {0x1F80C, 0x1F80F}, {0x1F848, 0x1F84F}, {0x1F85A, 0x1F85F},
    {0x1F888, 0x1F88F}, {0x1F8AE, 0x1F8AF}, {0x1F8B2, 0x1F8FF}, {0x1FA54, 0x1FA5F},
    {0x1FA6E, 0x1FA6F}, {0x1FA75, 0x1FA77}, {0x1FA7D, 0x1FA7F}, {0x1FA87, 0x1FA8F},
    {0x1FAAD, 0x1FAAF}, {0x1FABB, 0x1FABF}, {0x1FAC6, 0x1FACF}, {0x1FADA, 0x1FADF},
    {0x1FAE8, 0x1FAEF}, {0x1FAF7, 0x1FAFF}, {0x1FB93, 0x1FB93}, {0x1FBCB, 0x1FBEF},
    {0x1FBFA, 0x1FFFF}, {0x2A6E0, 0x2A6FF}, {0x2B739, 0x2B73F}, {0x2B81E, 0x2B81F},
    {0x2CEA2, 0x2CEAF}, {0x2EBE1, 0x2F7FF}, {0x2FA1E, 0x2FFFF}, {0x3134B, 0xE00FF},
    {0xE01F0, 0x10FFFF},
};

bool is_printable(char32_t c) {
    if (c < 0x7F) return c >= 0x20;
    const auto* end = std::end(kNonPrintable);
    const auto* it = std::upper_bound(std::begin(kNonPrintable), end, c,
                                      [](char32_t value, const CodeRange& r) { return value < r.first; });
    if (it == std::begin(kNonPrintable)) return true;
    --it;
    return c > it->last;
}

}  // namespace

}  // namespace tslice
