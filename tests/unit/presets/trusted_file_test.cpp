#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "presets/trusted_file.h"

namespace fairway::presets {
namespace {

class TrustedFile : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/fairway-trusted-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        dir_ = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string write(const std::string& name, const std::string& text) {
        const std::string path = dir_ + "/" + name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    std::string dir_;
};

// Every byte of files smaller and larger than the first buffer (a page), up to the limit.
TEST_F(TrustedFile, ReadsWholeFilesOfAnySizeUpToTheLimit) {
    for (std::size_t size : {0u, 1u, 111u, 4095u, 4096u, 4097u, 10000u, 65536u}) {
        std::string text(size, 'x');
        for (std::size_t i = 0; i < size; i += 97) text[i] = static_cast<char>('a' + i % 26);
        EXPECT_EQ(read_trusted_file(write("f", text), 65536, false), text) << size << " bytes";
    }
}

TEST_F(TrustedFile, RefusesAFileOverTheLimitNamingIt) {
    const std::string path = write("big", std::string(4097, 'x'));
    try {
        read_trusted_file(path, 4096, false);
        FAIL() << "a file over the limit was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("4096"), std::string::npos) << e.what();
    }
}

// A site preset file users cannot read would fail every step that reads it (as the job's user)
// with a bare EACCES; it is refused by name and mode wherever it is read, root's reads included.
TEST_F(TrustedFile, RefusesASiteFileHiddenFromUsers) {
    if (geteuid() != 0) GTEST_SKIP() << "a trusted file is root's";
    const std::string path = write("site.yaml", "name: a\n");
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    try {
        read_trusted_file(path, 4096, true);
        FAIL() << "a file of mode 0600 was read as a site file";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("mode 0600 hides it from users"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_trusted_file(path, 4096, false), "name: a\n");  // a user's own file: no such rule
    std::filesystem::permissions(path, std::filesystem::perms::others_read, std::filesystem::perm_options::add);
    EXPECT_EQ(read_trusted_file(path, 4096, true), "name: a\n");
}

// procfs files report size 0: the read must not stop at what stat says, nor at the first buffer.
TEST_F(TrustedFile, ReadsFilesWhoseSizeStatDoesNotTell) {
    const std::string status = read_trusted_file("/proc/self/status", 1 << 20, false);
    EXPECT_NE(status.find("Pid:\t" + std::to_string(getpid())), std::string::npos);
    const std::string smaps = read_trusted_file("/proc/self/smaps", 1 << 20, false);
    EXPECT_GT(smaps.size(), 4096u);
    EXPECT_NE(smaps.find("[stack]"), std::string::npos);
    EXPECT_EQ(smaps.back(), '\n');
}

TEST_F(TrustedFile, RefusesAFileThatIsNotRegular) { EXPECT_THROW(read_trusted_file(dir_, 4096, false), InputError); }

}  // namespace
}  // namespace fairway::presets
