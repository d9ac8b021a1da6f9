// Reading the presets directory from the SPANK plugin's plugstack.conf line, so that a site names
// it once and job_submit/fairway agrees with the SPANK plugin; and where
// presets.conf lives. No YAML here: the SPANK plugin's slurmstepd side links this file.
#include <glob.h>

#include <sstream>

#include "presets/loader.h"
#include "presets/trusted_file.h"

namespace fairway::presets {
namespace {

constexpr std::size_t kMaxPlugstackBytes = 256 * 1024;
constexpr std::string_view kPluginFile = "spank_fairway.so";
constexpr std::string_view kDirArgument = "presets_dir=";

std::vector<std::string> words_of(const std::string& line) {
    std::istringstream in(line.substr(0, line.find('#')));
    std::vector<std::string> words;
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

bool names_fairway_plugin(const std::string& path) {
    return path == kPluginFile || path.ends_with("/" + std::string(kPluginFile));
}

std::optional<std::string> read_optional(const std::string& path) {
    try {
        return read_trusted_file(path, kMaxPlugstackBytes, false);
    } catch (const InputError&) {
        return std::nullopt;
    }
}

std::vector<std::string> expand_glob(const std::string& pattern) {
    std::vector<std::string> paths;
    glob_t found{};
    if (::glob(pattern.c_str(), 0, nullptr, &found) == 0)
        for (std::size_t i = 0; i < found.gl_pathc && i < 256; ++i) paths.emplace_back(found.gl_pathv[i]);
    ::globfree(&found);
    return paths;
}

}  // namespace

std::optional<std::string> presets_dir_from_plugstack(std::string_view plugstack_text) {
    std::istringstream in{std::string(plugstack_text)};
    for (std::string line; std::getline(in, line);) {
        auto words = words_of(line);
        if (words.size() < 2 || (words[0] != "optional" && words[0] != "required")) continue;
        if (!names_fairway_plugin(words[1])) continue;
        for (std::size_t i = 2; i < words.size(); ++i)
            if (words[i].starts_with(kDirArgument)) return words[i].substr(kDirArgument.size());
    }
    return std::nullopt;
}

std::optional<std::string> presets_dir_from_plugstack_file(const std::string& path) {
    auto text = read_optional(path);
    if (!text) return std::nullopt;
    if (auto dir = presets_dir_from_plugstack(*text)) return dir;
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
        auto words = words_of(line);
        if (words.size() != 2 || words[0] != "include") continue;
        for (const auto& included : expand_glob(words[1]))
            if (auto nested = read_optional(included))
                if (auto dir = presets_dir_from_plugstack(*nested)) return dir;
    }
    return std::nullopt;
}

std::string site_config_path_for(std::string_view slurm_conf_path) {
    auto slash = slurm_conf_path.rfind('/');
    std::string dir = slash == std::string_view::npos ? "." : std::string(slurm_conf_path.substr(0, slash));
    return (dir.empty() ? "" : dir) + "/fairway/presets.conf";
}

}  // namespace fairway::presets
