// ReportModel: turns the association list and a stream of usage records into the core's
// AssociationTree and WindowedUsageLedger (libfairway/fairshare), plus the undecayed GPU/CPU
// seconds and a coarse usage history that the report and its plots show. Memory is bounded by the
// number of associations, never by the number of records.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "fairshare/association_tree.h"
#include "fairshare/fair_share.h"
#include "fairshare/usage_ledger.h"
#include "tools/report/offline_input.h"

namespace fairway::report {

// Undecayed totals of one association's own records inside the window.
struct WindowTotals {
    double billing_seconds = 0;       // Slurm's and Kubernetes' together
    double gpu_seconds = 0;           // on Slurm
    double cpu_seconds = 0;           // on Slurm
    double kube_gpu_seconds = 0;      // on Kubernetes
    double kube_billing_seconds = 0;  // the part of billing_seconds from Kubernetes
};

class ReportModel : public UsageConsumer {
public:
    static constexpr std::size_t kHistoryBins = 48;

    // Builds the tree and the ledger. Throws InputError naming the association entry at fault
    // (unknown parent or account, duplicates, cycles) or the setting ("window", "bucket").
    void begin(const InputHeader& header) override;
    // Charges one record to its association. Throws InputError at `where` for an unknown
    // association or a record that ends after "now".
    void add(const UsageSample& sample, const SourceLocation& where) override;
    // Takes the final settings (algorithm, weights) and moves the ledger to "now".
    void finish(const ReportSettings& settings);

    const ReportSettings& settings() const noexcept { return settings_; }
    const fairshare::WindowedUsageLedger& ledger() const { return ledger_; }
    // The part of node `index`'s own windowed, decayed usage (its RawUsage) that Kubernetes' records
    // charged, by the same rule in a ledger of their own.
    double kubernetes_usage(std::size_t index) const;
    // The tree with every association's own usage set to its windowed usage at "now".
    const fairshare::AssociationTree& tree() const noexcept { return tree_; }
    fairshare::FairShareResult fair_share() const;

    // Own totals of tree node `index`, and those of its whole subtree.
    const WindowTotals& own_totals(std::size_t index) const { return totals_.at(index); }
    WindowTotals subtree_totals(std::size_t index) const;
    // Undecayed billing per history bin (oldest first) of node `index` and its subtree.
    std::vector<double> subtree_history(std::size_t index) const;
    // The part of subtree_history() from Kubernetes.
    std::vector<double> subtree_kubernetes_history(std::size_t index) const;
    // The time span covered by the history bins: [history_start(), now].
    TimePoint history_start() const noexcept { return history_start_; }
    std::size_t records_read() const noexcept { return records_; }

    // Finds an association: a user's in `account`, or the account's own when `user` is empty.
    std::optional<std::size_t> find(const std::string& account, const std::string& user) const;
    // Every user association of `user` (a user may be in several accounts).
    std::vector<std::size_t> associations_of_user(const std::string& user) const;

private:
    void add_node(const AssociationSpec& spec, fairshare::AssocId parent);
    void build_tree(const std::vector<AssociationSpec>& specs);
    [[noreturn]] void rethrow_at_association(const InputHeader& header, const InputError& error) const;
    void charge(fairshare::WindowedUsageLedger& ledger, fairshare::AssocId id, const UsageSample& sample);
    double share_in_window(const UsageSample& sample) const;

    ReportSettings settings_;
    fairshare::WindowedUsageLedger ledger_;
    fairshare::WindowedUsageLedger kube_ledger_;  // Kubernetes' charges alone
    fairshare::AssociationTree tree_;
    std::vector<fairshare::AssociationNode> nodes_;               // while building
    std::vector<SourceLocation> node_where_;                      // input location per node
    std::unordered_map<std::string, std::size_t> index_by_name_;  // "account\0user" -> node index
    mutable std::string lookup_key_;                              // find()'s key, reused: no allocation per record
    std::vector<WindowTotals> totals_;
    std::vector<double> subtree_sum(const std::vector<std::vector<double>>& per_node, std::size_t index) const;
    std::vector<std::vector<double>> history_;
    std::vector<std::vector<double>> kube_history_;  // the part of history_ from Kubernetes
    TimePoint history_start_{};
    TimePoint horizon_{};  // fairshare::usage_horizon at "now": older seconds are not charged
    std::size_t records_ = 0;
};

}  // namespace fairway::report
