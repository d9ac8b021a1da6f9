#include "priority/limits_usage.h"

#include <algorithm>

#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

using fairshare::Meter;
using fairshare::Owner;

int tres_position(fairshare::TresId id) {
    slurmdb_tres_rec_t tres = {};
    tres.id = id;
    return assoc_mgr_find_tres_pos(&tres, true);
}

// Visits assoc_mgr's QOS records that have a usage record.
template <typename Visit>
void for_each_qos(Visit visit) {
    if (!assoc_mgr_qos_list) return;
    walk_list<slurmdb_qos_rec_t>(assoc_mgr_qos_list, "QOS walk", [&](slurmdb_qos_rec_t* qos) {
        if (qos->usage) visit(qos);
    });
}

double usage_or_zero(const fairshare::WindowedUsageLedger* ledger, uint32_t id, fairshare::TimePoint now) {
    return ledger ? ledger->usage(id, now) : 0.0;
}

}  // namespace

std::vector<fairshare::QosId> LimitsPublisher::qos_reset_by_admin() const {
    std::vector<fairshare::QosId> reset;
    for_each_qos([&](const slurmdb_qos_rec_t* qos) {
        const auto published = qos_billing_published_.find(qos->id);
        if (published != qos_billing_published_.end() && published->second > 0 && qos->usage->usage_raw == 0)
            reset.push_back(qos->id);
    });
    return reset;
}

std::optional<std::vector<fairshare::QosId>> LimitsPublisher::existing_qos() {
    if (!assoc_mgr_qos_list) return std::nullopt;
    std::vector<fairshare::QosId> ids;
    for_each_qos([&](const slurmdb_qos_rec_t* qos) { ids.push_back(qos->id); });
    std::sort(ids.begin(), ids.end());
    return ids;
}

void LimitsPublisher::publish(const fairshare::UsageBook& book,
                              const std::shared_ptr<const fairshare::AssociationTree>& tree,
                              const std::vector<slurmdb_assoc_rec_t*>& associations, fairshare::TimePoint now) {
    // The pass reuses its hierarchy object while the hierarchy is unchanged, and holding it here
    // keeps its address from being reused: the same object means the same associations, in order.
    const bool same_associations = published_once_ && tree == published_tree_;
    publish_associations(book, *tree, associations, now, same_associations);
    publish_qos(book, now);
    published_tree_ = tree;
    published_once_ = true;
}

std::vector<LimitsPublisher::TresMeter> LimitsPublisher::tres_meters(const fairshare::UsageBook& book,
                                                                     Owner owner) const {
    std::vector<TresMeter> meters;
    for (const Meter& meter : book.meters()) {
        if (meter.owner != owner || !meter.is_tres()) continue;
        // A TRES no longer in AccountingStorageTRES has no place to go.
        const int position = tres_position(static_cast<fairshare::TresId>(meter.what));
        if (position >= 0) meters.push_back({position, book.find(meter)});
    }
    return meters;
}

std::vector<int> LimitsPublisher::positions_to_write(const std::vector<TresMeter>& meters,
                                                     std::vector<bool>& written) const {
    std::vector<bool> holds_usage(static_cast<size_t>(g_tres_count), false);
    for (const TresMeter& meter : meters)
        if (static_cast<size_t>(meter.position) < holds_usage.size()) holds_usage[meter.position] = true;
    std::vector<int> positions;
    for (size_t i = 0; i < holds_usage.size(); ++i) {
        const bool written_before = i < written.size() && written[i];
        if (!published_once_ || written_before || holds_usage[i]) positions.push_back(static_cast<int>(i));
    }
    written.swap(holds_usage);
    return positions;
}

void LimitsPublisher::publish_associations(const fairshare::UsageBook& book, const fairshare::AssociationTree& tree,
                                           const std::vector<slurmdb_assoc_rec_t*>& associations,
                                           fairshare::TimePoint now, bool same_associations) {
    const std::vector<TresMeter> meters = tres_meters(book, Owner::association);
    const std::vector<int> positions = positions_to_write(meters, association_tres_written_);
    // totals[position][i]: association i's subtree usage of the TRES at that position.
    std::vector<std::vector<double>> totals(static_cast<size_t>(g_tres_count));
    for (const TresMeter& meter : meters) totals[meter.position] = tree.subtree_usage(*meter.ledger, now);
    const fairshare::WindowedUsageLedger* wall_ledger = book.find(Meter::wall(Owner::association));
    const std::vector<double> wall =
        wall_ledger ? tree.subtree_usage(*wall_ledger, now) : std::vector<double>(associations.size(), 0.0);
    std::vector<bool> nonzero(associations.size(), false);
    for (size_t i = 0; i < associations.size(); ++i) {
        nonzero[i] = wall[i] > 0 || std::any_of(meters.begin(), meters.end(),
                                                [&](const TresMeter& meter) { return totals[meter.position][i] > 0; });
        if (same_associations && !nonzero[i] && !association_nonzero_[i]) continue;  // zero then and now
        slurmdb_assoc_usage_t* usage = associations[i]->usage;
        usage->grp_used_wall = wall[i];
        if (!usage->usage_tres_raw) continue;
        for (const int position : positions) {
            if (static_cast<uint32_t>(position) < usage->tres_cnt)
                usage->usage_tres_raw[position] = totals[position].empty() ? 0.0L : totals[position][i];
        }
    }
    association_nonzero_.swap(nonzero);
}

LimitsPublisher::QosMeters LimitsPublisher::qos_meters(const fairshare::UsageBook& book, Owner owner) const {
    return QosMeters{book.find(Meter::billing(owner)), book.find(Meter::wall(owner)), tres_meters(book, owner)};
}

void LimitsPublisher::publish_qos(const fairshare::UsageBook& book, fairshare::TimePoint now) {
    const QosMeters decayed = qos_meters(book, Owner::qos);
    const QosMeters undecayed = qos_meters(book, Owner::qos_undecayed);
    std::vector<TresMeter> all_tres = decayed.tres;
    all_tres.insert(all_tres.end(), undecayed.tres.begin(), undecayed.tres.end());
    const std::vector<int> positions = positions_to_write(all_tres, qos_tres_written_);
    qos_billing_published_.clear();
    for_each_qos([&](slurmdb_qos_rec_t* qos) {
        const QosMeters& meters = (qos->flags & QOS_FLAG_NO_DECAY) ? undecayed : decayed;
        slurmdb_qos_usage_t* usage = qos->usage;
        usage->usage_raw = usage_or_zero(meters.billing, qos->id, now);
        usage->grp_used_wall = usage_or_zero(meters.wall, qos->id, now);
        qos_billing_published_[qos->id] = usage->usage_raw;
        if (!usage->usage_tres_raw) return;
        for (const int position : positions) {
            if (static_cast<uint32_t>(position) >= usage->tres_cnt) continue;
            const auto meter = std::find_if(meters.tres.begin(), meters.tres.end(),
                                            [&](const TresMeter& m) { return m.position == position; });
            usage->usage_tres_raw[position] = meter == meters.tres.end() ? 0.0L : meter->ledger->usage(qos->id, now);
        }
    });
}

}  // namespace fairway::priority
