#include "sim/quantile_sketch.h"

#include <algorithm>
#include <cmath>

namespace fairway::sim {

QuantileSketch::QuantileSketch(double relative_accuracy)
    : gamma_((1 + relative_accuracy) / (1 - relative_accuracy)), log_gamma_(std::log(gamma_)) {}

int QuantileSketch::index_of(double value) const { return static_cast<int>(std::ceil(std::log(value) / log_gamma_)); }

// The point of bin i whose relative distance to both edges is the accuracy.
double QuantileSketch::value_of(int index) const { return 2 * std::pow(gamma_, index) / (gamma_ + 1); }

void QuantileSketch::bin(double value) {
    if (value <= 0) ++zeros_;
    else ++bins_[index_of(value)];
}

void QuantileSketch::add(double value) {
    value = std::max(value, 0.0);
    ++count_;
    if (!binned_) {
        samples_.push_back(value);
        if (samples_.size() <= kExactSamples) return;
        binned_ = true;
        for (double kept : samples_) bin(kept);
        samples_.clear();
        samples_.shrink_to_fit();
        return;
    }
    bin(value);
}

double QuantileSketch::quantile(double q) const {
    if (count_ == 0) return 0;
    q = std::clamp(q, 0.0, 1.0);
    auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    if (!binned_) {
        std::vector<double> sorted = samples_;
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank - 1), sorted.end());
        return sorted[rank - 1];
    }
    if (rank <= zeros_) return 0;
    std::uint64_t seen = zeros_;
    for (const auto& [index, n] : bins_) {
        seen += n;
        if (seen >= rank) return value_of(index);
    }
    return value_of(bins_.rbegin()->first);
}

}  // namespace fairway::sim
