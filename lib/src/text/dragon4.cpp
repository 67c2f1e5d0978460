// Float digits: a port of numpy's Dragon4 (numpy/core/src/multiarray/dragon4.c), whose
// rounding of a cut-off last digit follows its own margin tests and so is not always the
// exact value's rounding (float16 2**-6 prints 1.563e-02 beside 1.001e-05).
#include "text/dragon4.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tslice {
namespace {

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

std::string apply_trim(const std::string& whole, std::string fraction, Trim trim) {
    if (trim != Trim::Keep)
        while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    if (trim == Trim::LeaveOneZero && fraction.empty()) fraction = "0";
    if (trim == Trim::DotAndZeros && fraction.empty()) return whole;
    return whole + "." + fraction;
}

}  // namespace

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

namespace {

std::string exponent_text(int exponent, int min_digits) {
    std::string digits = std::to_string(exponent < 0 ? -exponent : exponent);
    if (static_cast<int>(digits.size()) < min_digits)
        digits.insert(0, static_cast<std::size_t>(min_digits) - digits.size(), '0');
    return std::string(exponent < 0 ? "e-" : "e+") + digits;
}

}  // namespace

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

}  // namespace tslice
