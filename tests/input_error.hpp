// Shared by the tests of the readers: the message of the input error an action throws.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "tslice/error.hpp"

namespace tslice_test {

// The message of the tslice::Error (of kind Input) that `action` throws; fails the test if it
// throws none.
inline std::string input_error(const std::function<void()>& action) {
    try {
        action();
    } catch (const tslice::Error& e) {
        CHECK(e.kind() == tslice::ErrorKind::Input);
        return e.what();
    }
    FAIL("no tslice::Error was thrown");
    return {};
}

}  // namespace tslice_test
