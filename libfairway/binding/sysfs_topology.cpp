#include "binding/sysfs_topology.h"

#include "binding/text.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fairway::binding {
namespace {

namespace fs = std::filesystem;

// The first line of a small sysfs file; empty when it cannot be read.
std::string read_first_line(const fs::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    return line;
}

std::optional<int> parse_numa_node(const std::string& text) {
    auto value = parse_unsigned(text);  // "-1" (unknown) fails to parse, as intended
    if (!value || *value > 4096) return std::nullopt;
    return static_cast<int>(*value);
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
    std::vector<fs::path> entries;
    std::error_code error;
    for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
        entries.push_back(it->path());
    std::sort(entries.begin(), entries.end());
    return entries;
}

bool is_display_device(const fs::path& device) { return read_first_line(device / "class").rfind("0x03", 0) == 0; }

}  // namespace

std::optional<std::vector<int>> parse_cpu_list(std::string_view text) {
    std::vector<int> cpus;
    for (const auto& range : split(text, ',')) {
        auto bounds = split(range, '-');
        if (bounds.empty() || bounds.size() > 2) return std::nullopt;
        auto low = parse_unsigned(bounds.front()), high = parse_unsigned(bounds.back());
        if (!low || !high || *low > *high || *high >= 65536) return std::nullopt;
        for (auto cpu = *low; cpu <= *high; ++cpu) cpus.push_back(static_cast<int>(cpu));
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

std::vector<std::optional<int>> read_gpu_numa_nodes(const std::string& sysfs_root) {
    std::vector<std::optional<int>> nodes;
    for (const auto& device : sorted_entries(fs::path(sysfs_root) / "bus/pci/devices"))
        if (is_display_device(device)) nodes.push_back(parse_numa_node(read_first_line(device / "numa_node")));
    return nodes;
}

NumaLayout read_numa_layout(const std::string& sysfs_root) {
    NumaLayout layout;
    constexpr std::string_view prefix = "node";
    for (const auto& entry : sorted_entries(fs::path(sysfs_root) / "devices/system/node")) {
        std::string name = entry.filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        auto id = parse_numa_node(name.substr(prefix.size()));
        auto cpus = parse_cpu_list(read_first_line(entry / "cpulist"));
        if (id && cpus) layout[*id] = *cpus;
    }
    return layout;
}

}  // namespace fairway::binding
