// fairway-bridge's view of Slurm through libslurm and libslurmdb (never by parsing command
// output): GPU partitions, and per account the GPU limit slurmctld enforces, GPUs in use and
// GPUs requested by pending jobs; and the one write, an association's GrpTRES=gres/gpu=N.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fairshare/usage_ledger.h"
#include "quota/bridge_config.h"
#include "quota/mirror.h"
#include "quota/standing.h"

namespace fairway::bridge {

// An account association limit of "none" reads as this many GPUs: more than any quota, so the
// protocol lowers it before anything else is raised.
inline constexpr long kUnlimitedGpus = 1L << 40;

struct AccountReading {
    long limit = 0;    // GrpTRES gres/gpu as slurmctld enforces it
    long used = 0;     // GPUs of running jobs (the association's, sub-accounts included)
    long pending = 0;  // GPUs requested by pending jobs of the account
    // slurmdbd's GrpTRES gres/gpu when slurmctld has not taken it yet (slurmdbd pushes association
    // changes to slurmctld asynchronously): it will come into force without another write. -1: none.
    long stored = -1;
};

struct SlurmSnapshot {
    std::string error;  // non-empty: slurmctld or slurmdbd could not be read; nothing else is valid
    std::vector<quota::PartitionInfo> partitions;
    quota::FlavorUse gpus_by_type;                   // read only when asked: GPUs per GRES type over the nodes
    std::map<std::string, AccountReading> accounts;  // only accounts that exist
    // EffectvUsage and NormShares of every association of the accounts read ("account" or
    // "account/user"), and FairShareDampeningFactor: the teams' standing (quota/standing.h).
    std::map<std::string, quota::AssociationStanding> standings;
    std::uint16_t fs_dampening = 1;
};

class SlurmClient {
public:
    explicit SlurmClient(quota::SlurmSettings settings);
    // The groups' `accounts`, and the accounts of the associations `standing_keys` name.
    SlurmSnapshot read(const std::vector<std::string>& accounts, bool with_gpu_types = false,
                       const std::vector<std::string>& standing_keys = {});
    // Sets the account association's GrpTRES gres/<gres>=gpus in slurmdbd; "" on success.
    std::string set_gpu_limit(const std::string& account, long gpus);
    // priority/fairway's window, half-life and bucket as slurmctld runs them; none when slurmctld
    // does not answer or runs another priority plugin.
    std::optional<fairshare::LedgerConfig> fairshare_ledger();
    // Fencing: set_gpu_limit writes only while `open` says so (see KubeApi::set_write_gate).
    void set_write_gate(std::function<bool()> open) { write_gate_ = std::move(open); }

private:
    std::string cluster_name();
    std::string read_partitions(SlurmSnapshot& out);
    std::string read_gpu_types(SlurmSnapshot& out);
    void refresh_conf();
    std::string read_associations(const std::vector<std::string>& accounts,
                                  const std::vector<std::string>& standing_keys, SlurmSnapshot& out);
    std::string read_pending(SlurmSnapshot& out);
    std::string read_stored_limits(const std::vector<std::string>& accounts, SlurmSnapshot& out);

    quota::SlurmSettings settings_;
    std::string tres_name_;  // "gres/gpu"
    std::function<bool()> write_gate_;
    // slurmctld's configuration as last read (refresh_conf).
    long conf_time_ = 0;
    std::string conf_cluster_;
    std::uint16_t fs_dampening_ = 1;
};

}  // namespace fairway::bridge
