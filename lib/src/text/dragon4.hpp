// The shortest digits that identify a float among its neighbours, cut off and rounded as
// numpy's Dragon4 does (numpy's format_float_positional / format_float_scientific).
#pragma once

#include <string>

#include "text/element_value.hpp"

namespace tslice {

// Dragon4's trim modes: 'k', '.', '0' and '-'.
enum class Trim { Keep, Zeros, LeaveOneZero, DotAndZeros };

std::string sign_text(bool negative, bool plus);

// numpy's dragon4_positional(x, precision, min_digits, unique=True, fractional=True, trim,
// sign), before padding; -1 is no limit.
std::string dragon4_positional(const Real& x, int precision, int min_digits, Trim trim, bool plus);

// numpy's dragon4_scientific(x, precision, min_digits, unique=True, trim, sign, exp_digits),
// before padding: precision and min_digits count the digits after the point.
std::string dragon4_scientific(const Real& x, int precision, int min_digits, Trim trim, bool plus,
                               int exp_digits);

}  // namespace tslice
