// --stats as text: a line for people, or a JSON object. Floats are written as Python's repr
// writes a float64 (the shortest digits that read back the same value; exponent form below
// 1e-4 and from 1e16 on), so that the numbers read exactly as numpy's nanmean and friends print.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "tslice/print.hpp"
#include "tslice/stats.hpp"

namespace tslice {
namespace {

std::string python_float_repr(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    const std::string text(buffer, result.ptr);
    // text: [-]d[.ddd]e[+-]XX
    const std::size_t e = text.find('e');
    const bool negative = text[0] == '-';
    std::string digits;
    for (std::size_t i = negative ? 1 : 0; i < e; ++i)
        if (text[i] != '.') digits += text[i];
    const int exponent = std::stoi(text.substr(e + 1));
    std::string out = negative ? "-" : "";
    if (exponent < -4 || exponent >= 16) {
        out += digits[0];
        if (digits.size() > 1) out += "." + digits.substr(1);
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        return out + exp;
    }
    if (exponent < 0) return out + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    const auto point = static_cast<std::size_t>(exponent + 1);
    if (digits.size() <= point) return out + digits + std::string(point - digits.size(), '0') + ".0";
    return out + digits.substr(0, point) + "." + digits.substr(point);
}

std::string extreme_text(const std::optional<ArrayStats::Extreme>& value, bool json) {
    if (!value) return json ? "null" : "nan";
    if (const auto* i = std::get_if<std::int64_t>(&*value)) return std::to_string(*i);
    if (const auto* u = std::get_if<std::uint64_t>(&*value)) return std::to_string(*u);
    const double d = std::get<double>(*value);
    const std::string text = python_float_repr(d);
    return json && !std::isfinite(d) ? "\"" + text + "\"" : text;
}

std::string value_text(const std::optional<double>& value, bool json) {
    if (!value) return json ? "null" : "nan";
    const std::string text = python_float_repr(*value);
    return json && !std::isfinite(*value) ? "\"" + text + "\"" : text;
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace

std::string stats_line(const ArrayStats& stats, const std::optional<std::string>& name, const ElementType& type,
                       const std::vector<std::int64_t>& shape) {
    std::string out = name ? *name + "  " : "";
    out += type.name() + "  " + format_shape(shape);
    out += "  count " + std::to_string(stats.count) + "  nan " + std::to_string(stats.nan) + "  +inf " +
           std::to_string(stats.posinf) + "  -inf " + std::to_string(stats.neginf);
    out += "  min " + extreme_text(stats.min, false) + "  max " + extreme_text(stats.max, false);
    out += "  mean " + value_text(stats.mean, false) + "  std " + value_text(stats.std, false);
    return out;
}

std::string stats_json(const ArrayStats& stats, const std::optional<std::string>& name, const ElementType& type,
                       const std::vector<std::int64_t>& shape) {
    std::string out = "{\"name\": " + (name ? json_string(*name) : std::string("null"));
    out += ", \"dtype\": " + json_string(type.name()) + ", \"shape\": [";
    for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    out += "], \"count\": " + std::to_string(stats.count) + ", \"nan\": " + std::to_string(stats.nan) +
           ", \"posinf\": " + std::to_string(stats.posinf) + ", \"neginf\": " + std::to_string(stats.neginf);
    out += ", \"min\": " + extreme_text(stats.min, true) + ", \"max\": " + extreme_text(stats.max, true);
    out += ", \"mean\": " + value_text(stats.mean, true) + ", \"std\": " + value_text(stats.std, true) + "}";
    return out;
}

}  // namespace tslice
