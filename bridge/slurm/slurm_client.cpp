#include "bridge/slurm/slurm_client.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <memory>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>
}

#include "bridge/slurm/slurm_compat.h"
#include "common/error.h"
#include "fairshare/parameters.h"

namespace fairway::bridge {
namespace {

using slurm_public::for_each_item;
using slurm_public::own_list;
using slurm_public::OwnedList;

// libslurm reports its errors in errno (23.02 dropped slurm_get_errno(), which returned it).
std::string last_slurm_error() { return slurm_strerror(errno); }

// A libslurm list of C strings that this object owns (the list only borrows them).
struct StringList {
    std::vector<std::string> items;
    list_t* list = slurm_list_create(nullptr);
    explicit StringList(std::vector<std::string> values) : items(std::move(values)) {
        for (const auto& item : items) slurm_list_append(list, const_cast<char*>(item.c_str()));
    }
    ~StringList() { slurm_list_destroy(list); }
    StringList(const StringList&) = delete;
    StringList& operator=(const StringList&) = delete;
};

struct DbConnection {
    void* handle = slurmdb_connection_get(nullptr);
    ~DbConnection() {
        if (handle) slurmdb_connection_close(&handle);
    }
    DbConnection() = default;
    DbConnection(const DbConnection&) = delete;
    DbConnection& operator=(const DbConnection&) = delete;
};

// slurmdbd wants TRES limits by id ("1001=4"), not by name.
long gpu_tres_id(void* db, const std::string& gres) {
    slurmdb_tres_cond_t cond;
    slurmdb_init_tres_cond(&cond, 0);  // all TRES: slurmdbd rejects some name/type filters
    const OwnedList tres = own_list(slurmdb_tres_get(db, &cond));
    long id = -1;
    for_each_item<slurmdb_tres_rec_t>(tres.get(), [&](slurmdb_tres_rec_t* rec) {
        if (rec->type && rec->name && std::string(rec->type) == "gres" && gres == rec->name) id = rec->id;
    });
    return id;
}

// The count of TRES `id` in slurmdbd's "1=4,1001=2" form; kUnlimitedGpus when absent or unset (-1).
long tres_limit_by_id(const char* tres, long id) {
    const std::string list = std::string(",") + (tres ? tres : "") + ",";
    const std::string key = "," + std::to_string(id) + "=";
    auto at = list.find(key);
    if (at == std::string::npos) return kUnlimitedGpus;
    long long value = std::strtoll(list.c_str() + at + key.size(), nullptr, 10);
    return value < 0 || static_cast<uint64_t>(value) >= INFINITE64 ? kUnlimitedGpus : static_cast<long>(value);
}

}  // namespace

SlurmClient::SlurmClient(quota::SlurmSettings settings)
    : settings_(std::move(settings)), tres_name_("gres/" + settings_.gres) {}

// slurmctld sends its configuration again only when it changed since `conf_time_`; otherwise the
// call fails with SLURM_NO_CHANGE_IN_DATA and the values read before stand.
void SlurmClient::refresh_conf() {
    slurm_conf_t* conf = nullptr;
    if (slurm_load_ctl_conf(conf_time_, &conf) != SLURM_SUCCESS || !conf) return;
    conf_time_ = conf->last_update;
    conf_cluster_ = conf->cluster_name ? conf->cluster_name : "";
    fs_dampening_ = conf->fs_dampening_factor;
    slurm_free_ctl_conf(conf);
}

std::string SlurmClient::cluster_name() {
    if (!settings_.cluster.empty()) return settings_.cluster;
    if (conf_time_ == 0) refresh_conf();  // read() refreshes it every cycle
    return conf_cluster_;
}

std::optional<fairshare::LedgerConfig> SlurmClient::fairshare_ledger() {
    slurm_conf_t* conf = nullptr;
    if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || !conf) return std::nullopt;
    const std::unique_ptr<slurm_conf_t, void (*)(slurm_conf_t*)> guard(conf, slurm_free_ctl_conf);
    if (!conf->priority_type || std::string_view(conf->priority_type) != "priority/fairway") return std::nullopt;
    try {
        return fairshare::fairshare_part_of(conf->priority_params ? conf->priority_params : "",
                                            Seconds(conf->priority_decay_hl))
            .ledger_config();
    } catch (const InputError&) {
        return std::nullopt;  // slurmctld refuses such parameters itself
    }
}

std::string SlurmClient::read_partitions(SlurmSnapshot& out) {
    partition_info_msg_t* msg = nullptr;
    if (slurm_load_partitions(0, &msg, SHOW_ALL) != SLURM_SUCCESS)
        return "cannot load partitions: " + last_slurm_error();
    std::unique_ptr<partition_info_msg_t, void (*)(partition_info_msg_t*)> guard(msg, slurm_free_partition_info_msg);
    for (uint32_t i = 0; i < msg->record_count; ++i) {
        const partition_info_t& p = msg->partition_array[i];
        if (!p.name) continue;
        out.partitions.push_back({p.name, quota::tres_count(p.tres_fmt_str ? p.tres_fmt_str : "", tres_name_),
                                  static_cast<int>(p.priority_tier)});
    }
    return {};
}

namespace {
// The accounts whose associations the standing needs besides the groups': usage.associations' own.
std::vector<std::string> with_standing_accounts(std::vector<std::string> accounts,
                                                const std::vector<std::string>& standing_keys) {
    for (const auto& key : standing_keys) {
        std::string account = fairshare::split_association_key(key).account;
        if (std::find(accounts.begin(), accounts.end(), account) == accounts.end()) accounts.push_back(account);
    }
    return accounts;
}
}  // namespace

std::string SlurmClient::read_associations(const std::vector<std::string>& accounts,
                                           const std::vector<std::string>& standing_keys, SlurmSnapshot& out) {
    if (accounts.empty()) return {};
    StringList wanted(with_standing_accounts(accounts, standing_keys));
    assoc_mgr_info_request_msg_t request{};
    request.acct_list = wanted.list;
    request.flags = ASSOC_MGR_INFO_FLAG_ASSOC;
    assoc_mgr_info_msg_t* info = nullptr;
    if (slurm_load_assoc_mgr_info(&request, &info) != SLURM_SUCCESS || !info)
        return "cannot read slurmctld's associations: " + last_slurm_error();
    std::unique_ptr<assoc_mgr_info_msg_t, void (*)(assoc_mgr_info_msg_t*)> guard(info, slurm_free_assoc_mgr_info_msg);
    long index = -1;
    for (uint32_t i = 0; i < info->tres_cnt; ++i)
        if (info->tres_names[i] && tres_name_ == info->tres_names[i]) index = i;
    if (index < 0) return tres_name_ + " is not a tracked TRES (add it to AccountingStorageTRES)";
    for_each_item<slurmdb_assoc_rec_t>(info->assoc_list, [&](slurmdb_assoc_rec_t* assoc) {
        if (!assoc->acct || (assoc->partition && *assoc->partition)) return;
        if (assoc->usage)
            out.standings[fairshare::association_key(assoc->acct, assoc->user ? assoc->user : "")] = {
                assoc->usage->usage_efctv, assoc->usage->shares_norm};
        if (assoc->user && *assoc->user) return;  // account associations only
        if (std::find(accounts.begin(), accounts.end(), assoc->acct) == accounts.end()) return;
        AccountReading reading;
        uint64_t limit = assoc->grp_tres_ctld ? assoc->grp_tres_ctld[index] : INFINITE64;
        reading.limit = (limit == INFINITE64 || limit == NO_VAL64) ? kUnlimitedGpus : static_cast<long>(limit);
        if (assoc->usage && assoc->usage->grp_used_tres)
            reading.used = static_cast<long>(assoc->usage->grp_used_tres[index]);
        out.accounts[assoc->acct] = reading;
    });
    return {};
}

std::string SlurmClient::read_pending(SlurmSnapshot& out) {
    job_info_msg_t* jobs = nullptr;
    if (slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS) return "cannot load jobs: " + last_slurm_error();
    std::unique_ptr<job_info_msg_t, void (*)(job_info_msg_t*)> guard(jobs, slurm_free_job_info_msg);
    for (uint32_t i = 0; i < jobs->record_count; ++i) {
        const slurm_job_info_t& job = jobs->job_array[i];
        if ((job.job_state & JOB_STATE_BASE) != JOB_PENDING || !job.account) continue;
        auto account = out.accounts.find(job.account);
        if (account != out.accounts.end())
            account->second.pending += quota::tres_count(job.tres_req_str ? job.tres_req_str : "", tres_name_);
    }
    return {};
}

// GPUs per type over the nodes, each node once however many partitions contain it.
std::string SlurmClient::read_gpu_types(SlurmSnapshot& out) {
    node_info_msg_t* msg = nullptr;
    if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) return "cannot load nodes: " + last_slurm_error();
    std::unique_ptr<node_info_msg_t, void (*)(node_info_msg_t*)> guard(msg, slurm_free_node_info_msg);
    for (uint32_t i = 0; i < msg->record_count; ++i) {
        const node_info_t& node = msg->node_array[i];
        if (!node.name || !node.gres) continue;
        for (const auto& [type, gpus] : quota::gpus_by_type(node.gres, settings_.gres)) out.gpus_by_type[type] += gpus;
    }
    return {};
}

SlurmSnapshot SlurmClient::read(const std::vector<std::string>& accounts, bool with_gpu_types,
                                const std::vector<std::string>& standing_keys) {
    SlurmSnapshot out;
    refresh_conf();
    out.fs_dampening = fs_dampening_;
    out.error = read_partitions(out);
    if (out.error.empty() && with_gpu_types) out.error = read_gpu_types(out);
    if (out.error.empty()) out.error = read_associations(accounts, standing_keys, out);
    if (out.error.empty()) out.error = read_stored_limits(accounts, out);
    if (out.error.empty()) out.error = read_pending(out);
    return out;
}

// A limit written to slurmdbd reaches slurmctld, which enforces it, only later (at once when
// slurmctld is connected, at its next registration when not): such a limit counts as coming.
std::string SlurmClient::read_stored_limits(const std::vector<std::string>& accounts, SlurmSnapshot& out) {
    if (accounts.empty()) return {};
    DbConnection db;
    if (!db.handle) return "cannot connect to slurmdbd: " + last_slurm_error();
    long tres_id = gpu_tres_id(db.handle, settings_.gres);
    if (tres_id < 0) return "slurmdbd knows no TRES " + tres_name_;
    std::string cluster = cluster_name();
    StringList wanted(accounts), clusters({cluster}), no_user({""});
    slurmdb_assoc_cond_t cond{};
    cond.acct_list = wanted.list;
    if (!cluster.empty()) cond.cluster_list = clusters.list;
    cond.user_list = no_user.list;
    const OwnedList stored = own_list(slurmdb_associations_get(db.handle, &cond));
    if (!stored) return "cannot read slurmdbd's associations: " + last_slurm_error();
    for_each_item<slurmdb_assoc_rec_t>(stored.get(), [&](slurmdb_assoc_rec_t* assoc) {
        if (!assoc->acct || (assoc->user && *assoc->user)) return;
        auto account = out.accounts.find(assoc->acct);
        if (account == out.accounts.end()) return;
        long limit = tres_limit_by_id(assoc->grp_tres, tres_id);
        if (limit != account->second.limit) account->second.stored = limit;
    });
    return {};
}

std::string SlurmClient::set_gpu_limit(const std::string& account, long gpus) {
    if (write_gate_ && !write_gate_()) return "withheld: this bridge does not hold the leader lease";
    DbConnection db;
    if (!db.handle) return "cannot connect to slurmdbd: " + last_slurm_error();
    long tres_id = gpu_tres_id(db.handle, settings_.gres);
    if (tres_id < 0) return "slurmdbd knows no TRES " + tres_name_;
    std::string cluster = cluster_name();
    StringList accounts({account}), clusters({cluster}), no_user({""});
    slurmdb_assoc_cond_t cond{};
    cond.acct_list = accounts.list;
    if (!cluster.empty()) cond.cluster_list = clusters.list;
    cond.user_list = no_user.list;  // the account's own association, not its users'
    slurmdb_assoc_rec_t change;
    slurmdb_init_assoc_rec(&change, 0);
    std::string limit = std::to_string(tres_id) + "=" + std::to_string(gpus);
    change.grp_tres = const_cast<char*>(limit.c_str());
    const OwnedList changed = own_list(slurmdb_associations_modify(db.handle, &cond, &change));
    bool ok = changed && slurm_list_count(changed.get()) > 0;
    slurmdb_connection_commit(db.handle, ok);
    return ok ? ""
              : "no association of account " + account + " changed on cluster " + cluster + ": " + last_slurm_error();
}

}  // namespace fairway::bridge
