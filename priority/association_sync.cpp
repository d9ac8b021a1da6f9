#include "priority/association_sync.h"

#include <stdexcept>
#include <string_view>

#include "common/error.h"
#include "priority/list_walk.h"

namespace fairway::priority {
namespace {

std::string_view name_of(const char* name) { return name ? std::string_view(name) : std::string_view(); }

// Views into the association: valid while the caller holds the assoc lock.
fairshare::NodeFacts facts_of(const slurmdb_assoc_rec_t* assoc) {
    fairshare::NodeFacts facts;
    facts.id = assoc->id;
    const slurmdb_assoc_rec_t* parent = assoc->usage->parent_assoc_ptr;
    facts.parent = (assoc == assoc_mgr_root_assoc || !parent) ? fairshare::kNoParent : parent->id;
    facts.account = name_of(assoc->acct);
    facts.user = name_of(assoc->user);
    facts.shares = assoc->shares_raw == SLURMDB_FS_USE_PARENT ? fairshare::Shares::parent()
                                                              : fairshare::Shares::of(assoc->shares_raw);
    return facts;
}

// What facts_of() and the publishing read and write of an association (see list_walk.h).
struct AssociationPrefetcher {
    void record(const slurmdb_assoc_rec_t* assoc) const {
        prefetch(&assoc->acct);
        prefetch(&assoc->id);
        prefetch(&assoc->priority);
        prefetch(&assoc->shares_raw);
        prefetch(&assoc->user);
    }
    void dependents(const slurmdb_assoc_rec_t* assoc) const {
        prefetch_whole(assoc->usage, true);
        prefetch(assoc->acct);
        if (assoc->user) prefetch(assoc->user);
    }
};

}  // namespace

std::vector<slurmdb_assoc_rec_t*> association_pointers() {
    if (!assoc_mgr_assoc_list) return {};
    return list_items<slurmdb_assoc_rec_t>(assoc_mgr_assoc_list, "association list copy");
}

namespace {

bool reset_by_admin(const slurmdb_assoc_rec_t* assoc, const fairshare::FairShareResult* published) {
    if (!published || !assoc->user || assoc->usage->usage_raw != 0) return false;
    const fairshare::ShareFigures* figures = published->find(assoc->id);
    return figures && figures->raw_usage > 0;
}

}  // namespace

// An association costs the scan little work and about ten scattered cache lines (its record, its
// usage record, its names): twice the walks' distance keeps enough of them on the way.
constexpr size_t kAssociationsAhead = 2 * prefetch_ahead;

AssociationScan scan_associations(std::vector<slurmdb_assoc_rec_t*>& associations,
                                  const fairshare::AssociationTree* known,
                                  const fairshare::FairShareResult* published) {
    AssociationScan scan;
    fairshare::HierarchyReader hierarchy(known);
    std::vector<slurmdb_assoc_rec_t*> in_hierarchy;
    in_hierarchy.reserve(associations.size());
    fairshare::Fingerprint priority_inputs;
    const bool complete = visit_prefetching<kAssociationsAhead>(
        associations, "association scan", AssociationPrefetcher{}, [&](slurmdb_assoc_rec_t* assoc) {
            if (!assoc->usage) return;
            in_hierarchy.push_back(assoc);
            hierarchy.add(facts_of(assoc));
            if (reset_by_admin(assoc, published)) scan.reset_by_admin.push_back(assoc->id);
            priority_inputs.add(assoc).add(assoc->priority).add(assoc->usage->priority_norm);
        });
    if (!complete) throw InputError({"", 0, "associations"}, "the association scan stopped early");
    scan.changed_hierarchy = std::move(hierarchy).changed_nodes();
    scan.priority_inputs = priority_inputs.value();
    associations = std::move(in_hierarchy);
    return scan;
}

void publish_fair_share(const std::vector<slurmdb_assoc_rec_t*>& associations,
                        const fairshare::FairShareResult& result) {
    const std::vector<fairshare::ShareFigures>& all = result.figures();
    if (all.size() != associations.size())
        throw std::logic_error("fair-share figures do not match the association snapshot");
    for (size_t i = 0; i < associations.size(); ++i) {
        const fairshare::ShareFigures& figures = all[i];
        slurmdb_assoc_usage_t* usage = associations[i]->usage;
        usage->usage_raw = figures.raw_usage;
        usage->usage_norm = figures.norm_usage.value_or(0.0);
        usage->usage_efctv = figures.effective_usage;
        usage->shares_norm = figures.norm_shares;
        usage->fs_factor = figures.fair_share.value_or(0.0);
        usage->level_fs = figures.level_fs.value_or(0.0L);
    }
}

}  // namespace fairway::priority
