#include "priority/external_usage.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "priority/calc_pass.h"
#include "priority/list_walk.h"
#include "priority/slurm_api.h"

namespace fairway::priority {
namespace {

constexpr const char* kRefusedName = "refused";

bool trusted_owner(const struct stat& st, uid_t owner) { return st.st_uid == owner || st.st_uid == 0; }
bool writable_by_others(const struct stat& st) { return (st.st_mode & (S_IWGRP | S_IWOTH)) != 0; }

// Why the spool itself cannot be trusted, or "" when it can.
std::string spool_problem(const struct stat& st, uid_t owner) {
    if (!S_ISDIR(st.st_mode)) return "not a directory";
    if (!trusted_owner(st, owner)) return "not owned by SlurmUser or root";
    if (writable_by_others(st)) return "writable by its group or others";
    return "";
}

// Whether the spool is there and can be trusted; what is wrong with one that is there is logged.
// No spool is no error: a cluster without fairway-bridge has none.
bool spool_readable(const std::string& spool, uid_t owner) {
    struct stat st {};
    std::string problem;
    if (lstat(spool.c_str(), &st) != 0) {
        if (errno == ENOENT) return false;
        problem = std::strerror(errno);
    } else {
        problem = spool_problem(st, owner);
    }
    if (problem.empty()) return true;
    error("priority/fairway: usage spool %s not read: %s", spool.c_str(), problem.c_str());
    return false;
}

std::vector<std::string> file_names(const std::string& spool) {
    std::vector<std::string> names;
    DIR* dir = opendir(spool.c_str());
    if (!dir) {
        error("priority/fairway: usage spool %s not read: %s", spool.c_str(), std::strerror(errno));
        return names;
    }
    while (const dirent* entry = readdir(dir)) names.emplace_back(entry->d_name);
    closedir(dir);
    return names;
}

void move_aside(const std::string& spool, const std::string& name) {
    const std::string refused = spool + "/" + kRefusedName;
    mkdir(refused.c_str(), 0700);
    if (rename((spool + "/" + name).c_str(), (refused + "/" + name).c_str()) != 0)
        error("priority/fairway: cannot move refused usage record %s aside: %s", name.c_str(), std::strerror(errno));
}

// assoc_mgr's "account" and "account/user" names -> association ids. Caller holds the assoc read lock.
AssociationIds association_ids() {
    AssociationIds ids;
    if (!assoc_mgr_assoc_list) return ids;
    walk_list<slurmdb_assoc_rec_t>(assoc_mgr_assoc_list, "associations' names", [&](const slurmdb_assoc_rec_t* assoc) {
        if (!assoc->acct) return;
        const bool user = assoc->user && *assoc->user;
        if (user && assoc->partition && *assoc->partition) return;  // a partition's association: not named
        ids.emplace(user ? std::string(assoc->acct) + "/" + assoc->user : std::string(assoc->acct), assoc->id);
    });
    return ids;
}

}  // namespace

std::string usage_spool_dir(const std::string& state_file) {
    return (std::filesystem::path(state_file).parent_path() / fairshare::kUsageSpoolName).string();
}

SpoolReading read_new_records(const std::string& spool, uid_t owner, const fairshare::DeliveryWatermarks& watermarks,
                              time_t now) {
    SpoolReading reading;
    if (!spool_readable(spool, owner)) return reading;
    for (const fairshare::RecordName& name : fairshare::new_records(file_names(spool), watermarks)) {
        const std::string file = fairshare::usage_record_name(name.source, name.sequence);
        try {
            const std::string text = fairshare::read_trusted_record(spool + "/" + file, owner);
            reading.records.push_back(fairshare::parse_usage_record(text, file, fairshare::from_unix_seconds(now)));
        } catch (const InputError& e) {
            error("priority/fairway: usage record %s refused: %s", file.c_str(), e.what());
            move_aside(spool, file);
            ++reading.refused;
        }
    }
    return reading;
}

// Reads the spool with no lock, resolves associations under assoc_mgr's read lock, charges under
// the adapter's mutex; the pass's later steps advance and publish the book, and step 6 saves the
// usage with its watermarks in one atomic write.
void CalcPass::ingest_external_usage(const Settings& settings, time_t now) {
    fairshare::DeliveryWatermarks watermarks;
    {
        const auto state = state_.usage.lock();
        if (!state->book) return;
        watermarks = state->book->delivered();
    }
    SpoolReading reading =
        read_new_records(usage_spool_dir(settings.state_file), slurm_conf.slurm_user_id, watermarks, now);
    external_refused_ += reading.refused;
    if (reading.records.empty()) return;
    AssociationIds ids;
    {
        AssocMgrLock assoc({.assoc = READ_LOCK});
        ids = association_ids();
    }
    const auto state = state_.usage.lock();
    if (!state->book) return;
    for (const fairshare::UsageRecord& record : reading.records) charge_record(*state, record, ids);
}

void CalcPass::charge_record(UsageState& usage_state, const fairshare::UsageRecord& record, const AssociationIds& ids) {
    fairshare::UsageBook& book = *usage_state.book;
    const std::string file = fairshare::usage_record_name(record.source, record.sequence);
    if (!fairshare::record_is_new({record.source, record.sequence}, book.delivered())) return;
    for (const fairshare::ExternalCharge& charge : record.charges) {
        const auto id = ids.find(charge.association());
        if (id == ids.end()) {
            error("priority/fairway: usage record %s line %d refused: no association %s", file.c_str(), charge.line,
                  charge.association().c_str());
            ++external_refused_;
            continue;
        }
        try {
            book.charge_span(fairshare::UsageOwners{id->second, {}},
                             fairshare::UsageRates{.billing = charge.billing_rate, .wall = 0, .tres = {}}, charge.start,
                             charge.end);
            ++external_charged_;
        } catch (const InputError& e) {
            error("priority/fairway: usage record %s line %d refused: %s", file.c_str(), charge.line, e.what());
            ++external_refused_;
        }
    }
    book.set_delivered(record.source, record.sequence);
    usage_state.book_changed = true;
    log_flag(PRIO, "priority/fairway: usage record %s charged (%zu charges)", file.c_str(), record.charges.size());
}

}  // namespace fairway::priority
