// Errors carry their kind until main() turns them into a message and an exit code.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace tslice {

enum class ErrorKind {
    Usage,  // the command line, an expression or an op spec is invalid: exit 2
    Input,  // a file could not be read or written, or is not a valid .npy: exit 1
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }
    int exit_code() const noexcept { return kind_ == ErrorKind::Usage ? 2 : 1; }

private:
    ErrorKind kind_;
};

// An error located in an index expression: the message plus the expression with a caret
// under `column` (0-based byte offset into `expression`).
class ExprError : public Error {
public:
    ExprError(const std::string& message, std::string expression, std::size_t column)
        : Error(ErrorKind::Usage, message), expression_(std::move(expression)), column_(column) {}
    const std::string& expression() const noexcept { return expression_; }
    std::size_t column() const noexcept { return column_; }
    // "message (column N)\n  EXPR\n  ^" ready for a terminal.
    std::string describe() const;

private:
    std::string expression_;
    std::size_t column_;
};

}  // namespace tslice
