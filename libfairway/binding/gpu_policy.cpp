#include "binding/gpu_policy.h"

#include "binding/text.h"
#include "common/error.h"
#include "presets/reference.h"
#include "presets/values.h"

#include <algorithm>

namespace fairway::binding {
namespace {

constexpr const char* kAcceptedForms = "none, per-rank:N, round-robin, closest, ordered";

std::string count_text(std::size_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

bool shares_a_cpu(const std::vector<int>& a, const std::vector<int>& b) {
    for (int cpu : a)
        if (std::binary_search(b.begin(), b.end(), cpu)) return true;
    return false;
}

StepGpu closest_gpu(const std::vector<StepGpu>& step_gpus, const RankPlacement& rank, const NumaLayout& numa) {
    std::set<int> task_nodes;
    for (const auto& [node, cpus] : numa)
        if (shares_a_cpu(rank.cpus, cpus)) task_nodes.insert(node);
    std::vector<StepGpu> near;
    for (const auto& gpu : step_gpus)
        if (gpu.numa_node && task_nodes.count(*gpu.numa_node)) near.push_back(gpu);
    std::size_t slot = static_cast<std::size_t>(rank.local_rank);
    if (near.empty()) return step_gpus[slot % step_gpus.size()];
    slot %= near.size();
    if (task_nodes.size() == 1) {
        const auto& node_cpus = numa.at(*task_nodes.begin());
        auto first_local = std::find_if(rank.cpus.begin(), rank.cpus.end(), [&](int cpu) {
            return std::binary_search(node_cpus.begin(), node_cpus.end(), cpu);
        });
        if (rank.cpus.size() < node_cpus.size()) {
            auto position = static_cast<std::size_t>(
                std::lower_bound(node_cpus.begin(), node_cpus.end(), *first_local) - node_cpus.begin());
            slot = position * near.size() / node_cpus.size();
        }
    }
    return near[slot];
}

}  // namespace

GpuPolicy parse_gpu_policy(std::string_view text) {
    auto policy = presets::parse_gpu_binding(text);
    // The text is the user's and the message goes to slurmstepd's log: escaped, so it cannot forge a line.
    if (!policy)
        throw InputError({"", 0, "gpu_binding"}, "invalid GPU binding policy '" + presets::escape_for_message(text) +
                                                     "' (accepted: " + kAcceptedForms + ", N from 1 to 1024)");
    return *policy;
}

std::string to_string(const GpuPolicy& policy) { return presets::format_gpu_binding(policy); }

void check_satisfiable(const GpuPolicy& policy, std::size_t gpu_count, int local_tasks) {
    if (policy.policy == PolicyKind::none) return;
    if (local_tasks < 1) throw BindingError("GPU binding '" + to_string(policy) + "' needs at least one local task");
    if (gpu_count == 0)
        throw BindingError("GPU binding '" + to_string(policy) +
                           "' needs GPUs but the step has none on this node (request them with --gpus or --gres)");
    std::size_t needed = std::size_t{policy.gpus_per_rank} * static_cast<std::size_t>(local_tasks);
    if (policy.policy == PolicyKind::per_rank && needed > gpu_count)
        throw BindingError("GPU binding '" + to_string(policy) + "' needs " + count_text(needed, "GPU") + " for " +
                           count_text(static_cast<std::size_t>(local_tasks), "local rank") + " but the step has " +
                           count_text(gpu_count, "GPU") + " on this node");
}

std::optional<std::vector<StepGpu>> select_gpus(const GpuPolicy& policy, const std::vector<StepGpu>& step_gpus,
                                                const RankPlacement& rank, const NumaLayout& numa) {
    check_satisfiable(policy, step_gpus.size(), rank.local_tasks);
    if (rank.local_rank < 0 || rank.local_rank >= rank.local_tasks)
        throw BindingError("local rank " + std::to_string(rank.local_rank) + " is outside 0.." +
                           std::to_string(rank.local_tasks - 1));
    auto r = static_cast<std::size_t>(rank.local_rank);
    switch (policy.policy) {
    case PolicyKind::none: return std::nullopt;
    case PolicyKind::per_rank: {
        auto n = static_cast<std::size_t>(policy.gpus_per_rank);
        return std::vector<StepGpu>(step_gpus.begin() + r * n, step_gpus.begin() + r * n + n);
    }
    case PolicyKind::round_robin: return std::vector<StepGpu>{step_gpus[r % step_gpus.size()]};
    case PolicyKind::closest: return std::vector<StepGpu>{closest_gpu(step_gpus, rank, numa)};
    case PolicyKind::ordered: {
        std::size_t own = r % step_gpus.size();
        std::vector<StepGpu> ordered{step_gpus[own]};
        for (std::size_t i = 0; i < step_gpus.size(); ++i)
            if (i != own) ordered.push_back(step_gpus[i]);
        return ordered;
    }
    }
    return std::nullopt;
}

std::string visible_devices(const std::vector<StepGpu>& gpus) {
    std::vector<std::string> ids;
    for (const auto& gpu : gpus) ids.push_back(gpu.visible_id);
    return join(ids, ",");
}

}  // namespace fairway::binding
