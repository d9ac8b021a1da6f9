// Errors that carry where bad input came from, so every message can name file, line and key.
#pragma once

#include <stdexcept>
#include <string>

namespace fairway {

struct SourceLocation {
    std::string file;  // empty when the input did not come from a file
    int line = 0;      // 1-based; 0 when unknown
    std::string key;   // the offending key, e.g. "window" or "presets.a100.gpus"
};

std::string describe(const SourceLocation& where);

// Thrown by cores for invalid input; adapters turn it into Slurm error codes or exit status.
class InputError : public std::runtime_error {
public:
    InputError(SourceLocation where, const std::string& problem);
    const SourceLocation& where() const noexcept { return where_; }
    const std::string& problem() const noexcept { return problem_; }

private:
    SourceLocation where_;
    std::string problem_;
};

}  // namespace fairway
