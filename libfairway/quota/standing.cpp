#include "quota/standing.h"

#include <algorithm>
#include <cmath>

#include "fairshare/fair_share.h"

namespace fairway::quota {

long standing_weight_milli(const AssociationStanding& standing, std::uint16_t dampening) {
    const double factor = fairshare::classic_fs_factor(standing.effective_usage, standing.norm_shares, dampening);
    // -log2(F) = U/S/d; a factor of 0 (no shares) or below the floor takes the floor.
    const double exponent = factor > 0 ? -std::log2(factor) : kWeightFloorExponent;
    const double quarters = std::min(std::round(exponent * 4) / 4, static_cast<double>(kWeightFloorExponent));
    return std::max(1L, std::lround(kFullWeightMilli * std::exp2(-quarters)));
}

std::string weight_quantity(long milli) { return std::to_string(milli) + "m"; }

PublishedStanding published_standing(const BridgeConfig& config,
                                     const std::map<std::string, AssociationStanding>& by_association,
                                     std::uint16_t dampening) {
    auto weight_of = [&](const std::string& key) {
        auto found = by_association.find(key);
        return found == by_association.end() ? kFullWeightMilli : standing_weight_milli(found->second, dampening);
    };
    PublishedStanding out;
    for (const auto& group : config.groups) {
        const std::string& account = group.accounts.front();
        out.by_group[group.name] = weight_of(account);
        for (const auto& ns : group.namespaces) {
            auto mapped = config.usage.associations.find(ns);
            out.by_namespace[ns] = weight_of(mapped == config.usage.associations.end() ? account : mapped->second);
        }
    }
    return out;
}

}  // namespace fairway::quota
