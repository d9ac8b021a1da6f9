// QuantileSketch: quantiles of a stream of non-negative values in bounded memory.
//
// Exact while it holds at most kExactSamples values; past that, values go into logarithmic bins
// (DDSketch): bin i holds values in (g^(i-1), g^i] with g = (1 + a) / (1 - a), so any quantile is
// returned within relative error a (default 0.5 %) and zero exactly. Memory: at most kExactSamples
// values, then one bin per occupied power of g (about 2,100 bins between 1 s and 10 years).
// Deterministic: the same values in the same order give the same answers.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace fairway::sim {

class QuantileSketch {
public:
    static constexpr std::size_t kExactSamples = 256;

    QuantileSketch() : QuantileSketch(0.005) {}
    explicit QuantileSketch(double relative_accuracy);

    // Adds a value (negative values count as 0).
    void add(double value);
    std::uint64_t count() const noexcept { return count_; }
    // The nearest-rank q-quantile (the value at rank ceil(q * count), at least 1), q in [0, 1];
    // 0 when empty.
    double quantile(double q) const;
    // True while every value is kept (answers are exact).
    bool exact() const noexcept { return !binned_; }

private:
    void bin(double value);
    int index_of(double value) const;
    double value_of(int index) const;

    double gamma_, log_gamma_;
    std::uint64_t count_ = 0;
    bool binned_ = false;
    std::vector<double> samples_;        // while exact
    std::uint64_t zeros_ = 0;            // once binned
    std::map<int, std::uint64_t> bins_;  // once binned
};

}  // namespace fairway::sim
