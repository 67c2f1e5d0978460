#include "tslice/error.hpp"

#include <utility>

namespace tslice {

void fail_input(const std::string& message, std::string file) {
    throw Error(ErrorKind::Input, message, std::move(file));
}

void fail_usage(const std::string& message) { throw Error(ErrorKind::Usage, message); }

std::string file_display_name(const std::string& path) {
    return path == "-" ? std::string("standard input") : "'" + path + "'";
}

Error error_about_file(const Error& error, const std::string& path, const std::string& field) {
    const std::string name = file_display_name(path);
    const std::string message = error.file() == name ? error.what() : name + ": " + error.what();
    return Error(error.kind(), field.empty() ? message : field + ": " + message, name);
}

std::string ExprError::describe() const {
    // Columns are counted in characters as a terminal shows them: UTF-8 continuation bytes
    // before the column take no cell.
    std::size_t cells = 0;
    for (std::size_t i = 0; i < column_ && i < expression_.size(); ++i)
        if ((static_cast<unsigned char>(expression_[i]) & 0xC0) != 0x80) ++cells;
    std::string text = what();
    text.append(" (column ").append(std::to_string(cells + 1)).append(")\n  ");
    text.append(expression_).append("\n  ").append(cells, ' ').append("^");
    return text;
}

}  // namespace tslice
