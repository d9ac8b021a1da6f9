// QuantileSketch: exact on few values, within its relative accuracy on many, deterministic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "sim/quantile_sketch.h"

using fairway::sim::QuantileSketch;

TEST(QuantileSketch, IsExactOnFewValues) {
    QuantileSketch sketch;
    EXPECT_EQ(sketch.quantile(0.5), 0);
    for (double v : {30.0, 10.0, 20.0, 40.0}) sketch.add(v);
    EXPECT_TRUE(sketch.exact());
    EXPECT_EQ(sketch.quantile(0.5), 20);  // nearest rank: ceil(0.5 * 4) = 2nd
    EXPECT_EQ(sketch.quantile(0.95), 40);
    EXPECT_EQ(sketch.quantile(0), 10);
    EXPECT_EQ(sketch.count(), 4U);
}

TEST(QuantileSketch, StaysWithinItsRelativeAccuracyOnManyValues) {
    std::mt19937_64 random(7);
    std::lognormal_distribution<double> wait(6, 2);
    QuantileSketch sketch(0.01);
    std::vector<double> values;
    for (int i = 0; i < 20000; ++i) {
        double v = i % 10 == 0 ? 0.0 : std::floor(wait(random));
        values.push_back(v);
        sketch.add(v);
    }
    EXPECT_FALSE(sketch.exact());
    std::sort(values.begin(), values.end());
    for (double q : {0.05, 0.1, 0.5, 0.9, 0.95, 0.99, 1.0}) {
        double exact = values[static_cast<std::size_t>(std::ceil(q * values.size())) - 1];
        EXPECT_NEAR(sketch.quantile(q), exact, 0.01 * exact + 1e-9) << "q=" << q;
    }
}
