// The leader-election decision for fairway-bridge, pure: given the Lease record last read,
// the time, our identity and the durations, what to do with the Lease (create, renew, take
// over, stand by), and whether a write may still leave the process at a given instant.
//
// Two clocks, on purpose:
//  - Takeover compares the holder's renewTime (its wall clock) plus leaseDurationSeconds with
//    our wall clock. This is the only place where two hosts' clocks meet; it is safe while
//    their skew stays below lease_duration - renew_deadline (validated > 0, documented >= 5 s).
//  - Fencing uses our own monotonic clock only: the holder takes renewTime and a monotonic
//    instant together before it sends the renewal, writes nothing once renew_deadline has passed
//    since that instant, and starts a write only while it can finish (write_timeout) before the
//    deadline. So its last write has ended by renewTime + renew_deadline on its clock, which is
//    before renewTime + lease_duration on any clock less skewed than the margin.
#pragma once

#include <optional>
#include <string>

namespace fairway::quota {

struct LeaseTiming {
    long lease_duration = 15;  // seconds others wait after our last renewTime before taking over
    long renew_deadline = 10;  // seconds after a renewal is sent during which we may write
    long write_timeout = 5;    // seconds a write may take before it can no longer land
};

// A coordination.k8s.io/v1 Lease as far as the decision needs it.
struct LeaseRecord {
    std::string holder;      // spec.holderIdentity; empty: released
    long long renew_ms = 0;  // spec.renewTime (a MicroTime), Unix milliseconds
    long duration = 0;       // spec.leaseDurationSeconds as the holder wrote it
};

enum class LeaseAction {
    create,     // no Lease object yet: create it naming us
    renew,      // we hold it: update renewTime
    take_over,  // released or expired: update it naming us
    standby,    // someone else holds a live lease: write nothing
};

const char* lease_action_name(LeaseAction action);

// The instant (Unix milliseconds, wall clock) after which `record` no longer protects its holder.
long long lease_expiry(const LeaseRecord& record);

// What to do with the Lease, given what was read (nullopt: the object does not exist) and our
// wall clock in Unix milliseconds.
LeaseAction decide_lease(const std::optional<LeaseRecord>& current, const std::string& me, long long wall_now_ms);

// Fencing: may a write that starts at monotonic `now` go out, given that our last successful
// renewal was sent at monotonic `renew_sent` (nullopt: we do not hold the lease)?
bool write_allowed(std::optional<double> renew_sent, double now, const LeaseTiming& timing);

// A Lease's MicroTime ("2026-12-06T21:15:35.123456Z") as Unix milliseconds, the fraction kept so
// expiry is exact to the millisecond; nullopt when it is not a timestamp.
std::optional<long long> parse_lease_time(const std::string& text);
// Unix milliseconds as a MicroTime in UTC.
std::string format_lease_time(long long unix_ms);

// The empty string when the durations can be fenced safely, else why not. `retry_period` is how
// often the Lease is renewed (or, on standby, read).
std::string lease_timing_problem(const LeaseTiming& timing, long retry_period);

}  // namespace fairway::quota
