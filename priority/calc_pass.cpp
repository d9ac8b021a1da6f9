// One calculation pass of the "fairway_prio" thread, in numbered steps:
//   1. rebuild the ledger from accounting if it is missing or stale (no Slurm lock held)
//   2. collect the running jobs' new usage and the association tree (job write + assoc read locks)
//   3. charge and advance the ledger, save it atomically (fairway's own mutex; file I/O unlocked);
//      a pass that charged nothing skips the save while the file is younger than 1.5 periods
//   4. compute fair-share (core, no lock) and publish it to assoc_mgr (assoc write lock)
//   5. recompute pending jobs' priorities; mark jobs updated only if one changed (job write lock)
// Both walks over the job list lock the list once (walk_list).
#include <chrono>
#include <exception>

#include "common/error.h"
#include "priority/adapter.h"
#include "priority/association_sync.h"
#include "priority/job_prioritizer.h"
#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

fairshare::TimePoint time_point(time_t t)
{
    return fairshare::TimePoint{Seconds{t}};
}

double elapsed_ms(std::chrono::steady_clock::time_point since)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

void Adapter::run_pass()
{
    try {
        const auto started = std::chrono::steady_clock::now();
        const time_t now = time(nullptr);
        const auto settings = current_settings();
        if (!gpu_billing_checked_) {
            warn_if_gpus_unbilled();
            gpu_billing_checked_ = true;
        }
        if (with_accounting_)
            rebuild_if_needed(*settings, now);
        const CollectedUsage usage = collect_usage(now);
        const auto tree = charge_and_advance(usage, now);
        save_state_if_due(usage, now);
        if (tree)
            publish(*settings, *tree);
        const int changed = reprioritize_jobs(now);
        log_flag(PRIO, "priority/fairway: pass charged %zu jobs, changed %d priorities in %.3f ms",
                 usage.charges.size(), changed, elapsed_ms(started));
    } catch (const std::exception& e) {
        error("priority/fairway: calculation pass failed: %s", e.what());
    } catch (...) {
        error("priority/fairway: calculation pass failed");
    }
}

Adapter::CollectedUsage Adapter::collect_usage(time_t now)
{
    time_t last_pass;
    std::optional<time_t> rebuilt_until;
    {
        std::lock_guard<std::mutex> lock(state_mutex_);
        last_pass = last_pass_;
        rebuilt_until.swap(rebuilt_until_);
    }
    CollectedUsage usage;
    usage.rebuilt = rebuilt_until.has_value();
    SlurmctldLock jobs(symbols_, {.job = WRITE_LOCK, .part = READ_LOCK});
    AssocMgrLock assoc({.assoc = READ_LOCK, .qos = READ_LOCK, .tres = READ_LOCK});
    if (rebuilt_until)
        charges_.reset(*rebuilt_until);
    if (with_accounting_)
        usage.charges = charges_.collect(*symbols_.job_list, now, last_pass, symbols_);
    if (!with_accounting_ || !assoc_mgr_root_assoc)
        return usage;
    usage.reset_by_admin = associations_reset_by_admin(current_fair_share().get());
    try {
        usage.tree = snapshot_association_tree();
    } catch (const InputError& e) {
        error("priority/fairway: association hierarchy not usable this pass: %s", e.what());
    }
    return usage;
}

std::optional<fairshare::AssociationTree> Adapter::charge_and_advance(const CollectedUsage& usage, time_t now)
{
    std::lock_guard<std::mutex> lock(state_mutex_);
    if (!ledger_)
        return std::nullopt;
    for (const fairshare::AssocId id : usage.reset_by_admin) {
        info("priority/fairway: RawUsage of association %u was reset; forgetting its usage", id);
        ledger_->forget(id);
    }
    for (const UsageCharge& charge : usage.charges) {
        try {
            ledger_->charge(charge.assoc, charge.billing_seconds, time_point(charge.at));
        } catch (const InputError& e) {
            error("priority/fairway: usage of association %u not charged: %s", charge.assoc, e.what());
        }
    }
    ledger_->advance(time_point(now));
    last_pass_ = now;
    if (!usage.tree)
        return std::nullopt;
    return usage.tree->with_usage(*ledger_, time_point(now));
}

// Writing the state file (serialise, write, fsync) is most of an idle pass's cost. Without new
// charges the saved ledger differs from the current one only by its clock, which loading advances
// anyway; saving at least every 1.5 periods keeps the file well inside recovery's tolerance
// (2 periods + 60 s), so a kill -9 loses nothing and still recovers instead of rebuilding.
void Adapter::save_state_if_due(const CollectedUsage& usage, time_t now)
{
    const bool idle = usage.charges.empty() && usage.reset_by_admin.empty() && !usage.rebuilt;
    const auto settings = current_settings();
    const time_t period = settings->calc_period.count();
    const bool recent = last_saved_ > 0 && now >= last_saved_ && (now - last_saved_) * 2 < period * 3;
    if (idle && recent && last_saved_to_ == settings->state_file)
        return;
    save_state();
    last_saved_ = now;
    last_saved_to_ = settings->state_file;
}

void Adapter::publish(const Settings& settings, const fairshare::AssociationTree& tree)
{
    auto result = std::make_shared<const fairshare::FairShareResult>(
        fairshare::compute_fair_share(tree, settings.fair_share));
    {
        AssocMgrLock assoc({.assoc = WRITE_LOCK});
        publish_fair_share(*result);
    }
    std::lock_guard<std::mutex> lock(state_mutex_);
    fair_share_ = std::move(result);
}

int Adapter::reprioritize_jobs(time_t now)
{
    JobPrioritizer prioritizer(current_settings(), current_fair_share(), symbols_);
    SlurmctldLock jobs(symbols_, {.job = WRITE_LOCK, .part = READ_LOCK});
    // Lets a site_factor plugin refresh its values first, as multifactor does.
    site_factor_g_update();
    AssocMgrLock assoc({.assoc = READ_LOCK, .qos = READ_LOCK});
    int changed = 0;
    walk_list<job_record_t>(*symbols_.job_list, "priority walk", [&](job_record_t* job) {
        try {
            changed += prioritizer.update(job, now) ? 1 : 0;
        } catch (const InputError& e) {
            error("priority/fairway: priority of %pJ not updated: %s", job, e.what());
        }
    });
    // Only a real change makes the schedulers rebuild their queues.
    if (changed)
        *symbols_.last_job_update = now;
    return changed;
}

void Adapter::warn_if_gpus_unbilled()
{
    if (!xstrcasestr(slurm_conf.gres_plugins, "gpu"))
        return;
    slurmdb_tres_rec_t gpu = {};
    gpu.type = const_cast<char*>("gres");
    gpu.name = const_cast<char*>("gpu");
    const int position = assoc_mgr_find_tres_pos(&gpu, false);
    bool billed = false;
    if (position >= 0) {
        SlurmctldLock partitions(symbols_, {.part = READ_LOCK});
        ListIterator it = list_iterator_create(*symbols_.part_list);
        while (auto* partition = static_cast<part_record_t*>(list_next(it)))
            billed = billed || (partition->billing_weights && partition->billing_weights[position] > 0);
        list_iterator_destroy(it);
    }
    if (!billed)
        info("priority/fairway: warning: GPUs carry no billing weight (%s), so GPU jobs are charged only for their "
                "CPUs; add gres/gpu to AccountingStorageTRES and a weight to the partitions' TRESBillingWeights, "
                "e.g. TRESBillingWeights=\"CPU=1.0,GRES/gpu=8.0\"",
                position < 0 ? "gres/gpu is not in AccountingStorageTRES" : "no partition's TRESBillingWeights has GRES/gpu");
}

}  // namespace fairway::priority
