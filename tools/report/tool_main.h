// What fairway's command-line tools (fairway-report, fairway-sim) share around main(): a bad
// command line prints its message and the usage text and exits 2; any other error prints
// "NAME: error: MESSAGE" (input errors name file, line and key) and exits 1.
#pragma once

#include <functional>
#include <stdexcept>

namespace fairway::tools {

// Thrown for a bad command line.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs `body` and returns its exit status, or 2 / 1 for the errors above. `usage` is printed after
// a UsageError.
int run_tool(const char* name, const char* usage, const std::function<int()>& body);

}  // namespace fairway::tools
