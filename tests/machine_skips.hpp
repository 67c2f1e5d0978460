// Checks that this machine cannot make: a test whose premise does not hold here (pages that a
// file system keeps in memory whatever is asked, a kernel without a call) says so and stops,
// and test_main.cpp lists every such skip, by test and reason, after the run. A skip is never
// a pass in disguise: it is printed, and counted.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace machine_skips {

inline std::vector<std::string>& skipped() {
    static std::vector<std::string> list;
    return list;
}

// Records that the check `what` is skipped, and why (the caller then returns).
inline void skip(const std::string& what, const std::string& why) {
    skipped().push_back(what + ": " + why);
    MESSAGE("skipped: " << what << ": " << why);
}

}  // namespace machine_skips
