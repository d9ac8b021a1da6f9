#include "priority/adapter.h"

#include <chrono>
#include <exception>

#include "common/error.h"
#include "priority/association_sync.h"
#include "priority/job_prioritizer.h"
#include "priority/list_walk.h"
#include "priority/usage_recovery.h"

namespace fairway::priority {
namespace {

constexpr const char* kThreadName = "fairway_prio";

// Multifactor's periodic reset would fight the window (usage already leaves it smoothly), so
// fairway does not apply it; say so, since an admin migrating from multifactor may rely on it.
void warn_if_reset_period_set() {
    if (slurm_conf.priority_reset_period != PRIORITY_RESET_NONE)
        info(
            "priority/fairway: warning: PriorityUsageResetPeriod is ignored: usage is forgotten as it "
            "leaves the window (PriorityParameters=window=...), not reset all at once");
}

// Settings that are valid but most likely not what was meant (fairshare::doubtful_settings).
void warn_if_doubtful(const Settings& settings) {
    for (const std::string& doubt : fairshare::doubtful_settings(settings.fairshare))
        info("priority/fairway: warning: %s", doubt.c_str());
}

}  // namespace

int Adapter::start() {
    Environment& env = state_.env;
    env.symbols = find_slurmctld_symbols();
    env.in_slurmctld = env.symbols.complete();
    env.client_dampening = slurm_conf.fs_dampening_factor ? slurm_conf.fs_dampening_factor : 1;
    if (!env.in_slurmctld) {
        debug("priority/fairway: loaded outside slurmctld: no thread, no state");
        return SLURM_SUCCESS;
    }
    std::shared_ptr<const Settings> settings;
    try {
        settings = std::make_shared<const Settings>(read_settings(slurm_conf, *env.symbols.tres_count));
    } catch (const InputError& e) {
        fatal("priority/fairway: invalid priority configuration: %s", e.what());
    }
    env.with_accounting = slurm_with_slurmdbd();
    if (!env.with_accounting)
        error(
            "priority/fairway: fair-share needs AccountingStorageType=accounting_storage/slurmdbd; "
            "the fair-share factor stays 0");
    {
        const auto usage = state_.usage.lock();
        usage->settings = settings;
        usage->last_pass = time(nullptr);
    }
    if (env.with_accounting) recover_saved_usage(*settings, time(nullptr));
    compat::site_factor_init();
    info("priority/fairway: loaded in slurmctld: %s", describe(*settings).c_str());
    warn_if_reset_period_set();
    warn_if_doubtful(*settings);
    return SLURM_SUCCESS;
}

void Adapter::start_thread() {
    if (!state_.env.in_slurmctld) return;
    thread_.start(
        kThreadName, [this] { pass_.run(); }, [this] { return state_.settings()->calc_period; });
}

void Adapter::stop() {
    if (!state_.env.in_slurmctld) return;
    thread_.stop();
    state_.save_state();
    compat::site_factor_fini();
}

void Adapter::recover_saved_usage(const Settings& settings, time_t now) {
    const fairshare::LedgerConfig config = settings.fairshare.ledger_config();
    const Seconds tolerance = 2 * settings.calc_period + Seconds{60};
    auto saved = load_saved_book(settings.state_file, config, now, tolerance);
    const fairshare::UsageResets resets = load_saved_resets(settings.resets_file);
    fairshare::ForgottenRuns forgotten = load_saved_forgotten_runs(settings.forgotten_runs_file);
    state_.env.started_at = now;
    const auto usage = state_.usage.lock();
    usage->saved_resets = resets;
    usage->saved_forgotten_runs = forgotten;
    usage->forgotten_runs = std::move(forgotten);
    if (saved) {
        usage->last_pass = saved->clock().time_since_epoch().count();
        info("priority/fairway: recovered the usage of %zu associations (%zu meters) from %s (saved at %ld)",
             saved->fair_share_usage().association_count(), saved->meter_count(), settings.state_file.c_str(),
             static_cast<long>(usage->last_pass));
        usage->book = std::move(saved);
        usage->book->adopt_resets(resets);
        usage->usage_known = true;
        usage->look_for_forgotten_runs_since = usage->last_pass;
        return;
    }
    usage->book.emplace(config);
    usage->book->adopt_resets(resets);
    usage->rebuild_pending = true;
}

// slurmctld asks with its job write lock held (set_job_prio), as the pass walks, so the job can be
// filed in the pass's age calendar: a job submitted or updated needs no walk over all jobs.
uint32_t Adapter::initial_priority(job_record_t* job) {
    if (!state_.env.in_slurmctld) return 1;
    site_factor_g_set(job);
    JobPrioritizer prioritizer(state_.settings(), state_.fair_share(), state_.env.symbols);
    JobSide& jobs = state_.jobs.write(JobWriteLocked::held_by_slurm());
    return prioritizer.initial(job, time(nullptr), &jobs.age_calendar);
}

void Adapter::reconfigure(bool) {
    if (!state_.env.in_slurmctld) return;
    std::shared_ptr<const Settings> fresh;
    try {
        fresh = std::make_shared<const Settings>(read_settings(slurm_conf, *state_.env.symbols.tres_count));
    } catch (const InputError& e) {
        error("priority/fairway: invalid priority configuration, keeping the previous one: %s", e.what());
        return;
    }
    const auto usage = state_.usage.lock();
    const bool ledger_changed =
        !(fresh->fairshare.ledger_config().validated() == usage->settings->fairshare.ledger_config().validated());
    if (ledger_changed && state_.env.with_accounting) {
        info("priority/fairway: window, bucket or half-life changed; usage will be rebuilt from accounting");
        usage->rebuild_pending = true;
    }
    usage->settings = fresh;
    info("priority/fairway: reconfigured: %s", describe(*fresh).c_str());
    warn_if_doubtful(*fresh);
}

void Adapter::refresh_assoc_usage(slurmdb_assoc_rec_t* assoc) {
    // Slurm asks when an association's effective usage is unset (NO_VAL), e.g. one created since
    // the last pass: give it what the last pass computed, or no usage.
    if (!state_.env.in_slurmctld || !assoc || !assoc->usage) return;
    auto fair_share = state_.fair_share();
    const fairshare::ShareFigures* figures = fair_share ? fair_share->find(assoc->id) : nullptr;
    assoc->usage->usage_norm = figures ? figures->norm_usage.value_or(0.0) : 0.0L;
    assoc->usage->usage_efctv = figures ? figures->effective_usage : 0.0L;
}

double Adapter::classic_fs_factor(long double usage_efctv, long double shares_norm) {
    if (fuzzy_equal(usage_efctv, NO_VAL)) return 0.0;
    uint16_t dampening = state_.env.client_dampening;
    if (state_.env.in_slurmctld) dampening = state_.settings()->fair_share.dampening;
    return fairshare::classic_fs_factor(usage_efctv, shares_norm, dampening);
}

// Slurm holds the job write lock here (and calls this only with AccountingStorageEnforce=limits).
void Adapter::job_ended(job_record_t* job) {
    const Environment& env = state_.env;
    if (!env.in_slurmctld) return;
    const time_t last_pass = state_.usage.lock()->last_pass;
    std::optional<UsageCharge> charge;
    {
        AssocMgrLock locks({.assoc = WRITE_LOCK, .qos = WRITE_LOCK, .tres = READ_LOCK});
        release_reserved_run_seconds(job, *env.symbols.tres_count);
        JobSide& jobs = state_.jobs.write(JobWriteLocked::held_by_slurm());
        if (env.with_accounting) charge = jobs.charges.final_charge(job, time(nullptr), last_pass, env.symbols);
    }
    if (!charge) return;
    const auto usage = state_.usage.lock();
    if (!usage->book) return;
    try {
        usage->book->charge_span(charge->owners, charge->rates, charge->span.from, charge->span.to);
        usage->book_changed = true;
    } catch (const InputError& e) {
        error("priority/fairway: final usage of %pJ not charged: %s", job, e.what());
    }
}

}  // namespace fairway::priority
