#include "fairshare/job_priority.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

[[noreturn]] void reject(const char* key, const std::string& problem) {
    throw InputError(SourceLocation{"", 0, key}, problem);
}

void check_finite(double value, const char* key) {
    if (!std::isfinite(value)) reject(key, "must be a finite number");
}

void validate(const PriorityConfig& config, const JobFacts& job) {
    check_finite(job.fairshare_factor, "fairshare_factor");
    check_finite(job.assoc_priority_norm, "assoc_priority_norm");
    check_finite(job.qos_priority_norm, "qos_priority_norm");
    for (double weight : config.weights.tres) check_finite(weight, "tres");
    if (!config.weights.tres.empty() && config.weights.tres.size() != job.tres_count.size())
        reject("tres", "PriorityWeightTRES has " + std::to_string(config.weights.tres.size()) +
                           " entries but the job has " + std::to_string(job.tres_count.size()));
    if (job.partitions.empty()) reject("partitions", "a job needs at least one partition");
    for (const PartitionFacts& part : job.partitions) {
        check_finite(part.norm_priority, "norm_priority");
        if (!part.tres_total.empty() && part.tres_total.size() != job.tres_count.size())
            reject("tres", "partition " + part.name + " has " + std::to_string(part.tres_total.size()) +
                               " TRES totals but the job has " + std::to_string(job.tres_count.size()));
    }
}

double job_size_relative_to_time(const PriorityConfig& config, const ClusterShape& cluster, const JobFacts& job) {
    double size = static_cast<double>(job.min_nodes) * cluster.cpus / cluster.nodes;
    if (job.cpus > size) size = job.cpus;
    double limit = 1;
    if (job.time_limit_minutes) limit = *job.time_limit_minutes;
    else limit = job.partitions.front().max_time_minutes;
    size = size / limit / cluster.cpus;
    return config.favor_small ? 1.0 - size : size;
}

double job_size_factor(const PriorityConfig& config, const ClusterShape& cluster, const JobFacts& job) {
    if (config.weights.job_size == 0) return 0;
    const double nodes = cluster.nodes, cpus = cluster.cpus;
    double size = 0;
    if (config.flags.small_relative_to_time) {
        size = job_size_relative_to_time(config, cluster, job);
    } else if (config.favor_small) {
        // multifactor subtracts in uint32_t (a job larger than the cluster wraps, then clamps to 1)
        size = static_cast<double>(cluster.nodes - job.min_nodes) / nodes;
        if (job.cpus) size = (size + static_cast<double>(cluster.cpus - job.cpus) / cpus) / 2;
    } else {
        size = job.min_nodes / nodes;
        if (job.cpus) size = (size + job.cpus / cpus) / 2;
    }
    if (std::isnan(size)) return 0;
    return std::clamp(size, 0.0, 1.0);
}

double partition_factor(const PriorityConfig& config, const PartitionFacts& part) {
    return config.flags.no_normal_partition ? part.priority_job_factor : part.norm_priority;
}

std::vector<double> tres_factors(const PriorityConfig& config, const JobFacts& job, const PartitionFacts& part) {
    std::vector<double> factors(job.tres_count.size(), 0.0);
    if (config.weights.tres.empty()) return factors;
    for (std::size_t i = 0; i < factors.size(); ++i) {
        const auto value = static_cast<double>(job.tres_count[i]);
        if (config.flags.no_normal_tres) factors[i] = value;
        else if (value != 0 && !part.tres_total.empty() && part.tres_total[i] != 0)
            factors[i] = value / static_cast<double>(part.tres_total[i]);
    }
    return factors;
}

double weighted_tres_sum(const PriorityConfig& config, std::vector<double>& factors) {
    double sum = 0;
    for (std::size_t i = 0; i < factors.size() && i < config.weights.tres.size(); ++i) {
        factors[i] *= config.weights.tres[i];
        sum += factors[i];
    }
    return sum;
}

PriorityFactors normalised_factors(const PriorityConfig& config, const ClusterShape& cluster, const JobFacts& job,
                                   TimePoint now) {
    const PriorityWeights& w = config.weights;
    const PartitionFacts& part = job.partitions.front();
    PriorityFactors f;
    f.age = age_factor(config, job.accrue_time, now);
    f.fairshare = w.fairshare ? job.fairshare_factor : 0;
    f.job_size = job_size_factor(config, cluster, job);
    f.partition = (part.priority_job_factor && w.partition) ? partition_factor(config, part) : 0;
    f.assoc = w.assoc ? (config.flags.no_normal_assoc ? job.assoc_priority : job.assoc_priority_norm) : 0;
    f.qos = (job.qos_priority && w.qos) ? (config.flags.no_normal_qos ? job.qos_priority : job.qos_priority_norm) : 0;
    f.tres = tres_factors(config, job, part);
    f.site = job.site_factor;
    f.nice = job.nice;
    return f;
}

}  // namespace

double age_factor(const PriorityConfig& config, const std::optional<TimePoint>& accrue_time, TimePoint now) {
    if (config.weights.age == 0 || !accrue_time || accrue_time->time_since_epoch().count() == 0) return 0;
    // multifactor keeps the age in a uint32_t
    const auto diff = now > *accrue_time ? static_cast<std::uint32_t>((now - *accrue_time).count()) : 0U;
    const auto max_age = static_cast<std::uint32_t>(config.max_age.count());
    return diff < max_age ? static_cast<double>(diff) / static_cast<double>(max_age) : 1.0;
}

std::uint32_t clamp_priority(double raw) {
    if (std::isnan(raw) || raw < 1) return 1;
    if (raw >= 4294967295.0) return 0xFFFFFFFFU;
    return static_cast<std::uint32_t>(raw);
}

JobPriority compute_job_priority(const PriorityConfig& config, const ClusterShape& cluster, const JobFacts& job,
                                 TimePoint now) {
    validate(config, job);
    if (cluster.nodes == 0 || cluster.cpus == 0) reject("cluster", "a cluster needs nodes and CPUs");
    const PriorityWeights& w = config.weights;
    JobPriority result;
    result.normalised = normalised_factors(config, cluster, job, now);
    PriorityFactors& weighted = result.weighted;
    weighted = result.normalised;
    weighted.age *= w.age;
    weighted.assoc *= w.assoc;
    weighted.fairshare *= w.fairshare;
    weighted.job_size *= w.job_size;
    weighted.partition *= w.partition;
    weighted.qos *= w.qos;
    const double tres = weighted_tres_sum(config, weighted.tres);
    const auto site = static_cast<double>(job.site_factor);
    const auto nice = static_cast<double>(job.nice);
    // Summed in multifactor's order so the truncated integers agree.
    result.sum = weighted.age + weighted.assoc + weighted.fairshare + weighted.job_size + weighted.partition +
                 weighted.qos + tres + site - nice;
    result.priority = clamp_priority(result.sum);
    if (job.partitions.size() < 2) return result;
    for (const PartitionFacts& part : job.partitions) {
        std::vector<double> factors = tres_factors(config, job, part);
        const double part_tres = weighted_tres_sum(config, factors);
        const double part_term = partition_factor(config, part) * static_cast<double>(w.partition);
        result.partition_sum.push_back(part_term + (weighted.age + weighted.assoc + weighted.fairshare +
                                                    weighted.job_size + weighted.qos + part_tres + site - nice));
        result.partition_priority.push_back(clamp_priority(result.partition_sum.back()));
    }
    return result;
}

}  // namespace fairway::fairshare
