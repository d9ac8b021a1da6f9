#include "priority/adapter.h"

#include <chrono>
#include <exception>

#include "common/error.h"
#include "priority/association_sync.h"
#include "priority/job_prioritizer.h"
#include "priority/usage_recovery.h"

namespace fairway::priority {
namespace {

constexpr const char* kThreadName = "fairway_prio";

fairshare::TimePoint time_point(time_t t) { return fairshare::TimePoint{Seconds{t}}; }

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
    symbols_ = find_slurmctld_symbols();
    in_slurmctld_ = symbols_.complete();
    client_dampening_ = slurm_conf.fs_dampening_factor ? slurm_conf.fs_dampening_factor : 1;
    if (!in_slurmctld_) {
        debug("priority/fairway: loaded outside slurmctld: no thread, no state");
        return SLURM_SUCCESS;
    }
    std::shared_ptr<const Settings> settings;
    try {
        settings = std::make_shared<const Settings>(read_settings(slurm_conf, *symbols_.tres_count));
    } catch (const InputError& e) {
        fatal("priority/fairway: invalid priority configuration: %s", e.what());
    }
    with_accounting_ = slurm_with_slurmdbd();
    if (!with_accounting_)
        error(
            "priority/fairway: fair-share needs AccountingStorageType=accounting_storage/slurmdbd; "
            "the fair-share factor stays 0");
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        settings_ = settings;
        last_pass_ = time(nullptr);
    }
    if (with_accounting_) recover_saved_usage(*settings, time(nullptr));
    compat::site_factor_init();
    info("priority/fairway: loaded in slurmctld: %s", describe(*settings).c_str());
    warn_if_reset_period_set();
    warn_if_doubtful(*settings);
    return SLURM_SUCCESS;
}

void Adapter::start_thread() {
    if (!in_slurmctld_) return;
    thread_.start(
        kThreadName, [this] { run_pass(); }, [this] { return current_settings()->calc_period; });
}

void Adapter::stop() {
    if (!in_slurmctld_) return;
    thread_.stop();
    save_state();
    compat::site_factor_fini();
}

std::shared_ptr<const Settings> Adapter::current_settings() {
    std::lock_guard<std::mutex> lock(state_mutex_);
    return settings_;
}

std::shared_ptr<const fairshare::FairShareResult> Adapter::current_fair_share() {
    std::lock_guard<std::mutex> lock(state_mutex_);
    return fair_share_;
}

void Adapter::recover_saved_usage(const Settings& settings, time_t now) {
    const fairshare::LedgerConfig config = settings.fairshare.ledger_config();
    const Seconds tolerance = 2 * settings.calc_period + Seconds{60};
    auto saved = load_saved_book(settings.state_file, config, now, tolerance);
    const fairshare::UsageResets resets = load_saved_resets(settings.resets_file);
    started_at_ = now;
    std::lock_guard<std::mutex> lock(state_mutex_);
    saved_resets_ = resets;
    if (saved) {
        last_pass_ = saved->clock().time_since_epoch().count();
        info("priority/fairway: recovered the usage of %zu associations (%zu meters) from %s (saved at %ld)",
             saved->fair_share_usage().association_count(), saved->meter_count(), settings.state_file.c_str(),
             static_cast<long>(last_pass_));
        book_ = std::move(saved);
        book_->adopt_resets(resets);
        usage_known_ = true;
        look_for_forgotten_runs_since_ = last_pass_;
        return;
    }
    book_.emplace(config);
    book_->adopt_resets(resets);
    rebuild_pending_ = true;
}

PartitionQos Adapter::partition_qos_ids() {
    PartitionQos ids;
    SlurmctldLock partitions(symbols_, {.part = READ_LOCK});
    AssocMgrLock qos({.qos = READ_LOCK});
    list_itr_t* it = list_iterator_create(*symbols_.part_list);
    while (auto* partition = static_cast<part_record_t*>(list_next(it)))
        if (partition->name && partition->qos_ptr) ids.emplace(partition->name, partition->qos_ptr->id);
    list_iterator_destroy(it);
    return ids;
}

// A rebuild made while slurmctld still had starts or ends queued for slurmdbd lacks them
// (fairshare/recorded_runs.h); it is made again once the queue has drained.
void Adapter::rebuild_if_needed(const Settings& settings, time_t complete_until, time_t now) {
    charge_forgotten_runs(settings, complete_until, now);
    const bool complete = !fairshare::rebuild_is_provisional(time_point(complete_until), time_point(now));
    fairshare::UsageResets resets;
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        if (!rebuild_pending_ && !(rebuilt_provisionally_ && complete)) return;
        if (book_) resets = book_->resets();  // recorded by this thread only: none come in between
    }
    const fairshare::LedgerConfig config = settings.fairshare.ledger_config();
    auto rebuilt =
        usage_from_accounting(symbols_, config, now, complete_until, started_at_, partition_qos_ids(), resets);
    if (!rebuilt) return;  // logged; tried again next pass
    last_walk_.reset();    // the next pass charges from the whole job list, not the last walk's jobs
    std::lock_guard<std::mutex> lock(state_mutex_);
    rebuilt_provisionally_ = !complete;
    info("priority/fairway: usage rebuilt from accounting: %zu associations, %zu meters%s",
         rebuilt->book.fair_share_usage().association_count(), rebuilt->book.meter_count(),
         complete ? ""
                  : "; slurmctld still has records queued for slurmdbd, so it is rebuilt again once they are stored");
    book_ = std::move(rebuilt->book);
    book_changed_ = true;
    last_pass_ = now;
    rebuilt_ = std::move(rebuilt->coverage);
    rebuild_pending_ = false;
    usage_known_ = true;
}

// After recovering a saved state: jobs slurmctld forgot (it could not save its own state either,
// then was killed) ran after the save, and what the passes charged of them was lost with them.
// Their ends may still be on their way to slurmdbd (queued by the killed slurmctld and saved with
// its queue), so they are looked for once, when nothing was queued at some pass since this
// slurmctld started; a record still open then is charged up to that start (recorded_runs.h).
void Adapter::charge_forgotten_runs(const Settings& settings, time_t complete_until, time_t now) {
    std::optional<time_t> since;
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        since = look_for_forgotten_runs_since_;
    }
    if (!since || complete_until < started_at_) return;
    const auto charges = charges_of_forgotten_runs(symbols_, settings.fairshare.ledger_config(), *since, now,
                                                   complete_until, started_at_, partition_qos_ids());
    if (!charges) return;  // logged; tried again next pass
    std::lock_guard<std::mutex> lock(state_mutex_);
    look_for_forgotten_runs_since_.reset();
    if (!book_ || charges->empty()) return;
    for (const UsageCharge& charge : *charges) {
        try {
            book_->charge_span(charge.owners, charge.rates, charge.span.from, charge.span.to);
        } catch (const InputError& e) {
            error("priority/fairway: usage of association %u not charged: %s", charge.owners.association, e.what());
        }
    }
    book_changed_ = true;
    info(
        "priority/fairway: charged %zu job runs that accounting recorded after the saved usage (%ld) and slurmctld "
        "does not know",
        charges->size(), static_cast<long>(*since));
}

}  // namespace fairway::priority

namespace fairway::priority {

// No usable state file was found, and accounting has not answered yet: the book is empty, not
// a picture of the usage. (Without accounting there is no usage to know.)
bool Adapter::usage_unknown() {
    std::lock_guard<std::mutex> lock(state_mutex_);
    return with_accounting_ && !usage_known_;
}

// The resets are written first, when they changed: a crash between the two writes leaves a saved
// book older than a reset, which forgets the usage on loading (UsageBook::adopt_resets).
void Adapter::save_state() {
    std::string path, bytes, resets_path;
    std::optional<fairshare::UsageResets> resets;
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        // A provisional book is not saved: a restart before it is made again rebuilds instead.
        if (!book_ || !settings_ || settings_->state_file.empty() || rebuild_pending_ || rebuilt_provisionally_) return;
        path = settings_->state_file;
        bytes = book_->serialize();
        if (!(book_->resets() == saved_resets_)) resets = book_->resets();
        resets_path = settings_->resets_file;
        book_changed_ = false;
    }
    const bool saved = (!resets || save_usage_state(resets_path, resets->serialize())) && save_usage_state(path, bytes);
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (saved && resets) saved_resets_ = std::move(*resets);
    if (!saved) book_changed_ = true;
}

// slurmctld asks with its job write lock held (set_job_prio), as the pass walks, so the job can be
// filed in the pass's age calendar: a job submitted or updated needs no walk over all jobs.
uint32_t Adapter::initial_priority(job_record_t* job) {
    if (!in_slurmctld_) return 1;
    site_factor_g_set(job);
    JobPrioritizer prioritizer(current_settings(), current_fair_share(), symbols_);
    return prioritizer.initial(job, time(nullptr), &age_calendar_);
}

void Adapter::reconfigure(bool) {
    if (!in_slurmctld_) return;
    std::shared_ptr<const Settings> fresh;
    try {
        fresh = std::make_shared<const Settings>(read_settings(slurm_conf, *symbols_.tres_count));
    } catch (const InputError& e) {
        error("priority/fairway: invalid priority configuration, keeping the previous one: %s", e.what());
        return;
    }
    std::lock_guard<std::mutex> lock(state_mutex_);
    const bool ledger_changed =
        !(fresh->fairshare.ledger_config().validated() == settings_->fairshare.ledger_config().validated());
    if (ledger_changed && with_accounting_) {
        info("priority/fairway: window, bucket or half-life changed; usage will be rebuilt from accounting");
        rebuild_pending_ = true;
    }
    settings_ = fresh;
    info("priority/fairway: reconfigured: %s", describe(*fresh).c_str());
    warn_if_doubtful(*fresh);
}

void Adapter::refresh_assoc_usage(slurmdb_assoc_rec_t* assoc) {
    // Slurm asks when an association's effective usage is unset (NO_VAL), e.g. one created since
    // the last pass: give it what the last pass computed, or no usage.
    if (!in_slurmctld_ || !assoc || !assoc->usage) return;
    auto fair_share = current_fair_share();
    const fairshare::ShareFigures* figures = fair_share ? fair_share->find(assoc->id) : nullptr;
    assoc->usage->usage_norm = figures ? figures->norm_usage.value_or(0.0) : 0.0L;
    assoc->usage->usage_efctv = figures ? figures->effective_usage : 0.0L;
}

double Adapter::classic_fs_factor(long double usage_efctv, long double shares_norm) {
    if (fuzzy_equal(usage_efctv, NO_VAL)) return 0.0;
    uint16_t dampening = client_dampening_;
    if (in_slurmctld_) dampening = current_settings()->fair_share.dampening;
    return fairshare::classic_fs_factor(usage_efctv, shares_norm, dampening);
}

void Adapter::job_ended(job_record_t* job) {
    // Slurm holds the job write lock here (and calls this only with AccountingStorageEnforce=limits).
    if (!in_slurmctld_) return;
    time_t last_pass;
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        last_pass = last_pass_;
    }
    std::optional<UsageCharge> charge;
    {
        AssocMgrLock locks({.assoc = WRITE_LOCK, .qos = WRITE_LOCK, .tres = READ_LOCK});
        release_reserved_run_seconds(job, *symbols_.tres_count);
        if (with_accounting_) charge = charges_.final_charge(job, time(nullptr), last_pass, symbols_);
    }
    if (!charge) return;
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (!book_) return;
    try {
        book_->charge_span(charge->owners, charge->rates, charge->span.from, charge->span.to);
        book_changed_ = true;
    } catch (const InputError& e) {
        error("priority/fairway: final usage of %pJ not charged: %s", job, e.what());
    }
}

}  // namespace fairway::priority
