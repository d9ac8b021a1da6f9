#include "common/pointer_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

namespace fairway {
namespace {

TEST(PointerTable, EmptyFindsNothing) {
    PointerTable<int, double> table;
    int key = 0;
    EXPECT_EQ(table.find(&key), nullptr);
    EXPECT_EQ(table.size(), 0u);
}

TEST(PointerTable, InsertThenFindAndReplace) {
    PointerTable<int, double> table;
    int a = 0, b = 0;
    table.insert(&a, 1.5);
    ASSERT_NE(table.find(&a), nullptr);
    EXPECT_EQ(*table.find(&a), 1.5);
    EXPECT_EQ(table.find(&b), nullptr);
    table.insert(&a, 2.5);
    EXPECT_EQ(*table.find(&a), 2.5);
    EXPECT_EQ(table.size(), 1u);
}

// Keys with the same alignment collide in their low bits; many of them, inserted through several
// growths and in random order, must all stay findable with their own values.
TEST(PointerTable, ManyAlignedKeysAgreeWithStdMap) {
    std::vector<long double> storage(5000);
    std::vector<size_t> order(storage.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(7));
    PointerTable<long double, size_t> table;
    std::map<const long double*, size_t> reference;
    for (size_t i : order) {
        table.insert(&storage[i], i * 3);
        reference[&storage[i]] = i * 3;
    }
    EXPECT_EQ(table.size(), reference.size());
    for (const auto& [key, value] : reference) {
        ASSERT_NE(table.find(key), nullptr);
        EXPECT_EQ(*table.find(key), value);
    }
    long double outside = 0;
    EXPECT_EQ(table.find(&outside), nullptr);
}

}  // namespace
}  // namespace fairway
