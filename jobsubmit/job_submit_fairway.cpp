// job_submit/fairway: applies fairway presets to job descriptors inside slurmctld.
// Only Slurm's entry points and the plugin's one context live here; every entry point catches
// everything, because an exception escaping into slurmctld would take the controller down.
#include <cctype>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "jobsubmit/job_desc_io.h"
#include "presets/carried.h"
#include "presets/submission.h"

#include "jobsubmit/slurm_compat.h"

namespace {

namespace presets = fairway::presets;

// The plugin's one context: where the site's presets are, and their cached snapshot.
struct PluginContext {
    std::string config_path;
    std::string default_presets_dir;
    std::unique_ptr<presets::SitePresetsCache> cache;
};
PluginContext* context = nullptr;

const char* const kLogPrefix = "job_submit/fairway";

std::string slurm_conf_path() { return slurm_conf.slurm_conf ? slurm_conf.slurm_conf : "/etc/slurm/slurm.conf"; }

// presets.conf: $FAIRWAY_PRESETS_CONF, else next to slurm.conf. The presets directory defaults to
// the one named on the SPANK plugin's plugstack.conf line, so a site names it once.
std::unique_ptr<PluginContext> make_context() {
    auto made = std::make_unique<PluginContext>();
    const char* override_path = std::getenv("FAIRWAY_PRESETS_CONF");
    made->config_path =
        override_path && *override_path ? override_path : presets::site_config_path_for(slurm_conf_path());
    std::string plugstack = slurm_conf.plugstack
                                ? slurm_conf.plugstack
                                : slurm_conf_path().substr(0, slurm_conf_path().rfind('/') + 1) + "plugstack.conf";
    made->default_presets_dir =
        presets::presets_dir_from_plugstack_file(plugstack).value_or(presets::kDefaultPresetsDir);
    made->cache = std::make_unique<presets::SitePresetsCache>(made->config_path, made->default_presets_dir);
    return made;
}

void log_site(const presets::SitePresets& site) {
    if (site.ok())
        info("%s: %zu presets from %s (config %s)", kLogPrefix, site.catalog.presets().size(),
             site.config.presets_dir.c_str(), context->config_path.c_str());
    else error("%s: site presets unusable: %s", kLogPrefix, site.load_error.c_str());
}

// The job's account, lowercased as slurmctld will store it; the user's default when none is given.
std::string account_of(const job_desc_msg_t& desc) {
    std::string account;
    if (desc.account && desc.account[0]) {
        account = desc.account;
    } else {
        slurmdb_user_rec_t user = {};
        user.uid = desc.user_id;
        if (assoc_mgr_fill_in_user(acct_db_conn, &user, accounting_enforce, nullptr, false) == SLURM_SUCCESS &&
            user.default_acct)
            account = user.default_acct;
    }
    for (auto& c : account) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return account;
}

int apply_presets(job_desc_msg_t& desc, uint32_t submit_uid) {
    const auto reloads = context->cache->load_count();
    auto site = context->cache->current();
    if (context->cache->load_count() != reloads) log_site(*site);

    presets::Submission submission;
    submission.job = fairway::jobsubmit::read_job_request(desc);
    submission.preset_option = fairway::jobsubmit::spank_env_value(desc, presets::kSpankPresetOptionVar);
    submission.user_presets_encoded = fairway::jobsubmit::spank_env_value(desc, presets::kUserPresetsVar);
    submission.account = account_of(desc);

    auto application = presets::apply_presets_to_submission(*site, submission);
    // Before anything is written: preset_record refuses names that would forge a record, an
    // accounting row or a log line, and the same list goes into the environment and the log.
    const auto record = application ? std::optional(presets::preset_record(*application)) : std::nullopt;
    // Only this plugin may say what was applied; drop anything the client put there. Tasks never
    // see spank_job_env (only prolog/epilog do), so batch jobs also get it in their environment,
    // empty when nothing applies: then their steps need not look for account defaults in
    // presets.conf on every node (the SPANK plugin does only when a step has no record).
    const auto applied = application ? std::optional(application->applied) : std::nullopt;
    fairway::jobsubmit::set_spank_env(desc, presets::kAppliedPresetsVar, applied);
    fairway::jobsubmit::set_batch_env(desc, presets::kAppliedPresetsBatchVar, applied.value_or(""));
    // The steps' resolution too, so that the batch step and the sruns inside read no preset file.
    fairway::jobsubmit::set_batch_env(desc, presets::kStepPresetsBatchVar,
                                      application ? application->step_presets : std::nullopt);
    if (!application) return SLURM_SUCCESS;
    fairway::jobsubmit::write_job_request(desc, submission.job, application->request);
    fairway::jobsubmit::append_admin_comment(desc, *record);
    verbose("%s: uid %u: applied presets %s from %s", kLogPrefix, submit_uid, application->applied.c_str(),
            application->source.c_str());
    return SLURM_SUCCESS;
}

int reject(char** err_msg, const std::string& message) {
    if (err_msg) {
        xfree(*err_msg);
        *err_msg = xstrdup(("fairway: " + message).c_str());
    }
    return SLURM_ERROR;
}

}  // namespace

extern "C" {

extern const char plugin_name[] = "fairway presets job_submit plugin";
extern const char plugin_type[] = "job_submit/fairway";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void) {
    try {
        context = make_context().release();
        info("%s: loaded; presets config %s, default presets dir %s", kLogPrefix, context->config_path.c_str(),
             context->default_presets_dir.c_str());
        log_site(*context->cache->current());
        return SLURM_SUCCESS;
    } catch (const std::exception& e) {
        error("%s: init failed: %s", kLogPrefix, e.what());
    } catch (...) {
        error("%s: init failed", kLogPrefix);
    }
    return SLURM_ERROR;
}

void fini(void) {
    delete context;
    context = nullptr;
}

int job_submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg) {
    if (!job_desc || !context) return SLURM_SUCCESS;
    try {
        return apply_presets(*job_desc, submit_uid);
    } catch (const fairway::InputError& e) {
        verbose("%s: uid %u: rejected: %s", kLogPrefix, submit_uid, e.what());
        return reject(err_msg, e.what());
    } catch (const std::exception& e) {
        error("%s: uid %u: internal error: %s", kLogPrefix, submit_uid, e.what());
        return reject(err_msg, std::string("internal error applying presets: ") + e.what());
    } catch (...) {
        error("%s: uid %u: internal error", kLogPrefix, submit_uid);
        return reject(err_msg, "internal error applying presets");
    }
}

// Presets apply when a job is submitted; `scontrol update` changes what the admin or user asks for.
#if FAIRWAY_JOB_MODIFY_HAS_ERR_MSG
int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid, char** err_msg) {
    (void)err_msg;
#else
int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid) {
#endif
    (void)job_desc;
    (void)job_ptr;
    (void)submit_uid;
    return SLURM_SUCCESS;
}

}  // extern "C"
