// The simulated cluster: N identical nodes of cores and GPUs. A job's cores and GPUs are taken from
// the lowest-numbered nodes that have them free, split across nodes as needed (no topology, no
// exclusive nodes, GPUs not tied to the cores of their node), so a job starts whenever the cluster's
// free totals cover it.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "sim/workload.h"

namespace fairway::sim {

struct ClusterSpec {
    std::uint32_t nodes = 1;
    std::int64_t cores_per_node = 1;
    std::int64_t gpus_per_node = 0;

    Need capacity() const noexcept { return {nodes * cores_per_node, nodes * gpus_per_node}; }
    // Throws InputError (key "nodes", "cores_per_node", "gpus_per_node") when unusable.
    void validate() const;
};

// One node's share of a job's allocation.
struct Piece {
    std::uint32_t node = 0;
    std::int64_t cores = 0;
    std::int64_t gpus = 0;
};

class Cluster {
public:
    explicit Cluster(const ClusterSpec& spec);

    const ClusterSpec& spec() const noexcept { return spec_; }
    Need free() const noexcept { return free_; }
    // Takes `need` from the free nodes (precondition: need.fits_in(free())). Cost: the nodes touched.
    std::vector<Piece> allocate(const Need& need);
    // Gives an allocation back.
    void release(const std::vector<Piece>& pieces);

private:
    // Takes `count` of one resource from the nodes in `with_free`, lowest first.
    void take(std::int64_t count, bool gpus, std::vector<Piece>& pieces);

    ClusterSpec spec_;
    Need free_;
    std::vector<Need> free_per_node_;
    std::set<std::uint32_t> nodes_with_free_cores_, nodes_with_free_gpus_;
};

}  // namespace fairway::sim
