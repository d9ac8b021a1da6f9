#include "tools/report/tool_main.h"

#include <iostream>

namespace fairway::tools {

int run_tool(const char* name, const char* usage, const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& error) {
        std::cerr << name << ": " << error.what() << "\n" << usage;
        return 2;
    } catch (const std::exception& error) {  // InputError's message names file, line and key
        std::cerr << name << ": error: " << error.what() << "\n";
        return 1;
    }
}

}  // namespace fairway::tools
