#include "common/atomic_file.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace fs = std::filesystem;

namespace {

class AtomicFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "fairway-atomic-XXXXXX").string();
        ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path dir_;
};

TEST_F(AtomicFileTest, MissingFileReadsAsNullopt) {
    EXPECT_EQ(fairway::read_whole_file(dir_ / "absent"), std::nullopt);
}

TEST_F(AtomicFileTest, WriteThenReadRoundTripsBinaryContents) {
    const std::string contents("state\0with\nbinary\xff", 18);
    fairway::write_file_atomically(dir_ / "state", contents);
    EXPECT_EQ(fairway::read_whole_file(dir_ / "state"), contents);
    EXPECT_FALSE(fs::exists(fairway::atomic_temp_path(dir_ / "state")));
}

TEST_F(AtomicFileTest, ReplaceKeepsOnlyTheNewContents) {
    fairway::write_file_atomically(dir_ / "state", std::string(100000, 'a'));
    fairway::write_file_atomically(dir_ / "state", "short");
    EXPECT_EQ(fairway::read_whole_file(dir_ / "state"), "short");
}

TEST_F(AtomicFileTest, NewFileIsPrivateByDefault) {
    fairway::write_file_atomically(dir_ / "state", "x");
    EXPECT_EQ(fs::status(dir_ / "state").permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
}

// A writer killed between creating the temporary file and renaming it leaves a partial temp file:
// the previous state must still read back intact, and the next write must succeed over it.
TEST_F(AtomicFileTest, CrashBeforeRenameLeavesPreviousStateIntact) {
    fairway::write_file_atomically(dir_ / "state", "previous");
    std::ofstream(fairway::atomic_temp_path(dir_ / "state")) << "half-writ";

    EXPECT_EQ(fairway::read_whole_file(dir_ / "state"), "previous");
    fairway::write_file_atomically(dir_ / "state", "next");
    EXPECT_EQ(fairway::read_whole_file(dir_ / "state"), "next");
}

TEST_F(AtomicFileTest, UnwritableDirectoryThrowsNamingThePath) {
    const fs::path missing = dir_ / "no-such-dir" / "state";
    try {
        fairway::write_file_atomically(missing, "x");
        FAIL() << "expected std::system_error";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find("no-such-dir"), std::string::npos) << e.what();
    }
}

TEST_F(AtomicFileTest, TouchMovesTheModificationTimeAndKeepsTheContents) {
    const fs::path path = dir_ / "state";
    fairway::write_file_atomically(path, "saved");
    const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
    fs::last_write_time(path, long_ago);
    EXPECT_TRUE(fairway::touch_file(path));
    EXPECT_GT(fs::last_write_time(path), long_ago + std::chrono::minutes(59));
    EXPECT_EQ(fairway::read_whole_file(path), "saved");
    EXPECT_FALSE(fairway::touch_file(dir_ / "absent"));
    EXPECT_FALSE(fs::exists(dir_ / "absent"));
}

TEST_F(AtomicFileTest, ReadingADirectoryThrows) { EXPECT_THROW(fairway::read_whole_file(dir_), std::system_error); }

}  // namespace
