// Errors carry their kind until main() turns them into a message and an exit code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace tslice {

enum class ErrorKind {
    Usage,  // the command line, an expression or an op spec is invalid: exit 2
    Input,  // a file could not be read or written, or is not a valid .npy: exit 1
    // A broken invariant of tslice itself (a bug, whatever the input): exit 70, EX_SOFTWARE of
    // sysexits.h, so that it is told apart from the user's errors.
    Internal,
};

class Error : public std::runtime_error {
public:
    // `file`: the file the message is about and already names, as errors name files
    // ("'x.npy'", "standard input"); empty when the message names none, so that a front end
    // knows to say which file it was.
    Error(ErrorKind kind, const std::string& message, std::string file = {})
        : std::runtime_error(message), kind_(kind), file_(std::move(file)) {}
    ErrorKind kind() const noexcept { return kind_; }
    const std::string& file() const noexcept { return file_; }
    int exit_code() const noexcept {
        switch (kind_) {
            case ErrorKind::Usage: return 2;
            case ErrorKind::Input: return 1;
            case ErrorKind::Internal: return 70;
        }
        return 70;
    }

private:
    ErrorKind kind_;
    std::string file_;
};

// The one way each kind of error is raised, so that every stage says "this input is wrong"
// and "this request is wrong" alike. `file`: as for Error.
[[noreturn]] void fail_input(const std::string& message, std::string file = {});
[[noreturn]] void fail_usage(const std::string& message);

// How errors name a file: "'x.npy'", or "standard input" for "-".
std::string file_display_name(const std::string& path);

// `error` said of the file at `path`: its message starts with the file's name unless it names
// it already. `field` (a JSON path such as "ops[0].indices") goes before all of it.
Error error_about_file(const Error& error, const std::string& path, const std::string& field = {});

// What an ExprError is about, for a front end that says it in its own terms (the JSON ops
// name the field of a spec entry instead of showing a caret).
enum class ExprProblem {
    Syntax,             // anything else
    TooManyIndices,     // more items take an axis than the array has; column: the first one past
    OutOfBounds,        // an integer index outside its axis
    ZeroStep,           // a slice step of 0
    TooManyDimensions,  // the result would pass numpy's rank limit; detail: that rank
};

// An error located in an index expression: the message plus the expression with a caret
// under `column` (0-based byte offset into `expression`; for an expression built from a spec,
// the entry's number).
class ExprError : public Error {
public:
    ExprError(const std::string& message, std::string expression, std::size_t column,
              ExprProblem problem = ExprProblem::Syntax, std::int64_t detail = 0)
        : Error(ErrorKind::Usage, message), expression_(std::move(expression)), column_(column), problem_(problem),
          detail_(detail) {}
    const std::string& expression() const noexcept { return expression_; }
    std::size_t column() const noexcept { return column_; }
    ExprProblem problem() const noexcept { return problem_; }
    std::int64_t detail() const noexcept { return detail_; }
    // "message (column N)\n  EXPR\n  ^" ready for a terminal.
    std::string describe() const;

private:
    std::string expression_;
    std::size_t column_;
    ExprProblem problem_;
    std::int64_t detail_;
};

}  // namespace tslice
