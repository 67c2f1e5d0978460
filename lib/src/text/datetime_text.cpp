// Datetimes and timedeltas as numpy shows them: ISO 8601 in the dtype's own unit
// (numpy's make_iso_8601_datetime), NaT, and "N units" for a timedelta scalar.
#include "text/datetime_text.hpp"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "text/element_value.hpp"

namespace tslice {

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

std::int64_t load_time(const std::byte* p, const DType& dtype) {
    std::int64_t value;
    load_native(p, 8, swapped(dtype.byte_order), &value);
    return value;
}

namespace {

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

}  // namespace

std::string datetime_text(std::int64_t value, const TimeMeta& meta, const DType& dtype) {
    if (value == kNaT) return "NaT";
    if (meta.unit == TimeUnit::Generic) unprintable(dtype);  // numpy cannot show these either
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
}  // namespace tslice
