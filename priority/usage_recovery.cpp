#include "priority/usage_recovery.h"

#include <algorithm>
#include <exception>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "common/atomic_file.h"
#include "common/error.h"
#include "priority/list_walk.h"
#include "priority/slurmctld_symbols.h"
#include "slurm_public/time_limits.h"

namespace fairway::priority {
namespace {

std::unordered_map<uint32_t, double> qos_usage_factors() {
    std::unordered_map<uint32_t, double> factors;
    AssocMgrLock lock({.qos = READ_LOCK});
    if (!assoc_mgr_qos_list) return factors;
    walk_list<slurmdb_qos_rec_t>(assoc_mgr_qos_list, "QOS usage factors", [&](const slurmdb_qos_rec_t* qos) {
        factors[qos->id] = qos->usage_factor >= 0 ? qos->usage_factor : 1.0;
    });
    return factors;
}

// Billing TRES the job was charged with; jobs recorded without one bill their CPUs, as Slurm
// does when a partition has no TRESBillingWeights.
double job_billing(const slurmdb_job_rec_t* job) {
    uint64_t billing = slurmdb_find_tres_count_in_string(job->tres_alloc_str, TRES_BILLING);
    if (billing == INFINITE64 || billing == NO_VAL64)
        billing = slurmdb_find_tres_count_in_string(job->tres_alloc_str, TRES_CPU);
    return (billing == INFINITE64 || billing == NO_VAL64) ? 0.0 : static_cast<double>(billing);
}

// What one second of the recorded job cost on each meter (as usage_rates() for a live job).
fairshare::UsageRates recorded_rates(const slurmdb_job_rec_t* job, double usage_factor) {
    fairshare::UsageRates rates{job_billing(job) * usage_factor, usage_factor, {}};
    list_t* filled = nullptr;
    slurmdb_tres_list_from_string(&filled, job->tres_alloc_str, TRES_STR_FLAG_NONE);
    const OwnedList allocated(filled);
    if (!allocated) return rates;
    walk_list<slurmdb_tres_rec_t>(allocated.get(), "recorded TRES", [&](const slurmdb_tres_rec_t* tres) {
        if (tres->id != TRES_ENERGY && tres->count && tres->count != NO_CONSUME_VAL64 && tres->count != INFINITE64)
            rates.tres.emplace_back(tres->id, static_cast<double>(tres->count) * usage_factor);
    });
    return rates;
}

fairshare::UsageOwners recorded_owners(const slurmdb_job_rec_t* job, const PartitionQos& partition_qos) {
    fairshare::UsageOwners owners{job->associd, {job->qosid, 0}};
    const auto partition = partition_qos.find(job->partition ? job->partition : "");
    if (partition != partition_qos.end() && partition->second != job->qosid) owners.qos[1] = partition->second;
    return owners;
}

std::optional<fairshare::TimePoint> time_if_set(time_t t) {
    return t > 0 ? std::optional(fairshare::from_unix_seconds(t)) : std::nullopt;
}

// A record as fairshare/recorded_runs.h charges it, with the longest slurm.conf lets the job run.
fairshare::RecordedRun recorded_run(const slurmdb_job_rec_t* job) {
    return {{job->jobid, static_cast<std::int64_t>(job->submit)},
            time_if_set(job->start),
            time_if_set(job->end),
            fairshare::longest_run(slurm_public::job_time_limit(job->timelimit),
                                   slurm_public::over_time_limit(slurm_conf.over_time_limit),
                                   Seconds(slurm_conf.kill_wait))};
}

// Every record of the cluster's jobs that ran in [since, now]: with JOBCOND_FLAG_DUP every run
// of a job id, not only the newest (ids repeat after slurmctld loses its state, wrap at MaxJobId,
// and a requeued job runs again under its id).
OwnedList query_jobs(void* db_conn, time_t since, time_t now) {
    auto* condition = static_cast<slurmdb_job_cond_t*>(xmalloc(sizeof(slurmdb_job_cond_t)));
    condition->cluster_list = list_create(xfree_ptr);
    list_append(condition->cluster_list, xstrdup(slurm_conf.cluster_name));
    condition->usage_start = since;
    condition->usage_end = now;
    // NO_TRUNC: slurmdbd would otherwise end an open record at `now`, and it may not be running.
    condition->flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_TRUNC;
    condition->db_flags = SLURMDB_JOB_FLAG_NOTSET;  // 0 would mean "only jobs without flags"
    OwnedList jobs(jobacct_storage_g_get_jobs_cond(db_conn, getuid(), condition));
    slurmdb_destroy_job_cond(condition);
    return jobs;
}

template <typename Visit>
void for_each_record(list_t* jobs, Visit visit) {
    walk_list<slurmdb_job_rec_t>(jobs, "accounting's job records", visit);
}

using LiveRuns = std::map<fairshare::RunId, fairshare::LiveRun>;

// What slurmctld knows of the runs accounting shows without an end: the job with that id and
// submit time, still in its job list, running or ended. Looked up after the query, so that a
// job that ended meanwhile is seen ended.
LiveRuns live_runs(const SlurmctldSymbols& symbols, list_t* jobs) {
    LiveRuns live;
    SlurmctldLock lock(symbols, {.job = READ_LOCK});
    for_each_record(jobs, [&](const slurmdb_job_rec_t* job) {
        if (job->end || !job->start) return;
        const job_record_t* held = symbols.find_job(job->jobid);
        if (!held || !held->details || held->details->submit_time != job->submit) return;
        const bool running = IS_JOB_RUNNING(held) || IS_JOB_SUSPENDED(held);
        live[recorded_run(job).id] = fairshare::held_run(running, held->start_time, held->end_time);
    });
    return live;
}

// The charge of `span` of the recorded job, as the passes charged it (fairshare/run_charges.h).
UsageCharge record_charge(const slurmdb_job_rec_t* job, const fairshare::ChargeSpan& span,
                          const std::unordered_map<uint32_t, double>& usage_factors,
                          const PartitionQos& partition_qos) {
    const auto factor = usage_factors.find(job->qosid);
    const double usage_factor = factor != usage_factors.end() ? factor->second : 1.0;
    return {recorded_owners(job, partition_qos), recorded_rates(job, usage_factor), span};
}

void charge_record(fairshare::UsageBook& book, const slurmdb_job_rec_t* job, const fairshare::ChargeSpan& span,
                   const std::unordered_map<uint32_t, double>& usage_factors, const PartitionQos& partition_qos) {
    const UsageCharge charge = record_charge(job, span, usage_factors, partition_qos);
    try {
        book.charge_span(charge.owners, charge.rates, charge.span.from, charge.span.to);
    } catch (const InputError& e) {
        error("priority/fairway: usage of job %u in accounting not counted: %s", job->jobid, e.what());
    }
}

// The runs of `jobs` that slurmctld holds in its job list (same id and submit time).
std::set<fairshare::RunId> held_runs(const SlurmctldSymbols& symbols, list_t* jobs) {
    std::set<fairshare::RunId> held;
    SlurmctldLock lock(symbols, {.job = READ_LOCK});
    for_each_record(jobs, [&](const slurmdb_job_rec_t* job) {
        const job_record_t* known = symbols.find_job(job->jobid);
        if (known && known->details && known->details->submit_time == job->submit) held.insert(recorded_run(job).id);
    });
    return held;
}

}  // namespace

std::optional<fairshare::UsageBook> load_saved_book(const std::string& path, const fairshare::LedgerConfig& expected,
                                                    time_t now, Seconds tolerance) {
    try {
        std::optional<std::string> bytes = read_whole_file(path);
        if (!bytes) {
            info("priority/fairway: no saved usage at %s; rebuilding it from accounting", path.c_str());
            return std::nullopt;
        }
        if (fairshare::UsageBook::is_single_ledger(*bytes)) {
            info(
                "priority/fairway: saved usage in %s holds fair-share usage only (an earlier fairway); "
                "rebuilding it and the usage limits read from accounting",
                path.c_str());
            return std::nullopt;
        }
        auto book = fairshare::UsageBook::deserialize(*bytes);
        if (!(book.config() == expected.validated())) {
            info(
                "priority/fairway: saved usage in %s was kept with another window, bucket or half-life; "
                "rebuilding it from accounting",
                path.c_str());
            return std::nullopt;
        }
        if (book.clock().time_since_epoch().count() > now + tolerance.count()) {
            error(
                "priority/fairway: saved usage in %s is dated in the future (clock stepped back?); "
                "rebuilding it from accounting",
                path.c_str());
            return std::nullopt;
        }
        return book;
    } catch (const std::exception& e) {
        error("priority/fairway: saved usage in %s is unusable (%s); rebuilding it from accounting", path.c_str(),
              e.what());
        return std::nullopt;
    }
}

namespace {
// The contents of a file of the state directory, or an empty T when it does not exist; an empty T
// after an error saying what is lost when it is unreadable or corrupt.
template <typename T>
T load_saved(const std::string& path, const char* what, const char* consequence) {
    try {
        std::optional<std::string> bytes = read_whole_file(path);
        return bytes ? T::deserialize(*bytes) : T();
    } catch (const std::exception& e) {
        error("priority/fairway: saved %s in %s are unusable (%s); %s", what, path.c_str(), e.what(), consequence);
        return T();
    }
}
}  // namespace

fairshare::UsageResets load_saved_resets(const std::string& path) {
    return load_saved<fairshare::UsageResets>(path, "RawUsage resets",
                                              "a rebuild from accounting may bring back usage reset before now");
}

fairshare::ForgottenRuns load_saved_forgotten_runs(const std::string& path) {
    return load_saved<fairshare::ForgottenRuns>(
        path, "forgotten runs",
        "a rebuild from accounting charges a runaway record up to this slurmctld's start or its time limit");
}

bool save_usage_state(const std::string& path, const std::string& serialized) {
    try {
        write_file_atomically(path, serialized);
        return true;
    } catch (const std::exception& e) {
        error("priority/fairway: cannot save usage state: %s", e.what());
        return false;
    }
}

time_t accounting_complete_until(void* db_conn, time_t now, time_t& last_empty) {
    int queued = 0;
    // A queue that cannot be read is taken as empty: accounting is then trusted as it stands.
    if (acct_storage_g_get_data(db_conn, ACCT_STORAGE_INFO_AGENT_COUNT, &queued) != SLURM_SUCCESS || queued == 0)
        last_empty = now;
    return last_empty;
}

void AccountingOutage::unanswered(time_t now, const char* until_then) {
    if (since_) return;
    since_ = now;
    error("priority/fairway: slurmdbd did not return job records; %s", until_then);
}

std::optional<time_t> AccountingOutage::end() { return std::exchange(since_, std::nullopt); }

std::optional<RebuiltUsage> usage_from_accounting(const SlurmctldSymbols& symbols,
                                                  const fairshare::LedgerConfig& config, time_t now,
                                                  time_t complete_until, time_t slurmctld_start,
                                                  const PartitionQos& partition_qos,
                                                  const fairshare::UsageResets& resets,
                                                  fairshare::ForgottenRuns& forgotten) {
    const fairshare::LedgerConfig resolved = config.validated();
    const time_t since =
        fairshare::usage_horizon(resolved, fairshare::from_unix_seconds(now)).time_since_epoch().count();
    const auto usage_factors = qos_usage_factors();
    const OwnedList jobs = query_jobs(*symbols.acct_db_conn, since, now);
    if (!jobs) return std::nullopt;
    const LiveRuns live = live_runs(symbols, jobs.get());
    RebuiltUsage rebuilt{
        fairshare::UsageBook::starting_at(resolved, fairshare::from_unix_seconds(now)),
        fairshare::RebuildCoverage(fairshare::from_unix_seconds(since), fairshare::from_unix_seconds(now))};
    rebuilt.book.adopt_resets(resets);
    int run_count = 0;
    for_each_record(jobs.get(), [&](const slurmdb_job_rec_t* job) {
        const fairshare::RecordedRun run = recorded_run(job);
        const auto held = live.find(run.id);
        const fairshare::LiveRun* held_run = held != live.end() ? &held->second : nullptr;
        forgotten.note(run, held_run, fairshare::from_unix_seconds(slurmctld_start));
        const auto span = span_to_charge(
            run, held_run, fairshare::from_unix_seconds(since), fairshare::from_unix_seconds(complete_until),
            fairshare::from_unix_seconds(now), fairshare::from_unix_seconds(slurmctld_start), forgotten);
        if (!span) return;
        rebuilt.coverage.add(run.id);
        if (!job->associd || span->empty()) return;
        charge_record(rebuilt.book, job, *span, usage_factors, partition_qos);
        ++run_count;
    });
    rebuilt.book.advance(fairshare::from_unix_seconds(now));
    info("priority/fairway: read the usage of %d job runs since %ld from accounting", run_count,
         static_cast<long>(since));
    return rebuilt;
}

std::optional<std::vector<UsageCharge>> charges_of_forgotten_runs(const SlurmctldSymbols& symbols,
                                                                  const fairshare::LedgerConfig& config,
                                                                  time_t saved_at, time_t now, time_t complete_until,
                                                                  time_t slurmctld_start,
                                                                  const PartitionQos& partition_qos,
                                                                  fairshare::ForgottenRuns& forgotten) {
    const auto horizon = fairshare::usage_horizon(config.validated(), fairshare::from_unix_seconds(now));
    const auto since = std::max(horizon, fairshare::from_unix_seconds(saved_at));
    const auto usage_factors = qos_usage_factors();
    const OwnedList jobs = query_jobs(*symbols.acct_db_conn, since.time_since_epoch().count(), now);
    if (!jobs) return std::nullopt;
    const std::set<fairshare::RunId> held = held_runs(symbols, jobs.get());
    std::vector<UsageCharge> charges;
    for_each_record(jobs.get(), [&](const slurmdb_job_rec_t* job) {
        const fairshare::RecordedRun run = recorded_run(job);
        if (!job->associd || held.contains(run.id)) return;
        forgotten.note(run, nullptr, fairshare::from_unix_seconds(slurmctld_start));
        const auto span =
            span_to_charge(run, nullptr, since, fairshare::from_unix_seconds(complete_until),
                           fairshare::from_unix_seconds(now), fairshare::from_unix_seconds(slurmctld_start), forgotten);
        if (span && !span->empty()) charges.push_back(record_charge(job, *span, usage_factors, partition_qos));
    });
    return charges;
}

}  // namespace fairway::priority
