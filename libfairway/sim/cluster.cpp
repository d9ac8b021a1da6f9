#include "sim/cluster.h"

#include <algorithm>
#include <stdexcept>

#include "common/error.h"

namespace fairway::sim {

void ClusterSpec::validate() const {
    if (nodes == 0) throw InputError({"", 0, "nodes"}, "a cluster needs at least one node");
    if (cores_per_node < 0) throw InputError({"", 0, "cores_per_node"}, "must not be negative");
    if (gpus_per_node < 0) throw InputError({"", 0, "gpus_per_node"}, "must not be negative");
    if (cores_per_node == 0 && gpus_per_node == 0)
        throw InputError({"", 0, "cores_per_node"}, "a node needs cores or GPUs");
}

Cluster::Cluster(const ClusterSpec& spec) : spec_(spec), free_(spec.capacity()) {
    spec_.validate();
    free_per_node_.assign(spec.nodes, Need{spec.cores_per_node, spec.gpus_per_node});
    for (std::uint32_t node = 0; node < spec.nodes; ++node) {
        if (spec.cores_per_node > 0) nodes_with_free_cores_.insert(node);
        if (spec.gpus_per_node > 0) nodes_with_free_gpus_.insert(node);
    }
}

void Cluster::take(std::int64_t count, bool gpus, std::vector<Piece>& pieces) {
    std::set<std::uint32_t>& with_free = gpus ? nodes_with_free_gpus_ : nodes_with_free_cores_;
    while (count > 0) {
        if (with_free.empty()) throw std::logic_error("Cluster::allocate: the need does not fit");
        std::uint32_t node = *with_free.begin();
        std::int64_t& available = gpus ? free_per_node_[node].gpus : free_per_node_[node].cores;
        std::int64_t taken = std::min(available, count);
        available -= taken;
        count -= taken;
        if (available == 0) with_free.erase(with_free.begin());
        // Cores are taken first, so a node that gives GPUs may already have a piece of cores.
        auto same_node = std::find_if(pieces.begin(), pieces.end(), [&](const Piece& p) { return p.node == node; });
        if (same_node == pieces.end()) same_node = pieces.insert(pieces.end(), Piece{node, 0, 0});
        (gpus ? same_node->gpus : same_node->cores) += taken;
    }
}

std::vector<Piece> Cluster::allocate(const Need& need) {
    if (!need.fits_in(free_)) throw std::logic_error("Cluster::allocate: the need does not fit");
    std::vector<Piece> pieces;
    take(need.cores, false, pieces);
    take(need.gpus, true, pieces);
    free_ -= need;
    return pieces;
}

void Cluster::release(const std::vector<Piece>& pieces) {
    for (const Piece& piece : pieces) {
        Need& node = free_per_node_.at(piece.node);
        if (piece.cores > 0 && node.cores == 0) nodes_with_free_cores_.insert(piece.node);
        if (piece.gpus > 0 && node.gpus == 0) nodes_with_free_gpus_.insert(piece.node);
        node += Need{piece.cores, piece.gpus};
        free_ += Need{piece.cores, piece.gpus};
    }
}

}  // namespace fairway::sim
