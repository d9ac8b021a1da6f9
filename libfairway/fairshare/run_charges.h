// The one rule by which the time a job runs becomes usage, for the plugin's passes, its rebuild
// from accounting and fairway-report alike.
//
// A job that runs [start, end) at a constant rate (per second, on each meter) owes usage for each
// of those seconds once. What is still owed is the span from where it was last charged
// (`charged_until`; none yet: its start) to its end, or to now while it runs; nothing before the
// look-back horizon, whose seconds can no longer count. The span is charged with
// UsageBook::charge_span / WindowedUsageLedger::charge_span, which decays each second from its own
// time and files it in the bucket that holds it, so the usage a job leaves does not depend on how
// its run was cut: by a pass every calc period, by a restart that resumes from the saved clock, by
// a rebuild that reads it whole from accounting, or by the report that reads it whole at its end.
#pragma once

#include <optional>

#include "fairshare/usage_ledger.h"

namespace fairway::fairshare {

// [from, to) to charge; empty when to <= from.
struct ChargeSpan {
    TimePoint from;
    TimePoint to;
    bool empty() const { return to <= from; }
    Seconds length() const { return empty() ? Seconds{0} : to - from; }
};

// How far back a job's seconds can still count at `now`: the window and one bucket (a bucket
// leaves the window whole), or with an infinite window 40 half-lives (2^-40, below any digit sshare
// or the report prints), or, without decay either, everything.
TimePoint usage_horizon(const LedgerConfig& config, TimePoint now);

// What is still owed of a run [start, end) (end: its end, or now while it runs) charged up to
// `charged_until` (none: nothing yet), at a `horizon` from usage_horizon: empty when nothing is.
// Charging what this returns and then moving charged_until to its end charges every second once.
ChargeSpan uncharged_span(TimePoint start, TimePoint end, std::optional<TimePoint> charged_until, TimePoint horizon);

}  // namespace fairway::fairshare
