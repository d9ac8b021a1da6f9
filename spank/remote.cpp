// Remote context (slurmstepd): per step, the presets' environment; per rank, the GPUs it sees
// and the variables torch.distributed's env:// reads.
#include "spank/remote.h"

#include "spank/yaml_module.h"

#include "binding/sysfs_topology.h"
#include "binding/text.h"
#include "binding/training_env.h"
#include "presets/carried.h"

#include <malloc.h>
#include <sched.h>

#include <stdexcept>

extern "C" {
#include <slurm/slurm.h>
}

namespace fairway::spank {
namespace {

std::optional<std::string> carried(spank_t sp, const char* name) {
    return step_env(sp, std::string(kCarriedPrefix) + name);
}

binding::StepPresetInputs step_inputs(spank_t sp, const PluginContext& context) {
    binding::StepPresetInputs inputs;
    // A batch step sees sbatch's --preset only as the exported SLURM_SPANK_ copy.
    inputs.preset_option = context.preset_option ? context.preset_option : carried(sp, presets::kSpankPresetOptionVar);
    inputs.applied_presets = carried(sp, presets::kAppliedPresetsVar);
    inputs.user_presets = carried(sp, presets::kUserPresetsVar);
    inputs.step_presets = carried(sp, presets::kStepPresetsVar);
    inputs.gpu_policy_option = context.gpu_policy_option;
    inputs.account = step_env(sp, "SLURM_JOB_ACCOUNT");
    inputs.step_env = [sp](const std::string& name) { return step_env(sp, name); };
    return inputs;
}

// Regular steps only: the batch script and the extern step are not ranks of a training job.
bool is_regular_step(spank_t sp) {
    auto step = u32_item(sp, S_JOB_STEPID);
    return step && *step <= SLURM_MAX_NORMAL_STEP_ID;  // batch, extern, interactive are above
}

// The step's GPUs as Slurm exposed them (CUDA_VISIBLE_DEVICES), each with the NUMA node of the
// physical GPU Slurm allocated (SLURM_STEP_GPUS / SLURM_JOB_GPUS hold the node-local indices).
std::vector<binding::StepGpu> step_gpus(spank_t sp, const binding::PluginConfig& config, bool need_numa) {
    auto visible = binding::split(step_env(sp, "CUDA_VISIBLE_DEVICES").value_or(""), ',');
    auto physical =
        binding::split(step_env(sp, "SLURM_STEP_GPUS").value_or(step_env(sp, "SLURM_JOB_GPUS").value_or("")), ',');
    auto numa = need_numa ? binding::read_gpu_numa_nodes(config.sysfs_root) : std::vector<std::optional<int>>{};
    std::vector<binding::StepGpu> gpus;
    for (std::size_t i = 0; i < visible.size(); ++i) {
        binding::StepGpu gpu{visible[i], std::nullopt};
        auto index = physical.size() == visible.size() ? binding::parse_unsigned(physical[i]) : std::nullopt;
        if (index && *index < numa.size()) gpu.numa_node = numa[*index];
        gpus.push_back(gpu);
    }
    return gpus;
}

// presets.conf's facts, asked of the YAML module once per step and only when presets.conf exists
// (a missing file means no account defaults and the default env policy).
class LazySiteFacts {
public:
    explicit LazySiteFacts(const PluginContext& context, std::optional<std::string> account)
        : context_(context), account_(std::move(account)) {}

    std::optional<std::string> account_default() { return facts().account_default; }

    // plugstack.conf's allow_env wins over presets.conf's, as binding::with_site_config says.
    presets::EnvPolicy env_policy() {
        if (context_.config.given.count("allow_env")) return presets::EnvPolicy{context_.config.allow_env};
        return presets::EnvPolicy{facts().allow_env};
    }

private:
    const spank::SiteFacts& facts() {
        if (!facts_)
            facts_ =
                site_config_exists(context_.config) ? yaml_site(context_.plugin_args, account_) : spank::SiteFacts{};
        return *facts_;
    }

    const PluginContext& context_;
    std::optional<std::string> account_;
    std::optional<spank::SiteFacts> facts_;
};

// What the client resolved when it carried that (no file read, no YAML), else the step's list
// resolved by the YAML module from the site directory and the carried user files.
binding::StepSettings step_settings(const binding::StepPresetInputs& inputs, const PluginContext& context,
                                    LazySiteFacts& site) {
    if (auto carried = binding::carried_step_settings(inputs, [&site] { return site.env_policy(); })) return *carried;
    const auto& list = binding::step_preset_list(inputs);
    if (!list || list->empty()) return binding::step_settings_from({}, inputs);
    auto resolved = presets::decode_step_presets(yaml_step_presets(context.plugin_args, *list, inputs.user_presets),
                                                 presets::kMaxLocalStepPresetsBytes);
    return binding::step_settings_from(resolved.applied(), inputs);
}

// Job_submit/fairway's record of the account defaults reaches batch jobs only (slurmctld hands a
// job's environment to the batch step; an allocation made by srun or salloc carries none, and
// its spank_job_env never reaches slurmstepd). A step that names no preset and carries no record
// therefore gets its account's defaults by the rule job_submit/fairway applied: the job's account
// (SLURM_JOB_ACCOUNT) looked up in the same presets.conf, which srun did once for the whole step
// and carried (client_local_user_init). Only when it carried nothing for this account, this
// slurmstepd reads presets.conf itself (YAML module).
std::optional<std::string> account_default(const binding::StepPresetInputs& inputs, LazySiteFacts& site) {
    if (auto carried = binding::carried_account_default(inputs.step_presets, inputs.account)) return carried;
    return site.account_default();
}

StepPlan make_plan(spank_t sp, const PluginContext& context) {
    StepPlan plan;
    auto inputs = step_inputs(sp, context);
    LazySiteFacts site(context, inputs.account);
    // No record: the account's defaults. An empty record: job_submit applied nothing.
    if (!inputs.preset_option && !inputs.applied_presets) inputs.applied_presets = account_default(inputs, site);
    const auto& list = binding::step_preset_list(inputs);
    if ((!list || list->empty()) && !inputs.gpu_policy_option) return plan;
    plan.settings = step_settings(inputs, context, site);
    plan.per_rank = is_regular_step(sp);
    bool closest = plan.settings.gpu_policy.policy == binding::PolicyKind::closest;
    if (plan.per_rank && plan.settings.gpu_policy.policy != binding::PolicyKind::none) {
        // sysfs_root comes from plugstack.conf only, so the plugin's own arguments suffice here.
        plan.gpus = step_gpus(sp, context.config, closest);
        if (closest) plan.numa = binding::read_numa_layout(context.config.sysfs_root);
        binding::check_satisfiable(plan.settings.gpu_policy, plan.gpus.size(),
                                   static_cast<int>(u32_item(sp, S_JOB_LOCAL_TASK_COUNT).value_or(1)));
    }
    return plan;
}

std::vector<int> task_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    return cpus;
}

bool bind_gpus(spank_t sp, const StepPlan& plan) {
    int local_rank = 0;
    if (spank_get_item(sp, S_TASK_ID, &local_rank) != ESPANK_SUCCESS) return false;
    bool closest = plan.settings.gpu_policy.policy == binding::PolicyKind::closest;
    binding::RankPlacement rank{local_rank, static_cast<int>(u32_item(sp, S_JOB_LOCAL_TASK_COUNT).value_or(1)),
                                closest ? task_cpus() : std::vector<int>{}};
    auto chosen = binding::select_gpus(plan.settings.gpu_policy, plan.gpus, rank, plan.numa);
    if (!chosen) return true;
    auto devices = binding::visible_devices(*chosen);
    bool ok = set_task_env(sp, "CUDA_VISIBLE_DEVICES", devices) && set_task_env(sp, "GPU_DEVICE_ORDINAL", devices);
    if (ok && step_env(sp, "ROCR_VISIBLE_DEVICES")) ok = set_task_env(sp, "ROCR_VISIBLE_DEVICES", devices);
    return ok;
}

bool set_all(spank_t sp, const binding::EnvList& env) {
    for (const auto& [name, value] : env)
        if (!set_step_env(sp, name, value)) return false;
    return true;
}

// A rank's own variables, into the environment its task execs with.
bool set_all_in_task(spank_t sp, const binding::EnvList& env) {
    for (const auto& [name, value] : env)
        if (!set_task_env(sp, name, value)) return false;
    return true;
}

// Gives each rank's own variables an entry in the step's environment, which every task then
// overwrites in place (set_task_env) instead of paying setenvf per variable and task.
bool reserve_rank_env(spank_t sp) {
    for (const auto& [name, value] : binding::rank_training_env(binding::RankIdentity{}))
        if (!set_step_env(sp, name, std::string())) return false;
    return true;
}

// The key srun drew for this launch's MASTER_PORT; without it the port would be computable
// from public ids, so the step refuses instead.
std::uint64_t master_port_key(spank_t sp) {
    auto name = std::string(kCarriedPrefix) + binding::kMasterPortKeyVar;
    auto text = step_env(sp, name);
    auto key = text ? binding::parse_port_key(*text) : std::nullopt;
    if (!key)
        throw std::runtime_error("distributed-env: " + name + (text ? " is malformed" : " is missing") +
                                 " (srun sets it for each launch; MASTER_PORT is derived from it)");
    return *key;
}

// What the training variables of every rank on this node share (user_init: no task yet).
binding::RankIdentity node_identity(spank_t sp) {
    binding::RankIdentity node;
    node.job_id = u32_item(sp, S_JOB_ID).value_or(0);
    node.step_id = u32_item(sp, S_JOB_STEPID).value_or(0);
    node.port_key = master_port_key(sp);
    node.world_size = u32_item(sp, S_JOB_TOTAL_TASK_COUNT).value_or(1);
    node.local_world_size = u32_item(sp, S_JOB_LOCAL_TASK_COUNT).value_or(1);
    node.node_rank = u32_item(sp, S_JOB_NODEID).value_or(0);
    node.step_nodelist = step_env(sp, "SLURM_STEP_NODELIST").value_or(step_env(sp, "SLURM_NODELIST").value_or(""));
    return node;
}

bool export_rank_training_env(spank_t sp) {
    binding::RankIdentity rank;
    rank.global_rank = u32_item(sp, S_TASK_GLOBAL_ID).value_or(0);
    int local_rank = 0;
    spank_get_item(sp, S_TASK_ID, &local_rank);
    rank.local_rank = static_cast<std::uint32_t>(local_rank);
    return set_all_in_task(sp, binding::rank_training_env(rank));
}

// The step's environment, set once per step and node: the presets' env, then the training
// variables all ranks share (task_init adds each rank's own).
bool export_step_env(spank_t sp, const PluginContext& context) {
    const StepPlan& plan = *context.plan;
    for (const auto& [name, value] : plan.settings.env_changes)
        if (!set_step_env(sp, name, value)) return false;
    if (!plan.per_rank || !plan.settings.distributed_env) return true;
    return set_all(sp, binding::node_training_env(node_identity(sp), context.config.master_port_range)) &&
           reserve_rank_env(sp);
}

// Slurm's setenvf (behind every spank_setenv) zeroes a 256 KiB buffer. The first one in a process
// raises glibc's mmap threshold, so the later ones come from the heap: once the step's environment
// is set, slurmstepd's heap holds their freed, dirty pages when it forks the tasks, and every
// task's own 256 KiB buffers (env_array_copy before exec, each setenvf) copy them page by page
// (copy-on-write). Handing the free heap back before the fork gives the tasks fresh pages instead
// (perf, 15 launches of `srun -N4 -n32 --preset`: 696 vs 28 samples in env_array_copy's page faults).
void release_free_heap() { malloc_trim(0); }

}  // namespace

int remote_user_init(spank_t sp, PluginContext& context) {
    try {
        context.plan = make_plan(sp, context);
        if (!export_step_env(sp, context)) return kSpankFailure;
        if (!context.plan->settings.env_changes.empty() || context.plan->settings.distributed_env) release_free_heap();
        if (!context.plan->settings.applied.empty())
            slurm_debug("fairway: presets %s, GPU binding %s", context.plan->settings.applied.c_str(),
                        binding::to_string(context.plan->settings.gpu_policy).c_str());
        return ESPANK_SUCCESS;
    } catch (const std::exception& error) {
        slurm_error("fairway: step cannot start: %s", error.what());
        context.step_refused = true;
        return ESPANK_SUCCESS;
    }
}

int remote_task_init(spank_t sp, const PluginContext& context) {
    if (context.step_refused) return kSpankFailure;
    if (!context.plan || !context.plan->per_rank) return ESPANK_SUCCESS;
    try {
        if (!bind_gpus(sp, *context.plan)) return kSpankFailure;
        if (context.plan->settings.distributed_env && !export_rank_training_env(sp)) return kSpankFailure;
        return ESPANK_SUCCESS;
    } catch (const std::exception& error) {
        slurm_error("fairway: task cannot start: %s", error.what());
        return kSpankFailure;
    }
}

}  // namespace fairway::spank
