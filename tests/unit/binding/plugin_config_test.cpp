#include "binding/plugin_config.h"
#include "common/error.h"

#include <gtest/gtest.h>

using fairway::InputError;
using fairway::binding::parse_plugin_args;
using fairway::binding::parse_port_range;

TEST(PluginConfig, DefaultsWithoutArguments) {
    auto config = parse_plugin_args({});
    EXPECT_EQ(config.presets_dir, "/etc/slurm/fairway/presets.d");
    EXPECT_EQ(config.master_port_range.first, 29500);
    EXPECT_EQ(config.master_port_range.last, 29999);
    EXPECT_EQ(config.sysfs_root, "/sys");
    EXPECT_TRUE(config.allow_env.empty());
    EXPECT_EQ(config.user_preset_max_bytes, 4u * 1024);  // presets.conf's default
}

TEST(PluginConfig, ReadsEveryArgument) {
    auto config =
        parse_plugin_args({"presets_dir=/srv/presets", "master_port_range=40000-40009", "allow_env=LD_PRELOAD,SLURM_X",
                           "sysfs_root=/tmp/fake-sys", "user_preset_max_bytes=1024"});
    EXPECT_EQ(config.presets_dir, "/srv/presets");
    EXPECT_EQ(config.master_port_range.first, 40000);
    EXPECT_EQ(config.master_port_range.last, 40009);
    EXPECT_EQ(config.allow_env, (std::vector<std::string>{"LD_PRELOAD", "SLURM_X"}));
    EXPECT_EQ(config.sysfs_root, "/tmp/fake-sys");
    EXPECT_EQ(config.user_preset_max_bytes, 1024u);
}

TEST(PluginConfig, ErrorsNameTheArgument) {
    struct Case {
        const char* arg;
        const char* key;
    };
    for (auto [arg, key] :
         {Case{"colour=blue", "colour"}, Case{"presets_dir", "presets_dir"},
          Case{"presets_dir=relative", "presets_dir"}, Case{"sysfs_root=", "sysfs_root"},
          Case{"master_port_range=9-3", "master_port_range"}, Case{"master_port_range=1-70000", "master_port_range"},
          Case{"master_port_range=0-10", "master_port_range"}, Case{"master_port_range=29500", "master_port_range"},
          Case{"user_preset_max_bytes=0", "user_preset_max_bytes"},
          Case{"user_preset_max_bytes=lots", "user_preset_max_bytes"}}) {
        try {
            parse_plugin_args({arg});
            ADD_FAILURE() << arg << " was accepted";
        } catch (const InputError& error) {
            EXPECT_EQ(error.where().key, key) << arg;
            EXPECT_EQ(error.where().file, "plugstack.conf") << arg;
            EXPECT_NE(std::string(error.what()).find(key), std::string::npos) << error.what();
        }
    }
}

TEST(PluginConfig, UnknownArgumentListsTheKnownOnes) {
    try {
        parse_plugin_args({"preset_dir=/x"});
        FAIL();
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("presets_dir"), std::string::npos) << error.what();
    }
}

TEST(PluginConfig, SinglePortRangeIsAllowed) {
    auto range = parse_port_range("29500-29500");
    EXPECT_EQ(range.first, 29500);
    EXPECT_EQ(range.last, 29500);
}

TEST(PluginConfig, FindsPresetsConfLikeJobSubmit) {
    using fairway::binding::site_config_path;
    auto config = parse_plugin_args({});
    EXPECT_EQ(site_config_path(config, nullptr, nullptr), "/etc/slurm/fairway/presets.conf");
    EXPECT_EQ(site_config_path(config, nullptr, "/var/tmp/c/etc/slurm.conf"), "/var/tmp/c/etc/fairway/presets.conf");
    EXPECT_EQ(site_config_path(config, "/srv/p.conf", "/var/tmp/c/etc/slurm.conf"), "/srv/p.conf");
    EXPECT_EQ(site_config_path(config, "", ""), "/etc/slurm/fairway/presets.conf");
    config = parse_plugin_args({"presets_conf=/opt/presets.conf"});
    EXPECT_EQ(site_config_path(config, "/srv/p.conf", nullptr), "/opt/presets.conf");
}

TEST(PluginConfig, SiteConfigFillsWhatPlugstackLeftOut) {
    fairway::presets::SiteConfig site;
    site.presets_dir = "/site/presets.d";
    site.allow_env = {"LD_LIBRARY_PATH"};
    site.max_user_preset_bytes = 4096;
    auto merged = fairway::binding::with_site_config(parse_plugin_args({"presets_dir=/plugstack/dir"}), site);
    EXPECT_EQ(merged.presets_dir, "/site/presets.d");
    EXPECT_EQ(merged.allow_env, std::vector<std::string>{"LD_LIBRARY_PATH"});
    EXPECT_EQ(merged.user_preset_max_bytes, 4096u);
    merged =
        fairway::binding::with_site_config(parse_plugin_args({"allow_env=SLURM_X", "user_preset_max_bytes=100"}), site);
    EXPECT_EQ(merged.allow_env, std::vector<std::string>{"SLURM_X"});
    EXPECT_EQ(merged.user_preset_max_bytes, 100u);
}
