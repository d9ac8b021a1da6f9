// libFuzzer target: the TRES strings of a job descriptor (tres_per_job/node/task, cpus_per_tres,
// mem_per_tres), which job_submit/fairway reads and rewrites inside slurmctld for every submission
// and which the submitter (a raw libslurm client included) controls. Each reader must return, never
// throw or crash, and an entry the job's presets put in must read back as written.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "presets/slurm_tres.h"
#include "small_stack.h"

namespace presets = fairway::presets;
using fairway::fuzz::require;

namespace {

void exercise(std::string_view tres) {
    auto gpus = presets::gpus_in_tres(tres);
    require(!gpus || presets::has_gpu_entry(tres), "gpus_in_tres reads an entry has_gpu_entry does not see");
    for (const auto& wanted : {presets::GpuCount{"a100", 4}, presets::GpuCount{"", 1}}) {
        auto edited = presets::with_gpus_in_tres(tres, wanted);
        require(presets::gpus_in_tres(edited) == wanted, "a GPU entry put in does not read back");
    }
    require(!presets::has_gpu_entry(presets::with_gpus_in_tres(tres, std::nullopt)), "a removed GPU entry remains");
    presets::per_gpu_amount_in_tres(tres);
    auto edited = presets::with_per_gpu_amount_in_tres(tres, 8);
    require(presets::per_gpu_amount_in_tres(edited) == 8u, "a per-GPU amount put in does not read back");
    presets::with_per_gpu_amount_in_tres(tres, std::nullopt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fairway::fuzz::on_small_stack([&] { exercise(std::string_view(reinterpret_cast<const char*>(data), size)); });
    return 0;
}
