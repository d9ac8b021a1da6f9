#include "priority/settings.h"

#include <sstream>
#include <utility>

#include "common/error.h"
#include "common/slurm_time.h"

namespace fairway::priority {
namespace {

// Where every configuration error comes from; the log lines say the rest.
constexpr const char* kConfigFile = "slurm.conf";

Seconds parse_calc_period(std::string_view text) {
    auto value = parse_slurm_duration(text);
    if (!value || value->count() < 1)
        throw InputError({kConfigFile, 0, std::string(fairshare::kCalcPeriodKey)},
                         "must be a Slurm duration of at least 1 second, e.g. 0:10 for 10 s");
    return *value;
}

bool parse_yes_no(std::string_view text, std::string_view key) {
    if (text == "yes") return true;
    if (text == "no") return false;
    throw InputError({kConfigFile, 0, std::string(key)}, "must be yes or no, not '" + std::string(text) + "'");
}

// The core's PriorityParameters, validated (window against bucket and half-life); its errors name
// the key and, like the adapter's own, slurm.conf.
fairshare::FairshareParameters fairshare_parameters(std::string_view text, Seconds half_life) {
    try {
        fairshare::FairshareParameters parameters = fairshare::parse_fairshare_parameters(text, half_life);
        parameters.ledger_config();
        return parameters;
    } catch (const InputError& e) {
        throw InputError({kConfigFile, 0, e.where().key}, e.problem());
    }
}

fairshare::PriorityWeights read_weights(const slurm_conf_t& conf, int tres_count) {
    fairshare::PriorityWeights weights;
    weights.age = conf.priority_weight_age;
    weights.assoc = conf.priority_weight_assoc;
    weights.fairshare = conf.priority_weight_fs;
    weights.job_size = conf.priority_weight_js;
    weights.partition = conf.priority_weight_part;
    weights.qos = conf.priority_weight_qos;
    if (conf.priority_weight_tres && *conf.priority_weight_tres && tres_count > 0) {
        double* array = slurm_get_tres_weight_array(conf.priority_weight_tres, tres_count, false);
        if (!array)
            throw InputError({kConfigFile, 0, "PriorityWeightTRES"},
                             std::string("cannot parse '") + conf.priority_weight_tres + "'");
        weights.tres.assign(array, array + tres_count);
        xfree(array);
    }
    return weights;
}

fairshare::PriorityConfig read_priority_config(const slurm_conf_t& conf, int tres_count) {
    fairshare::PriorityConfig config;
    config.weights = read_weights(conf, tres_count);
    config.max_age = Seconds{conf.priority_max_age};
    config.favor_small = conf.priority_favor_small != 0;
    const uint16_t flags = conf.priority_flags;
    config.flags.small_relative_to_time = flags & PRIORITY_FLAGS_SIZE_RELATIVE;
    config.flags.no_normal_assoc = flags & PRIORITY_FLAGS_NO_NORMAL_ASSOC;
    config.flags.no_normal_partition = flags & PRIORITY_FLAGS_NO_NORMAL_PART;
    config.flags.no_normal_qos = flags & PRIORITY_FLAGS_NO_NORMAL_QOS;
    config.flags.no_normal_tres = flags & PRIORITY_FLAGS_NO_NORMAL_TRES;
    return config;
}

}  // namespace

Settings read_settings(const slurm_conf_t& conf, int tres_count) {
    Settings settings;
    const fairshare::SplitPriorityParameters split =
        fairshare::split_priority_parameters(conf.priority_params ? conf.priority_params : "");
    settings.fairshare = fairshare_parameters(split.fair_share, Seconds{conf.priority_decay_hl});
    settings.fair_share =
        fairshare::fair_share_options(conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE,
                                      conf.priority_flags & PRIORITY_FLAGS_DEPTH_OBLIVIOUS, conf.fs_dampening_factor);
    settings.priority = read_priority_config(conf, tres_count);
    settings.calc_period =
        split.calc_period ? parse_calc_period(*split.calc_period) : Seconds{conf.priority_calc_period};
    if (settings.calc_period.count() < 1) settings.calc_period = Seconds{60};
    settings.accrue_always = conf.priority_flags & PRIORITY_FLAGS_ACCRUE_ALWAYS;
    settings.calculate_running = conf.priority_flags & PRIORITY_FLAGS_CALCULATE_RUNNING;
    settings.incr_only = conf.priority_flags & PRIORITY_FLAGS_INCR_ONLY;
    settings.walk_shortcuts = split.walk_shortcuts ? parse_yes_no(*split.walk_shortcuts, fairshare::kWalkShortcutsKey)
                                                   : compat::kWalkShortcutsEstablished;
    if (conf.state_save_location) {
        settings.state_file = std::string(conf.state_save_location) + "/" + kStateFileName;
        settings.resets_file = std::string(conf.state_save_location) + "/" + kResetsFileName;
        settings.forgotten_runs_file = std::string(conf.state_save_location) + "/" + kForgottenRunsFileName;
    }
    return settings;
}

std::string describe(const Settings& settings) {
    std::ostringstream text;
    text << settings.fairshare.describe() << " half_life=" << format_slurm_duration(settings.fairshare.half_life)
         << " calc_period=" << settings.calc_period.count() << "s " << fairshare::algorithm_name(settings.fair_share)
         << " dampening=" << settings.fair_share.dampening
         << " walk_shortcuts=" << (settings.walk_shortcuts ? "yes" : "no");
    return text.str();
}

}  // namespace fairway::priority
