// What the adapter's parts share (the entry points, adapter.h; the calculation pass, calc_pass.h),
// grouped by the rule that guards it (guarded.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fairshare/age_calendar.h"
#include "fairshare/fair_share.h"
#include "fairshare/recorded_runs.h"
#include "fairshare/usage_book.h"
#include "fairshare/usage_resets.h"
#include "priority/guarded.h"
#include "priority/job_charges.h"
#include "priority/settings.h"
#include "priority/slurmctld_symbols.h"

namespace fairway::priority {

// What start() finds out about the process it was loaded in; read-only afterwards.
struct Environment {
    SlurmctldSymbols symbols;
    bool in_slurmctld = false;
    bool with_accounting = false;
    std::uint16_t client_dampening = 1;  // sshare's FairShareDampeningFactor, outside slurmctld
    time_t started_at = 0;               // when this slurmctld loaded the plugin (with accounting)
};

// The usage book and what goes with it, under the adapter's mutex.
struct UsageState {
    std::shared_ptr<const Settings> settings;
    std::shared_ptr<const fairshare::FairShareResult> fair_share;  // the last pass's
    std::optional<fairshare::UsageBook> book;
    time_t last_pass = 0;                               // time the book was last advanced to
    bool book_changed = true;                           // charged or forgotten since the state file was last written
    bool rebuild_pending = false;                       // rebuild the book from accounting at the next pass
    bool rebuilt_provisionally = false;                 // the last rebuild lacked what was queued for slurmdbd: not
                                                        // saved, rebuilt again once that is stored
    bool usage_known = false;                           // book came from the state file or a rebuild
    std::optional<fairshare::RebuildCoverage> rebuilt;  // set by a rebuild; tells the charges where usage starts
    // Set when the book came from a state file saved then: accounting's runs slurmctld does not
    // hold are charged from then on at the next pass (charges_of_forgotten_runs).
    std::optional<time_t> look_for_forgotten_runs_since;
    fairshare::UsageResets saved_resets;  // what the resets file holds
    // Runs slurmctld forgot, and what their file holds (recorded_runs.h); only the pass thread
    // adds to them, outside this mutex, and puts them back here.
    fairshare::ForgottenRuns forgotten_runs, saved_forgotten_runs;

    // Charges each to the book (none without one); one the book refuses is logged, the others
    // still charged.
    void charge_all(const std::vector<UsageCharge>& charges);
    // The book charges the owner nothing from before `now` again (fairshare/usage_resets.h).
    void forget(fairshare::Owner owner, std::uint32_t id, time_t now);
};

// What slurmctld's job lock guards.
struct JobSide {
    JobChargeTracker charges;
    // When the walked jobs' priorities next change by aging alone. Filled by a walk over all jobs,
    // drawn from and topped up by one over those due, and by initial_priority() with each job
    // slurmctld asks about.
    fairshare::AgeCalendar age_calendar;
    // The time of the last walk: the jobs it did not recompute (not due) keep an older age factor,
    // which sprio's listing brings forward to this time.
    time_t ages_as_of = 0;
};

struct AdapterState {
    Environment env;
    Guarded<UsageState> usage;
    UnderJobLock<JobSide> jobs;

    std::shared_ptr<const Settings> settings() { return usage.lock()->settings; }
    std::shared_ptr<const fairshare::FairShareResult> fair_share() { return usage.lock()->fair_share; }
    // No usable state file was found, and accounting has not answered yet: the book is empty, not
    // a picture of the usage. (Without accounting there is no usage to know.)
    bool usage_unknown() { return env.with_accounting && !usage.lock()->usage_known; }
    // Writes the resets and the forgotten runs, when they changed, then the book (atomically, with
    // no lock held while writing): a crash between the writes leaves a saved book older than a
    // reset, which forgets the usage on loading (UsageBook::adopt_resets), or than a forgotten
    // run, which the next look for forgotten runs charges no further than remembered.
    void save_state();
};

}  // namespace fairway::priority
