#pragma once
// Text fitted to a line width: prose re-flowed at spaces, as --help's pages are (cli/usage.cpp).

#include <cstddef>
#include <string>
#include <string_view>

namespace fizzgen::cli {

/// text re-flowed to lines of at most `width` columns, for a caller that prints it from column
/// `indent` on: breaks at spaces, keeps the line breaks it has, starts every further line with
/// `indent` spaces; a word longer than a line stays whole.
std::string wrap(std::string_view text, std::size_t width, std::size_t indent = 0);

}  // namespace fizzgen::cli
