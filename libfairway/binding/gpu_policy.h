// Which of a step's GPUs on one node each rank sees. A policy is chosen per job (preset or
// --gpu-bind-policy) and evaluated independently in every rank: given the same inputs, every
// rank of a node computes a consistent, non-overlapping (where the policy promises it) share.
#pragma once

#include "presets/job_request.h"

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fairway::binding {

// The policy vocabulary is the presets' (a preset's `gpu_binding` field), so there is one
// parser and one spelling of every policy.
using GpuPolicy = presets::GpuBinding;
using PolicyKind = presets::GpuBindingPolicy;

// "none", "per-rank:N" (1 <= N <= 1024), "round-robin", "closest", "ordered" (as in a preset).
// Throws fairway::InputError (key "gpu_binding") naming the accepted forms.
GpuPolicy parse_gpu_policy(std::string_view text);
std::string to_string(const GpuPolicy& policy);

// One GPU of the step on this node.
struct StepGpu {
    std::string visible_id;        // what goes into CUDA_VISIBLE_DEVICES (as Slurm gave it)
    std::optional<int> numa_node;  // NUMA node of its PCI device, when known
};

// Where a rank runs on this node.
struct RankPlacement {
    int local_rank = 0;
    int local_tasks = 1;
    std::vector<int> cpus;  // the task's CPU affinity, ascending (empty: unknown)
};

// The node's NUMA nodes and their CPUs (ascending); empty when unknown.
using NumaLayout = std::map<int, std::vector<int>>;

// A policy that cannot be met with the step's GPUs (fails the step start).
class BindingError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws BindingError when `policy` cannot give every one of `local_tasks` ranks its GPUs
// out of `gpu_count`; the message says what the policy needs and what the step has.
void check_satisfiable(const GpuPolicy& policy, std::size_t gpu_count, int local_tasks);

// The rank's GPUs in the order they should be visible. For None: nullopt (leave the step's
// environment as Slurm set it). Throws BindingError like check_satisfiable.
//   per-rank:N   ranks get consecutive exclusive blocks of N GPUs (rank r: [r*N, r*N+N)).
//   round-robin  one GPU each, rank r gets GPU r mod count (ranks share when outnumbering GPUs).
//   closest      one GPU each among those on the NUMA nodes the task's CPUs belong to. A task
//                pinned inside one NUMA node takes the local GPU matching its CPUs' position in
//                that node (ranks pinned to different cores spread over the node's GPUs);
//                otherwise, or when no GPU is local or locality is unknown, local rank mod count.
//   ordered      every step GPU, the rank's round-robin GPU first, the rest in step order.
std::optional<std::vector<StepGpu>> select_gpus(const GpuPolicy& policy, const std::vector<StepGpu>& step_gpus,
                                                const RankPlacement& rank, const NumaLayout& numa = {});

// "0,1" from the selection, for CUDA_VISIBLE_DEVICES.
std::string visible_devices(const std::vector<StepGpu>& gpus);

}  // namespace fairway::binding
