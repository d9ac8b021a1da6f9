// The plain job request that presets read and write: every field a preset may set, each optional.
// "Unset" (std::nullopt, or a name absent from `env`) means the job did not ask for it and Slurm's
// own default applies; adapters map it to Slurm's NO_VAL/NULL conventions.
#pragma once

#include <array>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace fairway::presets {

using Seconds = std::chrono::seconds;

// A GPU amount as Slurm writes it: "4" or "a100:4". `type` is empty when any GPU will do.
struct GpuCount {
    std::string type;
    std::uint32_t count = 0;
    friend bool operator==(const GpuCount&, const GpuCount&) = default;
};

// How a step's GPUs on a node are divided among its ranks (applied by the SPANK plugin).
enum class GpuBindingPolicy {
    none,         // leave CUDA_VISIBLE_DEVICES as Slurm set it
    per_rank,     // exclusive blocks of `gpus_per_rank` GPUs, in local-rank order
    round_robin,  // local rank r gets GPU r mod n
    closest,      // the GPU(s) nearest (NUMA) to the rank's CPU affinity
    ordered,      // every step GPU stays visible, the rank's own first (NCCL P2P / CUDA IPC keep working)
};

struct GpuBinding {
    GpuBindingPolicy policy = GpuBindingPolicy::none;
    std::uint32_t gpus_per_rank = 0;  // only for per_rank; >= 1 there, 0 otherwise
    friend bool operator==(const GpuBinding&, const GpuBinding&) = default;
};

// A signal sent before the time limit, Slurm's --signal=[B:|R:]SIG[@seconds] ("USR1@120").
struct WarnSignal {
    int number = 0;                     // POSIX signal number (SIGUSR1 ...)
    std::uint16_t seconds_before = 60;  // Slurm's default when "@seconds" is omitted
    bool batch_shell_only = false;      // "B:" prefix: signal only the batch shell
    friend bool operator==(const WarnSignal&, const WarnSignal&) = default;
};

struct JobRequest {
    std::optional<std::string> partition;  // may be a comma list, as in --partition
    std::optional<std::string> qos;
    std::optional<Seconds> time;         // Seconds::max() = infinite
    std::optional<std::uint32_t> nodes;  // minimum node count
    std::optional<std::uint32_t> ntasks_per_node;
    std::optional<GpuCount> gpus;  // per job (--gpus)
    std::optional<GpuCount> gpus_per_node;
    std::optional<GpuCount> gpus_per_task;
    std::optional<std::uint32_t> cpus_per_gpu;
    std::optional<std::uint64_t> mem_per_gpu_mb;
    std::optional<std::string> constraint;  // node feature expression, as in --constraint
    std::optional<bool> exclusive;
    std::map<std::string, std::string> env;  // name -> value; an absent name is unset
    std::optional<GpuBinding> gpu_binding;
    std::optional<bool> distributed_env;
    std::optional<bool> requeue;
    std::optional<WarnSignal> signal;
    friend bool operator==(const JobRequest&, const JobRequest&) = default;
};

// One identifier per JobRequest member, in declaration order; the merge, the loader and the
// documentation all iterate this list so that adding a field cannot miss one of them.
enum class Field : std::uint8_t {
    partition,
    qos,
    time,
    nodes,
    ntasks_per_node,
    gpus,
    gpus_per_node,
    gpus_per_task,
    cpus_per_gpu,
    mem_per_gpu,
    constraint,
    exclusive,
    env,
    gpu_binding,
    distributed_env,
    requeue,
    signal,
};
inline constexpr std::size_t kFieldCount = 17;
using FieldSet = std::bitset<kFieldCount>;

// All fields, in declaration order.
const std::array<Field, kFieldCount>& all_fields();

// The YAML key of a field ("ntasks-per-node"); and back (nullopt for an unknown key).
std::string_view field_key(Field field);
std::optional<Field> field_from_key(std::string_view key);

// Whether `field` is set in `request` (env: at least one name).
bool is_set(const JobRequest& request, Field field);

// Fields whose value differs between `before` and `after` (what an adapter must write back).
FieldSet changed_fields(const JobRequest& before, const JobRequest& after);

// Canonical text of values, as a preset file or Slurm option would spell them.
std::string format_gpu_count(const GpuCount& gpus);         // "a100:4", "4"
std::string format_gpu_binding(const GpuBinding& binding);  // "per-rank:2", "closest"
std::string format_warn_signal(const WarnSignal& signal);   // "USR1@120", "B:USR1@120"

}  // namespace fairway::presets
