// Shared by the tests: the error an action throws, for the checks of its kind, message or column.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>
#include <string>

#include "tslice/error.hpp"

namespace tslice_test {

// A copy of the E that `action` throws; fails the test if it throws none, and FAIL ends the test
// case, so no check runs on an error that was never thrown. The copy is an E: an ExprError
// caught as an Error loses its column. Anything other than an E goes on to doctest, which
// reports it as unexpected.
template <typename E = tslice::Error>
E thrown_by(const std::function<void()>& action) {
    try {
        action();
    } catch (const E& error) {
        return error;
    }
    FAIL("no error was thrown");
    std::abort();  // not reached, FAIL throws: this spares E a default value to return
}

// The message of the tslice::Error that `action` throws, which must be of `kind`.
inline std::string message_of(tslice::ErrorKind kind, const std::function<void()>& action) {
    const tslice::Error error = thrown_by(action);
    CHECK(error.kind() == kind);
    return error.what();
}

// The message of the input error (exit 1: a file unreadable or not what it claims to be) that
// `action` throws.
inline std::string input_error(const std::function<void()>& action) {
    return message_of(tslice::ErrorKind::Input, action);
}

}  // namespace tslice_test
