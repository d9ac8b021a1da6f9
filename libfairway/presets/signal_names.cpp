#include "presets/signal_names.h"

#include <array>
#include <charconv>
#include <csignal>
#include <utility>

namespace fairway::presets {
namespace {

constexpr std::array<std::pair<std::string_view, int>, 15> kSignals = {{
    {"HUP", SIGHUP},
    {"INT", SIGINT},
    {"QUIT", SIGQUIT},
    {"ABRT", SIGABRT},
    {"KILL", SIGKILL},
    {"USR1", SIGUSR1},
    {"USR2", SIGUSR2},
    {"ALRM", SIGALRM},
    {"TERM", SIGTERM},
    {"CONT", SIGCONT},
    {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},
    {"URG", SIGURG},
    {"XCPU", SIGXCPU},
    {"PROF", SIGPROF},
}};

}  // namespace

std::optional<int> signal_number(std::string_view text) {
    if (text.starts_with("SIG")) text.remove_prefix(3);
    for (const auto& [name, number] : kSignals)
        if (name == text) return number;
    int number = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    if (number < 1 || number > 64) return std::nullopt;
    return number;
}

std::string_view signal_name(int number) {
    for (const auto& [name, value] : kSignals)
        if (value == number) return name;
    return {};
}

}  // namespace fairway::presets
