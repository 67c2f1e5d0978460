// The progress line of long copies.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tslice_cli {

// A progress line on a terminal's stderr, for copies that take more than about a second.
class Progress {
public:
    explicit Progress(bool enabled) : enabled_(enabled && ::isatty(STDERR_FILENO)), start_(Clock::now()), last_(start_) {}
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress() {
        if (shown_) std::fprintf(stderr, "\r%*s\r", 60, "");  // leave the terminal as it was
    }

    void update(std::int64_t done_bytes, std::int64_t total_bytes) {
        if (!enabled_ || total_bytes <= 0) return;
        const auto now = Clock::now();
        if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(200)) return;
        last_ = now;
        shown_ = true;
        std::fprintf(stderr, "\rtslice: %3d%% (%s of %s)", static_cast<int>(100 * done_bytes / total_bytes),
                     human(done_bytes).c_str(), human(total_bytes).c_str());
        std::fflush(stderr);
    }

private:
    using Clock = std::chrono::steady_clock;
    static std::string human(std::int64_t bytes) {
        const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        double value = static_cast<double>(bytes);
        int unit = 0;
        while (value >= 1024 && unit < 4) value /= 1024, ++unit;
        char text[32];
        std::snprintf(text, sizeof text, unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
        return text;
    }

    bool enabled_;
    Clock::time_point start_, last_;
    bool shown_ = false;
};

}  // namespace tslice_cli
