#include "binding/training_env.h"

#include "binding/hostlist.h"

namespace fairway::binding {

int master_port(const PortRange& range, std::uint32_t job_id, std::uint32_t step_id) {
    // splitmix64's finaliser: consecutive job ids land far apart in the range.
    std::uint64_t x = (static_cast<std::uint64_t>(job_id) << 32) | step_id;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    auto size = static_cast<std::uint64_t>(range.last - range.first + 1);
    return range.first + static_cast<int>(x % size);
}

EnvList rank_training_env(const RankIdentity& rank) {
    return {
        {"RANK", std::to_string(rank.global_rank)},
        {"LOCAL_RANK", std::to_string(rank.local_rank)},
    };
}

EnvList training_env(const RankIdentity& rank, const PortRange& ports) {
    auto env = rank_training_env(rank);
    auto node = node_training_env(rank, ports);
    env.insert(env.end(), node.begin(), node.end());
    return env;
}

EnvList node_training_env(const RankIdentity& rank, const PortRange& ports) {
    return {
        {"WORLD_SIZE", std::to_string(rank.world_size)},
        {"LOCAL_WORLD_SIZE", std::to_string(rank.local_world_size)},
        {"NODE_RANK", std::to_string(rank.node_rank)},
        {"MASTER_ADDR", first_host(rank.step_nodelist)},
        {"MASTER_PORT", std::to_string(master_port(ports, rank.job_id, rank.step_id))},
    };
}

}  // namespace fairway::binding
