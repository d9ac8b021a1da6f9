// libFuzzer target: what slurmstepd (root, saved uid) decodes from text the job's user controls:
// the carried step settings (FAIRWAY_STEP_PRESETS with the --preset list, job_submit's record and
// the account they must match), hostlists (SLURM_STEP_NODELIST, for MASTER_ADDR), CPU lists
// (sysfs cpulist, the task's affinity), --gpu-bind-policy and the MASTER_PORT key. Each must
// decode or refuse (nullopt, InputError); a decoded hostlist's first host must be the one
// first_host names without expanding.
//   input: OPTION '\0' RECORD '\0' ACCOUNT '\0' REST; every field, and every line of REST, is
//   also tried as each of the single-value decoders.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binding/gpu_policy.h"
#include "binding/hostlist.h"
#include "binding/step_settings.h"
#include "binding/sysfs_topology.h"
#include "binding/training_env.h"
#include "common/error.h"
#include "small_stack.h"

namespace binding = fairway::binding;
namespace presets = fairway::presets;
using fairway::fuzz::require;

namespace {

std::optional<std::string> next_field(std::string_view& text) {
    if (text.empty()) return std::nullopt;
    auto end = text.find('\0');
    std::string line(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return line;
}

template <typename Body>
void refusing_input_errors(Body body) {
    try {
        body();
    } catch (const fairway::InputError&) {}
}

void single_values(std::string_view text) {
    refusing_input_errors([&] {
        auto hosts = binding::expand_hostlist(text, 4096);
        if (!hosts.empty()) require(binding::first_host(text) == hosts.front(), "first_host disagrees with the list");
    });
    refusing_input_errors([&] { binding::first_host(text); });
    if (auto cpus = binding::parse_cpu_list(text))
        for (int cpu : *cpus) require(cpu >= 0 && cpu < 65536, "a CPU list decodes to a CPU out of range");
    refusing_input_errors([&] { binding::parse_gpu_policy(text); });
    if (auto key = binding::parse_port_key(text))
        require(binding::format_port_key(*key) == text, "a port key does not read back as written");
}

void carried_settings(std::string_view input) {
    binding::StepPresetInputs inputs;
    inputs.preset_option = next_field(input);
    inputs.applied_presets = next_field(input);
    inputs.account = next_field(input);
    inputs.step_presets = std::string(input);
    inputs.step_env = [](const std::string& name) -> std::optional<std::string> {
        if (name == "NCCL_DEBUG") return "INFO";
        return std::nullopt;
    };
    refusing_input_errors(
        [&] { binding::carried_step_settings(inputs, [] { return presets::EnvPolicy{{"LD_PRELOAD"}}; }); });
    refusing_input_errors([&] { binding::carried_account_default(inputs.step_presets, inputs.account); });
}

void exercise(std::string_view input) {
    carried_settings(input);
    for (char separator : {'\0', '\n'})
        for (std::string_view rest = input; !rest.empty();) {
            auto end = rest.find(separator);
            single_values(rest.substr(0, end));
            rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
        }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fairway::fuzz::on_small_stack([&] { exercise(std::string_view(reinterpret_cast<const char*>(data), size)); });
    return 0;
}
