#include "bridge/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace fairway::bridge {
namespace {

std::atomic<int>& threshold() {
    static std::atomic<int> level{static_cast<int>(LogLevel::info)};
    return level;
}

const char* name_of(LogLevel level) {
    switch (level) {
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warn: return "warn";
    default: return "error";
    }
}

// Values with spaces, quotes or '=' are quoted so each line stays machine-splittable.
std::string quoted(const std::string& value) {
    if (!value.empty() && value.find_first_of(" \"=\t\n") == std::string::npos) return value;
    std::string out = "\"";
    for (char c : value) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c == '\n' ? ' ' : c);
    }
    return out + "\"";
}

}  // namespace

void set_log_level(LogLevel level) { threshold() = static_cast<int>(level); }

void log_event(LogLevel level, const std::string& message, std::initializer_list<LogField> fields) {
    if (static_cast<int>(level) < threshold()) return;
    std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::string line = std::string("ts=") + stamp + " level=" + name_of(level) + " msg=" + quoted(message);
    for (const auto& [key, value] : fields) line += " " + key + "=" + quoted(value);
    line += "\n";
    std::fputs(line.c_str(), stderr);
}

}  // namespace fairway::bridge
