// Publishes the usage that Slurm's limits read, from fairway's usage book: each association's
// grp_used_wall and usage_tres_raw (its subtree's total, as multifactor propagates usage up the
// tree) and each QOS's usage_raw, grp_used_wall and usage_tres_raw (without decay for a QOS with the
// NoDecay flag, as multifactor does). acct_policy compares them with
// GrpWall and GrpTRESMins (a job then pends with e.g. AssocGrpCPUMinutesLimit), sshare shows
// GrpTRESRaw and `scontrol show assoc_mgr` shows the used figures. Since the book is windowed, such
// a limit is a rolling budget: usage gives it back W after it was charged.
//
// Writing every TRES of every association each pass would cost a cache miss per association for
// TRES nobody used, so a pass writes only the TRES that hold usage now or did at the last pass, and
// skips associations whose figures were zero then and are zero now (most users of a big site are
// idle within a window). The first pass, and one after the hierarchy changed, writes everything:
// assoc_mgr restores an earlier priority plugin's values at startup.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fairshare/association_tree.h"
#include "fairshare/usage_book.h"
#include "priority/slurm_api.h"

namespace fairway::priority {

class LimitsPublisher {
public:
    // QOS whose RawUsage an administrator reset (`sacctmgr modify qos ... set RawUsage=0`) since the
    // last publish: usage_raw is 0 where fairway published more. Caller holds the QOS read lock.
    std::vector<fairshare::QosId> qos_reset_by_admin() const;
    // The ids of assoc_mgr's QOS, ascending; nullopt without a QOS list (no accounting). Caller holds
    // the QOS read lock.
    static std::optional<std::vector<fairshare::QosId>> existing_qos();

    // Caller holds assoc_mgr's assoc and QOS write locks and TRES read lock; `associations` are the
    // nodes of `tree`, in order (association_sync.h).
    void publish(const fairshare::UsageBook& book, const std::shared_ptr<const fairshare::AssociationTree>& tree,
                 const std::vector<slurmdb_assoc_rec_t*>& associations, fairshare::TimePoint now);

private:
    // A TRES meter of one owner kind, at its position in assoc_mgr's TRES arrays.
    struct TresMeter {
        int position = 0;
        const fairshare::WindowedUsageLedger* ledger = nullptr;
    };
    std::vector<TresMeter> tres_meters(const fairshare::UsageBook& book, fairshare::Owner owner) const;
    // The positions to write: those with a meter, those written non-zero last time, or all at first.
    std::vector<int> positions_to_write(const std::vector<TresMeter>& meters, std::vector<bool>& written) const;
    void publish_associations(const fairshare::UsageBook& book, const fairshare::AssociationTree& tree,
                              const std::vector<slurmdb_assoc_rec_t*>& associations, fairshare::TimePoint now,
                              bool same_associations);
    // A QOS's figures: decayed, or undecayed for QOS with the NoDecay flag (usage_book.h).
    struct QosMeters {
        const fairshare::WindowedUsageLedger* billing = nullptr;
        const fairshare::WindowedUsageLedger* wall = nullptr;
        std::vector<TresMeter> tres;
    };
    QosMeters qos_meters(const fairshare::UsageBook& book, fairshare::Owner owner) const;
    void publish_qos(const fairshare::UsageBook& book, fairshare::TimePoint now);

    bool published_once_ = false;
    std::shared_ptr<const fairshare::AssociationTree> published_tree_;  // the hierarchy last published to
    std::vector<bool> association_nonzero_;  // per association of that hierarchy: any figure > 0
    std::vector<bool> association_tres_written_;
    std::vector<bool> qos_tres_written_;
    std::unordered_map<fairshare::QosId, long double> qos_billing_published_;
};

}  // namespace fairway::priority
