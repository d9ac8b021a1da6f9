#include "spank/yaml_module.h"

#include "spank/yaml_module_api.h"

#include "binding/site_access.h"
#include "binding/text.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>

namespace fairway::spank {
namespace {

struct YamlModule {
    fairway_yaml_client_check_fn* client_check;
    fairway_yaml_step_presets_fn* step_presets;
    fairway_yaml_site_fn* site;
    fairway_yaml_account_presets_fn* account_presets;
};

std::string own_directory() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || !info.dli_fname)
        throw std::runtime_error("cannot tell where spank_fairway.so was loaded from");
    std::string path = info.dli_fname;
    auto slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

template <typename Function>
Function* symbol(void* handle, const char* name) {
    void* found = dlsym(handle, name);
    if (!found) throw std::runtime_error(std::string(kYamlModuleFile) + " does not define " + name);
    return reinterpret_cast<Function*>(found);
}

// Loaded once per process and never unloaded (a step or command ends soon after).
const YamlModule& yaml_module() {
    static std::optional<YamlModule> loaded;
    if (loaded) return *loaded;
    std::string path = own_directory() + "/" + kYamlModuleFile;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error("cannot load " + path + ": " + dlerror());
    loaded = YamlModule{symbol<fairway_yaml_client_check_fn>(handle, kYamlClientCheck),
                        symbol<fairway_yaml_step_presets_fn>(handle, kYamlStepPresets),
                        symbol<fairway_yaml_site_fn>(handle, kYamlSite),
                        symbol<fairway_yaml_account_presets_fn>(handle, kYamlAccountPresets)};
    return *loaded;
}

// A C string the module malloc'ed, freed here.
class ModuleString {
public:
    ModuleString() = default;
    ModuleString(const ModuleString&) = delete;
    ModuleString& operator=(const ModuleString&) = delete;
    ~ModuleString() { std::free(text_); }
    char** out() { return &text_; }
    std::optional<std::string> value() const { return text_ ? std::optional<std::string>(text_) : std::nullopt; }

private:
    char* text_ = nullptr;
};

// The plugstack.conf arguments as the C interface takes them.
class Argv {
public:
    explicit Argv(const std::vector<std::string>& args) {
        for (const auto& arg : args) pointers_.push_back(arg.c_str());
    }
    int argc() const { return static_cast<int>(pointers_.size()); }
    const char* const* argv() const { return pointers_.data(); }

private:
    std::vector<const char*> pointers_;
};

const char* c_str_or_null(const std::optional<std::string>& text) { return text ? text->c_str() : nullptr; }

void check(int rc, const ModuleString& error) {
    if (rc != 0) throw std::runtime_error(error.value().value_or("failed without saying why"));
}

}  // namespace

CarriedRequest yaml_client_check(const std::vector<std::string>& plugin_args,
                                 const std::optional<std::string>& preset_option,
                                 const std::optional<std::string>& gpu_policy_option) {
    Argv args(plugin_args);
    ModuleString user_presets, step_presets, error;
    check(yaml_module().client_check(args.argc(), args.argv(), c_str_or_null(preset_option),
                                     c_str_or_null(gpu_policy_option), user_presets.out(), step_presets.out(),
                                     error.out()),
          error);
    return {user_presets.value(), step_presets.value()};
}

std::string yaml_step_presets(const std::vector<std::string>& plugin_args, const std::string& preset_list,
                              const std::optional<std::string>& user_presets) {
    Argv args(plugin_args);
    ModuleString step_presets, error;
    check(yaml_module().step_presets(args.argc(), args.argv(), preset_list.c_str(), c_str_or_null(user_presets),
                                     step_presets.out(), error.out()),
          error);
    return step_presets.value().value_or("");
}

SiteFacts yaml_site(const std::vector<std::string>& plugin_args, const std::optional<std::string>& account) {
    Argv args(plugin_args);
    ModuleString allow_env, account_default, error;
    check(yaml_module().site(args.argc(), args.argv(), c_str_or_null(account), allow_env.out(), account_default.out(),
                             error.out()),
          error);
    return {binding::split(allow_env.value().value_or(""), ','), account_default.value()};
}

std::optional<std::string> yaml_account_presets(const std::vector<std::string>& plugin_args,
                                                const std::string& account) {
    Argv args(plugin_args);
    ModuleString step_presets, error;
    check(yaml_module().account_presets(args.argc(), args.argv(), account.c_str(), step_presets.out(), error.out()),
          error);
    return step_presets.value();
}

bool site_config_exists(const binding::PluginConfig& config) {
    // In slurmstepd the environment is slurmd's, as job_submit/fairway's is slurmctld's; in srun it
    // is the user's, who can steer only what srun carries, which slurmstepd checks.
    auto path = binding::site_config_path(config, std::getenv("FAIRWAY_PRESETS_CONF"), std::getenv("SLURM_CONF"));
    // stat, with the effective uid (the job user's in a step), not access() with the real one (root's
    // there): and a mode that would hide the file from the user is refused by name, not left to EACCES.
    return binding::check_readable_by_users(path, binding::SiteEntry::file);
}

}  // namespace fairway::spank
