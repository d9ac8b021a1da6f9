#include <gtest/gtest.h>

#include "presets/carried.h"

namespace fairway::presets {
namespace {

TEST(CarriedUserPresets, RoundTrip) {
    UserPresetTexts files = {{"./a.yaml", "gpus: 2\n"}, {"./b:c.yaml", std::string("x\x01\xff,:=", 6)}, {"./empty.yaml", ""}};
    auto encoded = encode_user_presets(files);
    EXPECT_EQ(encoded.find_first_of(" \t\n;\"'"), std::string::npos);  // safe in an environment entry
    EXPECT_EQ(decode_user_presets(encoded), files);
    for (std::size_t n = 0; n < 7; ++n) {
        UserPresetTexts one = {{"p/" + std::to_string(n), std::string(n, 'z')}};
        EXPECT_EQ(decode_user_presets(encode_user_presets(one)), one) << n;
    }
}

TEST(CarriedUserPresets, EnforcesTheSizeLimit) {
    UserPresetTexts big = {{"./a.yaml", std::string(100, 'a')}};
    EXPECT_THROW(encode_user_presets(big, 99), InputError);
    auto encoded = encode_user_presets(big, 100);
    EXPECT_THROW(decode_user_presets(encoded, 99), InputError);
}

TEST(CarriedUserPresets, RejectsMalformedEncodings) {
    for (const char* bad : {"abc", "YQ==", "YQ==:Y", "YQ==:YQ=a", "!!!!:YQ==", "YQ==:YQ==,", ":YQ==", "YQ==:YQ==,,YQ==:YQ=="})
        EXPECT_THROW(decode_user_presets(bad), InputError) << bad;
    EXPECT_TRUE(decode_user_presets("").empty());
}

}  // namespace
}  // namespace fairway::presets
