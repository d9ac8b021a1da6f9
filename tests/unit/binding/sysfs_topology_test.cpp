#include "binding/sysfs_topology.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace fairway::binding;
namespace fs = std::filesystem;

namespace {

// A throw-away sysfs tree under the test's temporary directory.
class FakeSysfs {
public:
    FakeSysfs() : root_(fs::path(testing::TempDir()) / ("fake-sysfs-" + std::to_string(::getpid()))) {
        fs::remove_all(root_);
    }
    ~FakeSysfs() { fs::remove_all(root_); }
    void write(const std::string& relative, const std::string& text) {
        fs::create_directories((root_ / relative).parent_path());
        std::ofstream(root_ / relative) << text;
    }
    void pci(const std::string& address, const std::string& pci_class, const std::string& numa) {
        write("bus/pci/devices/" + address + "/class", pci_class + "\n");
        write("bus/pci/devices/" + address + "/numa_node", numa + "\n");
    }
    std::string root() const { return root_.string(); }

private:
    fs::path root_;
};

}  // namespace

TEST(SysfsTopology, ParsesCpuLists) {
    EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
    EXPECT_EQ(parse_cpu_list(""), (std::vector<int>{}));
    EXPECT_EQ(parse_cpu_list("3,1-2,1"), (std::vector<int>{1, 2, 3}));
    for (const char* bad : {"a", "3-1", "1,,2", "0-99999", "-1", "1-2-3"})
        EXPECT_FALSE(parse_cpu_list(bad).has_value()) << bad;
}

TEST(SysfsTopology, GpusAreDisplayDevicesInPciOrder) {
    FakeSysfs sysfs;
    sysfs.pci("0000:c1:00.0", "0x030200", "1");
    sysfs.pci("0000:00:1f.2", "0x010601", "0");  // a SATA controller: not a GPU
    sysfs.pci("0000:41:00.0", "0x030000", "0");
    sysfs.pci("0000:81:00.0", "0x030200", "-1");                      // no NUMA information
    sysfs.write("bus/pci/devices/0000:e1:00.0/class", "0x030200\n");  // numa_node missing
    auto nodes = read_gpu_numa_nodes(sysfs.root());
    std::vector<std::optional<int>> expected{0, std::nullopt, 1, std::nullopt};
    EXPECT_EQ(nodes, expected);
}

TEST(SysfsTopology, ReadsNumaCpuLists) {
    FakeSysfs sysfs;
    sysfs.write("devices/system/node/node0/cpulist", "0-3\n");
    sysfs.write("devices/system/node/node1/cpulist", "4-7\n");
    sysfs.write("devices/system/node/node2/cpulist", "\n");  // memory-only node
    sysfs.write("devices/system/node/possible", "0-2\n");    // not a node directory
    auto layout = read_numa_layout(sysfs.root());
    NumaLayout expected{{0, {0, 1, 2, 3}}, {1, {4, 5, 6, 7}}, {2, {}}};
    EXPECT_EQ(layout, expected);
}

TEST(SysfsTopology, MissingTreeMeansUnknownNotAnError) {
    EXPECT_TRUE(read_gpu_numa_nodes("/nonexistent/sysfs").empty());
    EXPECT_TRUE(read_numa_layout("/nonexistent/sysfs").empty());
}
