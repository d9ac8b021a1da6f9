// A team's standing in Slurm's windowed fair-share, published to Kubernetes so that Kueue and
// Volcano order the team's work the way Slurm does: the weight of a Kueue LocalQueue under Admission
// Fair Sharing (the namespace's association) and of a Volcano Queue (the group's account).
//
// The weight is Slurm's classic fair-share factor of the association, F = 2^(-U/S/d) (U its
// EffectvUsage, S its NormShares, d FairShareDampeningFactor; fairshare::classic_fs_factor), with the
// exponent rounded to quarters and at most kWeightFloorExponent: F in [2^-10, 1], in thousandths.
// Why the factor: it counts both clusters' usage (the bridge's Kubernetes records are charged into
// the same ledger), falls as a team uses more than its shares, and under Fair Tree, where U and S are
// relative to the siblings, orders sibling accounts as their LevelFS does. Why the rounding: usage
// decays every pass, so an exact factor would be rewritten every cycle; in steps of 2^(1/4) (19 %) a
// team's weight changes only when its standing does, and a steady state writes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fairshare/usage_records.h"
#include "quota/bridge_config.h"

namespace fairway::quota {

inline constexpr long kFullWeightMilli = 1000;   // F = 1: no usage
inline constexpr int kWeightFloorExponent = 10;  // F never below 2^-10: a weight of 0 would mean "never"

// An association's figures as slurmctld publishes them (sshare's EffectvUsage and NormShares).
struct AssociationStanding {
    long double effective_usage = 0;
    long double norm_shares = 0;
};

// The published weight of one association, in thousandths (1..1000).
long standing_weight_milli(const AssociationStanding& standing, std::uint16_t dampening);

// The weight as a Kubernetes quantity, e.g. "841m" (Kueue's fairSharing.weight).
std::string weight_quantity(long milli);

// What the bridge publishes, in thousandths: per group (its account's association) and per
// namespace (the association usage.associations maps it to, else its group's account), from
// the figures per association key (fairshare::association_key).
// An association Slurm does not list has no usage: full weight.
struct PublishedStanding {
    std::map<std::string, long> by_group;
    std::map<std::string, long> by_namespace;
};
PublishedStanding published_standing(const BridgeConfig& config,
                                     const std::map<std::string, AssociationStanding>& by_association,
                                     std::uint16_t dampening);

}  // namespace fairway::quota
