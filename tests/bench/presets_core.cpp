// What job_submit/fairway's core costs in CPU for one submission, outside slurmctld: the
// resolution, merge, record and step encoding of apply_presets_to_submission, on this thread's CPU
// clock, so other load on the machine moves it little. Companion of tests/bench/presets-hostile,
// whose sdiag deltas include Slurm's own work and wait on a loaded machine.
//   presets-core PRESETS_CONF PRESETS_DIR ACCOUNT [SPANK_JOB_ENV_ENTRY...]
// Prints the median over 15 batches of the microseconds per submission, and "refused" or
// "accepted".
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "presets/presets.h"

namespace presets = fairway::presets;

namespace {

double thread_cpu_us() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

// The value of NAME in spank_job_env entries "NAME=value", as job_submit/fairway reads it.
std::optional<std::string> entry_value(const std::vector<std::string>& entries, std::string_view name) {
    std::optional<std::string> value;
    for (const auto& entry : entries)
        if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=')
            value = entry.substr(name.size() + 1);
    return value;
}

// One submission as job_submit/fairway decides it; false when refused.
bool submit_once(const presets::SitePresets& site, const presets::Submission& submission) {
    try {
        auto application = presets::apply_presets_to_submission(site, submission);
        if (application) presets::preset_record(*application);
        return true;
    } catch (const fairway::InputError&) {
        return false;
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: presets-core PRESETS_CONF PRESETS_DIR ACCOUNT [SPANK_JOB_ENV_ENTRY...]\n");
        return 2;
    }
    presets::SitePresetsCache cache(argv[1], argv[2]);
    const auto site = cache.current();
    if (!site->ok()) std::fprintf(stderr, "presets-core: site presets unusable: %s\n", site->load_error.c_str());
    const std::vector<std::string> entries(argv + 4, argv + argc);
    presets::Submission submission;
    submission.preset_option = entry_value(entries, presets::kSpankPresetOptionVar);
    submission.user_presets_encoded = entry_value(entries, presets::kUserPresetsVar);
    submission.account = argv[3];

    constexpr int kBatches = 15, kPerBatch = 40;
    bool accepted = submit_once(*site, submission);  // warm: first allocations
    std::vector<double> per_submission;
    for (int batch = 0; batch < kBatches; ++batch) {
        const double start = thread_cpu_us();
        for (int i = 0; i < kPerBatch; ++i) accepted = submit_once(*site, submission);
        per_submission.push_back((thread_cpu_us() - start) / kPerBatch);
    }
    std::nth_element(per_submission.begin(), per_submission.begin() + kBatches / 2, per_submission.end());
    std::printf("%.0f %s\n", per_submission[kBatches / 2], accepted ? "accepted" : "refused");
    return 0;
}
