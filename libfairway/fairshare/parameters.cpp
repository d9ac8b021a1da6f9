#include "fairshare/parameters.h"

#include <cctype>
#include <set>

#include "common/error.h"

namespace fairway::fairshare {
namespace {

[[noreturn]] void reject(const std::string& key, const std::string& problem) {
    throw InputError(SourceLocation{"", 0, key}, problem);
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

std::string lower(std::string_view text) {
    std::string result(text);
    for (char& c : result) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return result;
}

void apply(FairshareParameters& params, const std::string& key, std::string_view value) {
    if (key == "window") {
        const auto window = parse_slurm_duration_or_infinite(value);
        if (!window || window->count() == 0)
            reject(key, "'" + std::string(value) + "' is not a positive Slurm time (e.g. 14-0) or 'infinite'");
        params.window = *window;
    } else if (key == "bucket") {
        const auto bucket = parse_slurm_duration(value);
        if (!bucket || bucket->count() == 0)
            reject(key, "'" + std::string(value) + "' is not a positive Slurm time (e.g. 2:00:00)");
        params.bucket = *bucket;
    } else {
        reject(key, "unknown PriorityParameters key (fairway knows: window, bucket, " + std::string(kCalcPeriodKey) +
                        ", " + std::string(kWalkShortcutsKey) + ")");
    }
}

}  // namespace

LedgerConfig FairshareParameters::ledger_config() const { return LedgerConfig{window, half_life, bucket}.validated(); }

std::string FairshareParameters::describe() const {
    const LedgerConfig config = ledger_config();
    return "window=" + format_slurm_duration(config.window) + ",bucket=" + format_slurm_duration(config.bucket);
}

FairshareParameters parse_fairshare_parameters(std::string_view text, Seconds half_life) {
    FairshareParameters params;
    params.half_life = half_life;
    std::set<std::string> seen;
    std::size_t start = 0;
    while (start <= text.size() && !trim(text.substr(start)).empty()) {
        const auto comma = text.find(',', start);
        const auto item = trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
        start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
        if (item.empty()) continue;
        const auto equals = item.find('=');
        if (equals == std::string_view::npos)
            reject(lower(item), "expected key=value in PriorityParameters, got '" + std::string(item) + "'");
        const std::string key = lower(trim(item.substr(0, equals)));
        if (key.empty()) reject("PriorityParameters", "missing key before '=' in '" + std::string(item) + "'");
        if (!seen.insert(key).second) reject(key, "given twice");
        apply(params, key, trim(item.substr(equals + 1)));
    }
    params.ledger_config();  // validates window, bucket and half-life together
    return params;
}

SplitPriorityParameters split_priority_parameters(std::string_view text) {
    SplitPriorityParameters split;
    auto value_of = [](std::string_view item, std::string_view key) -> std::optional<std::string> {
        if (item.size() <= key.size() || item.substr(0, key.size()) != key || item[key.size()] != '=')
            return std::nullopt;
        return std::string(item.substr(key.size() + 1));
    };
    std::string_view rest = text;
    while (!rest.empty()) {
        const size_t comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (auto value = value_of(item, kCalcPeriodKey)) split.calc_period = std::move(value);
        else if (auto value = value_of(item, kWalkShortcutsKey)) split.walk_shortcuts = std::move(value);
        else split.fair_share += (split.fair_share.empty() ? "" : ",") + std::string(item);
    }
    return split;
}

FairshareParameters fairshare_part_of(std::string_view priority_parameters, Seconds half_life) {
    return parse_fairshare_parameters(split_priority_parameters(priority_parameters).fair_share, half_life);
}

std::vector<std::string> doubtful_settings(const FairshareParameters& params) {
    std::vector<std::string> doubts;
    const LedgerConfig config = params.ledger_config();
    if (config.window == kInfiniteWindow) return doubts;
    const std::string window = format_slurm_duration(config.window);
    if (config.half_life.count() > 0 && config.half_life >= config.window)
        doubts.push_back("PriorityDecayHalfLife " + format_slurm_duration(config.half_life) +
                         " is not shorter than the window " + window +
                         ": usage loses at most half its weight before it leaves the window, so the decay does "
                         "almost nothing (a half-life well below the window, or 0 for none, is what is usually meant)");
    if (config.window > kLongestLikelyWindow)
        doubts.push_back("the window " + window + " is longer than " + format_slurm_duration(kLongestLikelyWindow) +
                         ": usage that old still counts (days written for minutes?)");
    return doubts;
}

}  // namespace fairway::fairshare
