// Running another program (sacct, sacctmgr, rsvg-convert) without a shell, and waiting for it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace fairway::tools {

// Runs command[0], looked up in PATH, with the rest as its arguments; with `on_line`, its standard
// output is handed over line by line (end of line removed). Throws std::runtime_error "cannot run
// NAME: REASON" when it cannot start, "NAME failed (exit status N)" when it does not exit with 0.
void run_program(const std::vector<std::string>& command,
                 const std::function<void(const std::string&)>& on_line = nullptr);

}  // namespace fairway::tools
