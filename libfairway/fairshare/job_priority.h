// Job priority with priority/multifactor's parameters and formula (Slurm 22.05
// _get_priority_internal / set_priority_factors), as plain values in and numbers out.
//
//   priority = w_age*age + w_assoc*assoc + w_fs*fairshare + w_js*jobsize + w_part*partition
//            + w_qos*qos + sum_i(w_tres_i * tres_i) + site - nice
// clamped to [1, 0xFFFFFFFF] (0 is reserved for held jobs). Factors are normalised 0..1 unless a
// PriorityFlags NO_NORMAL_* bit says otherwise. A job submitted to several partitions gets one
// priority per partition (partition factor and TRES factors of that partition), like multifactor.
// The caller sorts partitions (multifactor: by PriorityTier, highest first) and handles INCR_ONLY.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

struct PriorityWeights {
    std::uint32_t age = 0;        // PriorityWeightAge
    std::uint32_t assoc = 0;      // PriorityWeightAssoc
    std::uint32_t fairshare = 0;  // PriorityWeightFairshare
    std::uint32_t job_size = 0;   // PriorityWeightJobSize
    std::uint32_t partition = 0;  // PriorityWeightPartition
    std::uint32_t qos = 0;        // PriorityWeightQOS
    std::vector<double> tres;     // PriorityWeightTRES, indexed like JobFacts::tres_count; empty = none
};

// The PriorityFlags bits that change the formula.
struct PriorityFlagBits {
    bool small_relative_to_time = false;  // SMALL_RELATIVE_TO_TIME
    bool no_normal_assoc = false;         // NO_NORMAL_ASSOC
    bool no_normal_partition = false;     // NO_NORMAL_PART
    bool no_normal_qos = false;           // NO_NORMAL_QOS
    bool no_normal_tres = false;          // NO_NORMAL_TRES
};

struct PriorityConfig {
    PriorityWeights weights;
    Seconds max_age{7 * 86400};  // PriorityMaxAge
    bool favor_small = false;    // PriorityFavorSmall
    PriorityFlagBits flags;
};

struct ClusterShape {
    std::uint32_t nodes = 1;  // node_record_count
    std::uint32_t cpus = 1;   // cluster_cpus
};

struct PartitionFacts {
    std::string name;
    std::uint16_t priority_job_factor = 0;  // PriorityJobFactor
    double norm_priority = 0;               // PriorityJobFactor / largest PriorityJobFactor
    std::uint32_t max_time_minutes = 0;     // MaxTime, used when the job has no time limit
    std::vector<std::uint64_t> tres_total;  // partition TRES counts, indexed like JobFacts::tres_count
};

struct JobFacts {
    std::optional<TimePoint> accrue_time;  // none: no age factor
    double fairshare_factor = 0;           // FairShareResult::job_factor(assoc)
    std::uint32_t cpus = 0;                // total_cpus, else max_cpus, else min_cpus
    std::uint32_t min_nodes = 1;
    std::optional<std::uint32_t> time_limit_minutes;  // none: partition MaxTime
    std::uint32_t assoc_priority = 0;                 // association Priority (raw)
    double assoc_priority_norm = 0;                   // raw / largest association Priority
    std::uint32_t qos_priority = 0;                   // QOS Priority (raw)
    double qos_priority_norm = 0;                     // raw / largest QOS Priority
    std::int64_t site_factor = 0;                     // scontrol's SiteFactor (already without NICE_OFFSET)
    std::int64_t nice = 0;                            // job nice (already without NICE_OFFSET; may be negative)
    std::vector<std::uint64_t> tres_count;            // allocated, else requested, per TRES
    std::vector<PartitionFacts> partitions;           // [0] = the job's current partition; more = multi-partition
};

// Factors as sprio shows them: normalised (0..1 unless NO_NORMAL_*) and weighted.
struct PriorityFactors {
    double age = 0, assoc = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
    std::vector<double> tres;  // per TRES
    std::int64_t site = 0;
    std::int64_t nice = 0;
};

struct JobPriority {
    PriorityFactors normalised;
    PriorityFactors weighted;
    std::uint32_t priority = 1;                     // for partitions[0]
    std::vector<std::uint32_t> partition_priority;  // one per JobFacts::partitions when there are > 1
    double sum = 0;                                 // the weighted sum `priority` was clamped from ...
    std::vector<double> partition_sum;              // ... and those of partition_priority
};

// Computes a job's priority at `now`. Throws InputError (key "tres") when tres_count, weights.tres
// and a partition's tres_total disagree in length (an empty tres_total means "no totals"), or for
// NaN/inf inputs (key names the field).
JobPriority compute_job_priority(const PriorityConfig& config, const ClusterShape& cluster, const JobFacts& job,
                                 TimePoint now);

// A job's age factor at `now`, 0..1: the time since `accrue_time` over PriorityMaxAge, in whole
// seconds as multifactor counts it; 0 without an accrue time or without an age weight.
double age_factor(const PriorityConfig& config, const std::optional<TimePoint>& accrue_time, TimePoint now);

// Clamps a raw sum like multifactor: NaN and < 1 give 1, > 0xFFFFFFFF gives 0xFFFFFFFF.
std::uint32_t clamp_priority(double raw);

}  // namespace fairway::fairshare
