#include "common/error.h"

namespace fairway {

std::string describe(const SourceLocation& where) {
    std::string text = where.file;
    if (where.line > 0) text += (text.empty() ? "line " : ":") + std::to_string(where.line);
    if (!where.key.empty()) text += (text.empty() ? "" : ": ") + std::string("key '") + where.key + "'";
    return text;
}

InputError::InputError(SourceLocation where, const std::string& problem)
    : std::runtime_error(describe(where).empty() ? problem : describe(where) + ": " + problem),
      where_(std::move(where)),
      problem_(problem) {}

}  // namespace fairway
