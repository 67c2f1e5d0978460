#include "tslice/error.hpp"

namespace tslice {

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
