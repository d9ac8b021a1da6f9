#include "binding/training_env.h"

#include "binding/hostlist.h"

namespace fairway::binding {

namespace {

// splitmix64's finaliser: every input bit moves every output bit.
std::uint64_t mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

constexpr std::size_t kPortKeyDigits = 16;

}  // namespace

int master_port(const PortRange& range, std::uint64_t port_key, std::uint32_t job_id, std::uint32_t step_id) {
    // The ids only keep a reused key (srun draws one per launch) from repeating a port.
    std::uint64_t ids = (static_cast<std::uint64_t>(job_id) << 32) | step_id;
    auto size = static_cast<std::uint64_t>(range.last - range.first + 1);
    return range.first + static_cast<int>(mix(port_key ^ mix(ids)) % size);
}

std::string format_port_key(std::uint64_t key) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text(kPortKeyDigits, '0');
    for (std::size_t i = kPortKeyDigits; i-- > 0; key >>= 4) text[i] = kDigits[key & 0xf];
    return text;
}

std::optional<std::uint64_t> parse_port_key(std::string_view text) {
    if (text.size() != kPortKeyDigits) return std::nullopt;
    std::uint64_t key = 0;
    for (char c : text) {
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return std::nullopt;
        key = key << 4 | static_cast<std::uint64_t>(digit);
    }
    return key;
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
        {"MASTER_PORT", std::to_string(master_port(ports, rank.port_key, rank.job_id, rank.step_id))},
    };
}

}  // namespace fairway::binding
