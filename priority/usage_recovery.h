// Where the usage book comes from at start: the state file fairway saved last time, or, when
// that is missing, corrupt, was written with another window/half-life or by an earlier fairway
// that kept fair-share usage only, slurmdbd's job records inside the window. The state file is
// written atomically after every pass and at shutdown.
//
// Every record counts (a job id may name several runs), and a record without an end is charged
// only as far as what is known (fairshare/recorded_runs.h): slurmctld's own job list, and the last
// time its queue for slurmdbd was empty. A rebuild made while that queue held something is made
// again once it has drained (the adapter).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fairshare/recorded_runs.h"
#include "fairshare/usage_book.h"
#include "fairshare/usage_resets.h"
#include "priority/job_charges.h"
#include "priority/slurmctld_symbols.h"

namespace fairway::priority {

// The saved book, or nullopt after logging why it cannot be used (missing, unreadable, corrupt,
// configured differently, saved before the book, or its clock is ahead of `now` by more than
// `tolerance`).
std::optional<fairshare::UsageBook> load_saved_book(const std::string& path, const fairshare::LedgerConfig& expected,
                                                    time_t now, Seconds tolerance);

// The saved resets (fairshare/usage_resets.h); none when the file is missing, and none after
// logging why when it is unusable (the usage reset before then may come back with a rebuild).
fairshare::UsageResets load_saved_resets(const std::string& path);
// The saved forgotten runs (fairshare/recorded_runs.h); none when the file is missing, and none
// after an error naming it when it is unusable.
fairshare::ForgottenRuns load_saved_forgotten_runs(const std::string& path);

// Writes serialized state (the book, or the resets) atomically. Logs and returns false on failure
// (never throws).
bool save_usage_state(const std::string& path, const std::string& serialized);

// Partition name -> the id of its QOS (partitions with a QOS only).
using PartitionQos = std::unordered_map<std::string, fairshare::QosId>;

// Up to when accounting is complete: `now` when slurmctld has nothing queued for slurmdbd (every
// start and end so far was stored), else the last time that was so (`last_empty`, 0 when never
// seen), which this updates. Called every pass, so that `last_empty` is at most a period old.
time_t accounting_complete_until(void* db_conn, time_t now, time_t& last_empty);

// slurmdbd's silence, logged once per outage: passes ask it every calc period while it is down,
// and an error each time would bury the one that says what is wrong. Pass thread only.
class AccountingOutage {
public:
    // A query got no answer: an error saying what waits (`until_then`) if none was logged since
    // the last answer.
    void unanswered(time_t now, const char* until_then);
    // A query was answered: when the outage it ends began (none: there was none).
    std::optional<time_t> end();

private:
    std::optional<time_t> since_;
};

// A rebuilt book and the runs it saw.
struct RebuiltUsage {
    fairshare::UsageBook book;
    fairshare::RebuildCoverage coverage;
};

// The usage of every job run within the window, from slurmdbd through slurmctld's accounting
// connection (`symbols.acct_db_conn`), charged as the passes would have: billing, wall time and
// each allocated TRES, x QOS UsageFactor, to the job's association, its QOS and its partition's QOS
// (`partition_qos`, today's configuration), from the look-back horizon on (run_charges.h); how far
// each run is charged: recorded_runs.h, with `complete_until` from accounting_complete_until and
// `slurmctld_start` when this slurmctld started; a run slurmctld forgot is added to `forgotten`
// the first time it is seen, and charged up to when it was first seen forgotten. Each
// run is charged as a span (run_charges.h), so it weighs what the passes' charges of it weigh; nothing
// is charged to an association or QOS from before its reset in `resets`. nullopt when
// slurmdbd does not answer (AccountingOutage logs it). Takes slurmctld's job read lock and
// assoc_mgr's QOS read lock itself; call without any Slurm lock held.
std::optional<RebuiltUsage> usage_from_accounting(const SlurmctldSymbols& symbols,
                                                  const fairshare::LedgerConfig& config, time_t now,
                                                  time_t complete_until, time_t slurmctld_start,
                                                  const PartitionQos& partition_qos,
                                                  const fairshare::UsageResets& resets,
                                                  fairshare::ForgottenRuns& forgotten);

// Usage of the runs slurmctld forgot, to charge to a book recovered from a state file saved at
// `saved_at`: runs accounting holds that slurmctld's job list does not (their id and submit time),
// from `saved_at` on. When slurmctld could not save its own job state either and was then killed,
// it restarts without the jobs that ran since, and what the lost passes charged of them was in the
// lost memory only; jobs slurmctld holds are charged by the passes from `saved_at`, so no run is
// charged twice. How far an open record is charged: recorded_runs.h (slurmctld does not hold it:
// up to `complete_until`, and not past `slurmctld_start`, or where `forgotten` first saw it, which
// it is added to). nullopt when slurmdbd does not answer (AccountingOutage logs it). Locks as
// usage_from_accounting.
std::optional<std::vector<UsageCharge>> charges_of_forgotten_runs(const SlurmctldSymbols& symbols,
                                                                  const fairshare::LedgerConfig& config,
                                                                  time_t saved_at, time_t now, time_t complete_until,
                                                                  time_t slurmctld_start,
                                                                  const PartitionQos& partition_qos,
                                                                  fairshare::ForgottenRuns& forgotten);

}  // namespace fairway::priority
