// Leader election on a coordination.k8s.io/v1 Lease, so only one bridge writes at a time. The
// decision is the pure quota::decide_lease; this class does the I/O: read the Lease, create it
// when absent, update it conditionally on the resourceVersion read (a 409 means another bridge
// won the race), and keep the fence that every write of this process is checked against.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bridge/k8s/kube_api.h"
#include "quota/bridge_config.h"
#include "quota/leader_lease.h"

namespace fairway::bridge {

// "<hostname>_<pid>": unique per process, so a restarted bridge is a new candidate.
std::string default_identity();

class LeaderLease {
public:
    LeaderLease(KubeApi& api, const quota::LeaderElectionSettings& settings, int write_timeout_seconds);

    // Reads and, when the decision says so, creates, renews or takes over the Lease. Returns
    // whether this bridge holds it now. Logs "lease acquired" and "lease lost" on changes.
    bool acquire_or_renew();
    // We hold the lease as far as we know: no other holder seen since we last took it. While the
    // apiserver is unreachable this stays true (the daemon keeps reading both sides) but the
    // fence below closes at the renew deadline, so nothing is written.
    bool holds() const { return holder_ == identity_; }
    // Counts the times this bridge took the lease (create or take over): a new term.
    long term() const { return term_; }
    // Fencing: may a write start now (held, and it can end before the renew deadline)?
    bool write_allowed() const;
    // On a clean stop: hands the Lease over at once instead of letting it expire.
    void release();

    const std::string& identity() const { return identity_; }
    const std::string& holder() const { return holder_; }  // as last read; empty: nobody
    std::string path() const;
    std::string qualified_name() const;  // "namespace/name", for logs

private:
    bool renew_cached();
    bool write_lease(quota::LeaseAction action, const nlohmann::json& current);
    void note_holder(const std::string& holder, const std::string& why);

    KubeApi& api_;
    quota::LeaderElectionSettings settings_;
    quota::LeaseTiming timing_;
    std::string identity_;
    std::string holder_;
    nlohmann::json last_;               // the Lease as we last wrote it (resourceVersion included)
    std::optional<double> renew_sent_;  // monotonic seconds when our last successful renewal was sent
    long term_ = 0;
};

// Monotonic seconds (steady clock), the fence's only clock.
double monotonic_seconds();

}  // namespace fairway::bridge
