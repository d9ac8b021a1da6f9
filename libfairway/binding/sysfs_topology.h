// GPU and CPU NUMA locality read from sysfs. The root is a parameter so unit and cluster tests
// use a fake tree; a missing or unreadable file means "unknown", never an error, because a node
// without NUMA information must still run its jobs.
#pragma once

#include "binding/gpu_policy.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fairway::binding {

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt when malformed (or above 65536 CPUs).
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// NUMA node of every GPU, indexed like Slurm's GPU indices: the display-class PCI devices
// (class 0x03xxxx) under ROOT/bus/pci/devices, in PCI address order, which is the order NVML
// and AutoDetect use. An entry is nullopt when the device reports no node (-1).
std::vector<std::optional<int>> read_gpu_numa_nodes(const std::string& sysfs_root);

// ROOT/devices/system/node/nodeN/cpulist for every N.
NumaLayout read_numa_layout(const std::string& sysfs_root);

}  // namespace fairway::binding
