// numpy's datetime64 and timedelta64 values as text: ISO 8601 in the dtype's own unit
// (numpy's make_iso_8601_datetime), NaT, and "N units" for a timedelta scalar.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tslice/npy.hpp"

namespace tslice {

enum class TimeUnit { Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, Generic };

// The unit of an 'M' or 'm' dtype: "<M8[15s]" is 15 seconds.
struct TimeMeta {
    TimeUnit unit = TimeUnit::Generic;
    std::int64_t multiplier = 1;
};

constexpr std::int64_t kNaT = INT64_MIN;

TimeMeta time_meta(const DType& dtype);
std::int64_t load_time(const std::byte* p, const DType& dtype);
// A datetime without quotes; a generic-unit value is unprintable() as numpy cannot show it.
std::string datetime_text(std::int64_t value, const TimeMeta& meta, const DType& dtype);
// str() of a timedelta scalar: "5 seconds", "NaT".
std::string timedelta_scalar_text(std::int64_t value, const TimeMeta& meta);

}  // namespace tslice
