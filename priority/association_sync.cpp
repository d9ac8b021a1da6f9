#include "priority/association_sync.h"

#include <vector>

namespace fairway::priority {
namespace {

fairshare::AssociationNode node_of(const slurmdb_assoc_rec_t* assoc)
{
    fairshare::AssociationNode node;
    node.id = assoc->id;
    const slurmdb_assoc_rec_t* parent = assoc->usage ? assoc->usage->parent_assoc_ptr : nullptr;
    node.parent = (assoc == assoc_mgr_root_assoc || !parent) ? fairshare::kNoParent : parent->id;
    node.account = assoc->acct ? assoc->acct : "";
    node.user = assoc->user ? assoc->user : "";
    node.shares = assoc->shares_raw == SLURMDB_FS_USE_PARENT ? fairshare::Shares::parent()
                                                              : fairshare::Shares::of(assoc->shares_raw);
    return node;
}

// Calls `visit` for each association assoc_mgr holds.
template <typename Visit>
void for_each_association(Visit&& visit)
{
    if (!assoc_mgr_assoc_list)
        return;
    ListIterator it = list_iterator_create(assoc_mgr_assoc_list);
    while (auto* assoc = static_cast<slurmdb_assoc_rec_t*>(list_next(it)))
        visit(assoc);
    list_iterator_destroy(it);
}

}  // namespace

fairshare::AssociationTree snapshot_association_tree()
{
    std::vector<fairshare::AssociationNode> nodes;
    nodes.reserve(assoc_mgr_assoc_list ? list_count(assoc_mgr_assoc_list) : 0);
    for_each_association([&](slurmdb_assoc_rec_t* assoc) {
        // Associations being removed have no usage record; they are not part of the hierarchy.
        if (assoc->usage)
            nodes.push_back(node_of(assoc));
    });
    return fairshare::AssociationTree(std::move(nodes));
}

std::vector<fairshare::AssocId> associations_reset_by_admin(const fairshare::FairShareResult* published)
{
    std::vector<fairshare::AssocId> reset;
    if (!published)
        return reset;
    for_each_association([&](slurmdb_assoc_rec_t* assoc) {
        const fairshare::ShareFigures* figures = published->find(assoc->id);
        if (assoc->user && assoc->usage && figures && figures->raw_usage > 0 && assoc->usage->usage_raw == 0)
            reset.push_back(assoc->id);
    });
    return reset;
}

void publish_fair_share(const fairshare::FairShareResult& result)
{
    for_each_association([&](slurmdb_assoc_rec_t* assoc) {
        const fairshare::ShareFigures* figures = result.find(assoc->id);
        if (!figures || !assoc->usage)
            return;
        slurmdb_assoc_usage_t* usage = assoc->usage;
        usage->usage_raw = figures->raw_usage;
        usage->usage_norm = figures->norm_usage.value_or(0.0);
        usage->usage_efctv = figures->effective_usage;
        usage->shares_norm = figures->norm_shares;
        usage->fs_factor = figures->fair_share.value_or(0.0);
        usage->level_fs = figures->level_fs.value_or(0.0L);
    });
}

}  // namespace fairway::priority
