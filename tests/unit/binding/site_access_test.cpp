#include "binding/site_access.h"
#include "common/error.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

using namespace fairway::binding;

TEST(SiteAccess, ModesThatHideAFileOrDirectoryFromUsersAreNamed) {
    EXPECT_EQ(hidden_from_users("/x", 0644, SiteEntry::file), std::nullopt);
    EXPECT_EQ(hidden_from_users("/x", 0444, SiteEntry::file), std::nullopt);
    EXPECT_EQ(hidden_from_users("/d", 0755, SiteEntry::directory), std::nullopt);
    EXPECT_EQ(hidden_from_users("/d", 040755, SiteEntry::directory), std::nullopt);  // with S_IFDIR
    auto file = hidden_from_users("/etc/slurm/fairway/presets.conf", 0600, SiteEntry::file);
    ASSERT_TRUE(file);
    EXPECT_NE(file->find("mode 0600"), std::string::npos) << *file;
    EXPECT_NE(file->find("chmod a+r /etc/slurm/fairway/presets.conf"), std::string::npos) << *file;
    EXPECT_TRUE(hidden_from_users("/x", 0640, SiteEntry::file));
    auto dir = hidden_from_users("/p.d", 040700, SiteEntry::directory);
    ASSERT_TRUE(dir);
    EXPECT_NE(dir->find("mode 0700"), std::string::npos) << *dir;
    EXPECT_NE(dir->find("chmod a+rx /p.d"), std::string::npos) << *dir;
    EXPECT_TRUE(hidden_from_users("/p.d", 0754, SiteEntry::directory));  // listable, not searchable
    EXPECT_TRUE(hidden_from_users("/p.d", 0751, SiteEntry::directory));
}

TEST(SiteAccess, ChecksTheFileItselfAndTellsAMissingOneApart) {
    char dir_template[] = "/tmp/site-access-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    std::string dir = dir_template, conf = dir + "/presets.conf";
    EXPECT_FALSE(check_readable_by_users(conf, SiteEntry::file));
    std::ofstream(conf) << "{}\n";
    ASSERT_EQ(chmod(conf.c_str(), 0644), 0);
    ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
    EXPECT_TRUE(check_readable_by_users(conf, SiteEntry::file));
    EXPECT_TRUE(check_readable_by_users(dir, SiteEntry::directory));
    ASSERT_EQ(chmod(conf.c_str(), 0600), 0);
    ASSERT_EQ(chmod(dir.c_str(), 0700), 0);
    try {
        check_readable_by_users(conf, SiteEntry::file);
        ADD_FAILURE() << "0600 accepted";
    } catch (const fairway::InputError& error) {
        EXPECT_EQ(error.where().file, conf);
        EXPECT_NE(std::string(error.what()).find("mode 0600"), std::string::npos) << error.what();
    }
    EXPECT_THROW(check_readable_by_users(dir, SiteEntry::directory), fairway::InputError);
    std::remove(conf.c_str());
    rmdir(dir.c_str());
}
