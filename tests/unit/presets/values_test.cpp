#include <gtest/gtest.h>

#include <csignal>

#include "presets/values.h"

namespace fairway::presets {
namespace {

TEST(PresetValues, GpuCounts) {
    EXPECT_EQ(parse_gpu_count("4"), (GpuCount{"", 4}));
    EXPECT_EQ(parse_gpu_count("a100:4"), (GpuCount{"a100", 4}));
    EXPECT_EQ(parse_gpu_count("h100-80g:8"), (GpuCount{"h100-80g", 8}));
    for (const char* bad : {"", "0", "a100", "a100:", ":4", "-1", "4x", "a 100:4", "a100:4:2x", "99999999999"})
        EXPECT_FALSE(parse_gpu_count(bad)) << bad;
    EXPECT_EQ(format_gpu_count(*parse_gpu_count("a100:4")), "a100:4");
    EXPECT_EQ(format_gpu_count(*parse_gpu_count("2")), "2");
}

TEST(PresetValues, GpuBindings) {
    EXPECT_EQ(parse_gpu_binding("none"), (GpuBinding{GpuBindingPolicy::none, 0}));
    EXPECT_EQ(parse_gpu_binding("per-rank:2"), (GpuBinding{GpuBindingPolicy::per_rank, 2}));
    EXPECT_EQ(parse_gpu_binding("round-robin"), (GpuBinding{GpuBindingPolicy::round_robin, 0}));
    EXPECT_EQ(parse_gpu_binding("closest"), (GpuBinding{GpuBindingPolicy::closest, 0}));
    EXPECT_EQ(parse_gpu_binding("ordered"), (GpuBinding{GpuBindingPolicy::ordered, 0}));
    for (const char* bad : {"", "per-rank", "per-rank:", "per-rank:0", "per-rank:x", "roundrobin", "Closest"})
        EXPECT_FALSE(parse_gpu_binding(bad)) << bad;
    for (const char* text : {"none", "per-rank:3", "round-robin", "closest", "ordered"})
        EXPECT_EQ(format_gpu_binding(*parse_gpu_binding(text)), text);
}

TEST(PresetValues, WarnSignals) {
    EXPECT_EQ(parse_warn_signal("USR1@120"), (WarnSignal{SIGUSR1, 120, false}));
    EXPECT_EQ(parse_warn_signal("SIGUSR2"), (WarnSignal{SIGUSR2, 60, false}));
    EXPECT_EQ(parse_warn_signal("B:TERM@30"), (WarnSignal{SIGTERM, 30, true}));
    EXPECT_EQ(parse_warn_signal("R:10@5"), (WarnSignal{10, 5, false}));
    for (const char* bad : {"", "@120", "USR3@1", "USR1@", "USR1@-1", "USR1@70000", "X:USR1", "0", "65"})
        EXPECT_FALSE(parse_warn_signal(bad)) << bad;
    EXPECT_EQ(format_warn_signal(*parse_warn_signal("B:USR1@120")), "B:USR1@120");
}

TEST(PresetValues, MemorySizes) {
    EXPECT_EQ(parse_memory_mb("16000"), 16000u);
    EXPECT_EQ(parse_memory_mb("16G"), 16384u);
    EXPECT_EQ(parse_memory_mb("512M"), 512u);
    EXPECT_EQ(parse_memory_mb("1T"), 1024u * 1024u);
    EXPECT_EQ(parse_memory_mb("1500K"), 2u);
    for (const char* bad : {"", "0", "G", "16GB", "-1", "1.5G", "99999999999999999999"})
        EXPECT_FALSE(parse_memory_mb(bad)) << bad;
}

TEST(PresetValues, NamesAndConstraints) {
    EXPECT_TRUE(is_valid_name("a100-train"));
    EXPECT_TRUE(is_valid_name_list("gpu,debug"));
    for (const char* bad : {"", ".hidden", "-x", "a b", "a/b", "a,b"}) EXPECT_FALSE(is_valid_name(bad)) << bad;
    EXPECT_FALSE(is_valid_name_list("gpu,"));
    EXPECT_TRUE(is_valid_constraint("a100&ib"));
    EXPECT_TRUE(is_valid_constraint("[rack1|rack2]*2"));
    EXPECT_FALSE(is_valid_constraint("a100; rm -rf /"));
    EXPECT_FALSE(is_valid_constraint(""));
}

TEST(PresetValues, Booleans) {
    EXPECT_EQ(parse_bool("true"), true);
    EXPECT_EQ(parse_bool("no"), false);
    EXPECT_FALSE(parse_bool("1"));
    EXPECT_FALSE(parse_bool("maybe"));
}

}  // namespace
}  // namespace fairway::presets
