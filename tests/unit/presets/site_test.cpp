// Site directory loading, trust checks and the reload cache, on real files in a temporary directory.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "presets/site_cache.h"

namespace fairway::presets {
namespace {

namespace fs = std::filesystem;

class SitePresetsTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) GTEST_SKIP() << "trust checks need files owned by root";
        std::string pattern = (fs::temp_directory_path() / "fairway-presets-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        root_ = pattern;
        dir_ = root_ / "presets.d";
        fs::create_directory(dir_);
        ::chmod(dir_.c_str(), 0755);
    }
    void TearDown() override {
        if (!root_.empty()) fs::remove_all(root_);
    }
    std::string write(const fs::path& path, const std::string& text, mode_t mode = 0644) {
        std::ofstream(path) << text;
        ::chmod(path.c_str(), mode);
        return path.string();
    }
    std::string write_preset(const std::string& file, const std::string& text, mode_t mode = 0644) {
        return write(dir_ / file, text, mode);
    }
    std::string error_of(const std::function<void()>& action) {
        try {
            action();
        } catch (const InputError& e) {
            return e.what();
        }
        return "";
    }

    fs::path root_, dir_;
};

TEST_F(SitePresetsTest, LoadsYamlFilesInNameOrder) {
    write_preset("b.yaml", "name: second\ngpus: 1\n");
    write_preset("a.yaml", "name: first\ngpus: 1\n---\nname: first-b\n");
    write_preset(".hidden.yaml", "name: hidden\n");
    write_preset("notes.txt", "not yaml at all: [");
    auto presets = load_site_directory(dir_, EnvPolicy{});
    ASSERT_EQ(presets.size(), 3u);
    EXPECT_EQ(presets[0].name, "first");
    EXPECT_EQ(presets[1].name, "first-b");
    EXPECT_EQ(presets[2].name, "second");
    EXPECT_EQ(presets[2].origin.file, (dir_ / "b.yaml").string());
}

TEST_F(SitePresetsTest, DuplicateNamesNameBothFiles) {
    auto a = write_preset("a.yaml", "name: same\n");
    auto b = write_preset("b.yaml", "# comment\nname: same\n");
    auto error = error_of([&] { load_site_directory(dir_, EnvPolicy{}); });
    EXPECT_NE(error.find(b + ":2"), std::string::npos) << error;
    EXPECT_NE(error.find("already defined in " + a + ":1"), std::string::npos) << error;
}

TEST_F(SitePresetsTest, RefusesFilesOthersCouldHaveWritten) {
    auto file = write_preset("a.yaml", "name: a\n", 0646);
    auto error = error_of([&] { load_site_directory(dir_, EnvPolicy{}); });
    EXPECT_NE(error.find(file + ": refused: writable by group or others (mode 646)"), std::string::npos) << error;

    ::chmod(file.c_str(), 0644);
    ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
    error = error_of([&] { load_site_directory(dir_, EnvPolicy{}); });
    EXPECT_NE(error.find("owned by uid 65534, not root"), std::string::npos) << error;
}

TEST_F(SitePresetsTest, RefusesAWritableDirectory) {
    write_preset("a.yaml", "name: a\n");
    ::chmod(dir_.c_str(), 0777);
    auto error = error_of([&] { load_site_directory(dir_, EnvPolicy{}); });
    EXPECT_NE(error.find(dir_.string() + ": refused"), std::string::npos) << error;
}

TEST_F(SitePresetsTest, MalformedFileNamesFileLineKey) {
    auto file = write_preset("a.yaml", "name: a\n\ngpus: lots\n");
    auto error = error_of([&] { load_site_directory(dir_, EnvPolicy{}); });
    EXPECT_NE(error.find(file + ":3: key 'gpus'"), std::string::npos) << error;
}

TEST_F(SitePresetsTest, MissingConfigMeansDefaults) {
    auto config = load_site_config((root_ / "absent.conf").string());
    EXPECT_EQ(config.presets_dir, "/etc/slurm/fairway/presets.d");
    auto conf = write(root_ / "presets.conf", "presets_dir: /x\n", 0664);
    EXPECT_NE(error_of([&] { load_site_config(conf); }).find("refused"), std::string::npos);
}

TEST_F(SitePresetsTest, CacheReloadsOnlyWhenSomethingChanged) {
    auto conf = write(root_ / "presets.conf", "presets_dir: " + dir_.string() + "\n");
    auto file = write_preset("a.yaml", "name: a\ngpus: 1\n");
    SitePresetsCache cache(conf);
    auto first = cache.current();
    ASSERT_TRUE(first->ok()) << first->load_error;
    EXPECT_EQ(cache.current(), first);
    EXPECT_EQ(cache.load_count(), 1u);

    write_preset("b.yaml", "name: b\n");
    auto second = cache.current();
    EXPECT_EQ(second->catalog.names(), (std::vector<std::string>{"a", "b"}));

    write_preset("a.yaml", "name: a\ngpus: [\n");
    auto broken = cache.current();
    EXPECT_FALSE(broken->ok());
    EXPECT_NE(broken->load_error.find(file + ":"), std::string::npos) << broken->load_error;

    write_preset("a.yaml", "name: a\ngpus: 2\n", 0666);
    EXPECT_NE(cache.current()->load_error.find("refused"), std::string::npos);
    ::chmod(file.c_str(), 0644);
    auto fixed = cache.current();
    ASSERT_TRUE(fixed->ok()) << fixed->load_error;
    EXPECT_EQ(fixed->catalog.find("a")->values.gpus->count, 2u);
    EXPECT_EQ(cache.load_count(), 5u);
}

// A submission with nothing changed stats no file: the inotify watch says nothing happened. An edit
// is still seen by the very next call, and after the recheck interval the files are stat'ed anyway.
TEST_F(SitePresetsTest, CacheStatsFilesOnlyAfterAChangeOrTheRecheckInterval) {
    auto conf = write(root_ / "presets.conf", "presets_dir: " + dir_.string() + "\n");
    write_preset("a.yaml", "name: a\ngpus: 1\n");
    SitePresetsCache cache(conf, kDefaultPresetsDir, std::chrono::seconds(10));
    const auto start = SitePresetsCache::Clock::now();
    ASSERT_TRUE(cache.current(start)->ok());
    const auto stamped = cache.stamp_count();
    for (int i = 0; i < 100; ++i) cache.current(start);
    cache.current(start);  // events of the first load's watch placement, if any, are drained by now
    const auto settled = cache.stamp_count();
    for (int i = 0; i < 100; ++i) cache.current(start);
    EXPECT_EQ(cache.stamp_count(), settled);
    EXPECT_LE(settled, stamped + 1);

    write_preset("a.yaml", "name: a\ngpus: 3\n");
    EXPECT_EQ(cache.current(start)->catalog.find("a")->values.gpus->count, 3u);
    ::chmod((dir_ / "a.yaml").c_str(), 0666);
    EXPECT_FALSE(cache.current(start)->ok());
    ::chmod((dir_ / "a.yaml").c_str(), 0644);
    write(root_ / "presets.conf", "presets_dir: " + dir_.string() + "\naccount_defaults: {physics: a}\n");
    EXPECT_EQ(cache.current(start)->config.account_defaults.at("physics"), "a");

    const auto before = cache.stamp_count();
    cache.current(start + std::chrono::seconds(11));
    EXPECT_EQ(cache.stamp_count(), before + 1);
}

// The config file's directory need not exist yet: creating it (and presets.conf) is noticed.
TEST_F(SitePresetsTest, CacheNoticesAConfigDirectoryCreatedLater) {
    auto conf_dir = root_ / "fairway";
    SitePresetsCache cache((conf_dir / "presets.conf").string(), dir_.string(), std::chrono::hours(1));
    const auto now = SitePresetsCache::Clock::now();
    ASSERT_TRUE(cache.current(now)->ok());
    EXPECT_TRUE(cache.current(now)->config.account_defaults.empty());
    fs::create_directory(conf_dir);
    ::chmod(conf_dir.c_str(), 0755);
    write_preset("x.yaml", "name: x\n");
    write(conf_dir / "presets.conf", "account_defaults: {physics: x}\n");
    EXPECT_EQ(cache.current(now)->config.account_defaults.at("physics"), "x");
    write(conf_dir / "presets.conf", "account_defaults: {physics: x, biology: x}\n");
    EXPECT_EQ(cache.current(now)->config.account_defaults.count("biology"), 1u);
}

// The config directory removed and made again (one cluster test's cleanup, the next one's setup):
// the watch of the removed directory is gone, so the cache must watch the new one.
TEST_F(SitePresetsTest, CacheNoticesAConfigDirectoryRemovedAndMadeAgain) {
    auto conf_dir = root_ / "fairway";
    fs::create_directory(conf_dir);
    ::chmod(conf_dir.c_str(), 0755);
    write_preset("x.yaml", "name: x\n");
    write(conf_dir / "presets.conf", "account_defaults: {physics: x}\n");
    SitePresetsCache cache((conf_dir / "presets.conf").string(), dir_.string(), std::chrono::hours(1));
    const auto now = SitePresetsCache::Clock::now();
    ASSERT_EQ(cache.current(now)->config.account_defaults.count("physics"), 1u);
    fs::remove_all(conf_dir);
    EXPECT_TRUE(cache.current(now)->config.account_defaults.empty());
    fs::create_directory(conf_dir);
    ::chmod(conf_dir.c_str(), 0755);
    write(conf_dir / "presets.conf", "account_defaults: {biology: x}\n");
    EXPECT_EQ(cache.current(now)->config.account_defaults.count("biology"), 1u);
}

TEST_F(SitePresetsTest, CacheFollowsTheConfiguredDirectory) {
    auto other = root_ / "other.d";
    fs::create_directory(other);
    ::chmod(other.c_str(), 0755);
    write(other / "x.yaml", "name: x\n");
    auto conf = write(root_ / "presets.conf", "presets_dir: " + other.string() + "\naccount_defaults: {physics: x}\n");
    SitePresetsCache cache(conf);
    auto site = cache.current();
    ASSERT_TRUE(site->ok()) << site->load_error;
    EXPECT_EQ(site->catalog.names(), std::vector<std::string>{"x"});
    EXPECT_EQ(site->config.account_defaults.at("physics"), "x");
    write(other / "y.yaml", "name: y\n");
    EXPECT_EQ(cache.current()->catalog.names(), (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace fairway::presets

namespace fairway::presets {
namespace {

// The shipped examples (etc/presets.d) load; run-tests exports FAIRWAY_SRC.
TEST(ExamplePresets, LoadAndResolve) {
    const char* src = std::getenv("FAIRWAY_SRC");
    if (!src) GTEST_SKIP() << "FAIRWAY_SRC is not set";
    std::vector<Preset> all;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(src) + "/etc/presets.d"))
        if (entry.path().extension() == ".yaml")
            for (auto& preset : load_preset_file(entry.path(), EnvPolicy{})) all.push_back(std::move(preset));
    PresetCatalog catalog(std::move(all));
    PresetResolver resolver(catalog, EnvPolicy{});
    auto merged = merge_presets(JobRequest{}, resolver.resolve("a100-train,nccl-ib"));
    EXPECT_EQ(merged.gpus_per_node, (GpuCount{"a100", 4}));
    EXPECT_EQ(merged.env.at("NCCL_IB_DISABLE"), "0");
    EXPECT_EQ(merged.gpu_binding, (GpuBinding{GpuBindingPolicy::per_rank, 1}));
    EXPECT_EQ(catalog.names(),
              (std::vector<std::string>{"a100-train", "debug", "infer-h100", "infer-small", "nccl-ib"}));
}

}  // namespace
}  // namespace fairway::presets
