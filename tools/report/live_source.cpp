#include "tools/report/live_source.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>
}

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "common/iso8601.h"
#include "fairshare/parameters.h"
#include "fairshare/run_charges.h"
#include "fairshare/usage_records.h"
#include "slurm_public/time_limits.h"
#include "tools/report/child_process.h"
#include "tools/report/controller_view.h"
#include "tools/report/explain.h"
#include "tools/report/kube_usage.h"
#include "tools/report/slurm_compat.h"

extern "C" {
extern slurm_conf_t slurm_conf;
}

namespace fairway::report {
namespace {

using fairshare::TimePoint;

struct LiveContext {
    std::string cluster;
    InputHeader header;
    std::function<void(const AccountedJob&)> on_job;
    std::unordered_map<std::uint32_t, std::pair<std::string, std::string>> names_by_assoc_id;
    std::unordered_map<std::uint32_t, std::string> tres_names;  // TRES id -> "cpu", "billing", "gres/gpu"
    std::unordered_map<std::string, double> usage_factor;       // QOS id or name -> UsageFactor
    std::size_t skipped = 0;                                    // records of unknown associations
};

// libslurm reports its errors in errno (23.02 dropped slurm_get_errno(), which returned it).
std::string slurm_error() { return slurm_strerror(errno); }

TimePoint to_time(std::time_t t) { return TimePoint{std::chrono::seconds{t}}; }

// ---- settings from slurm.conf

ReportSettings read_settings(const Options& options, std::string& cluster) {
    // The configuration slurm_init() read from slurm.conf, as sacct and sshare use it: the report
    // works while slurmctld is down. (libslurm exports it; its public headers do not declare it.)
    const slurm_conf_t* conf = &slurm_conf;
    if (!conf->cluster_name) throw std::runtime_error("slurm.conf could not be read (is SLURM_CONF set?)");
    ReportSettings s;
    s.half_life = Seconds{conf->priority_decay_hl};
    std::string type = conf->priority_type ? conf->priority_type : "";
    if (type == "priority/fairway") {
        fairshare::FairshareParameters p =
            fairshare::fairshare_part_of(conf->priority_params ? conf->priority_params : "", s.half_life);
        s.window = p.window;
        s.bucket = p.bucket;
    } else {
        s.window = fairshare::kInfiniteWindow;  // multifactor's decay never forgets
    }
    s.fair_share =
        fairshare::fair_share_options(conf->priority_flags & PRIORITY_FLAGS_FAIR_TREE,
                                      conf->priority_flags & PRIORITY_FLAGS_DEPTH_OBLIVIOUS, conf->fs_dampening_factor);
    s.weight_fairshare = conf->priority_weight_fs;
    cluster = conf->cluster_name ? conf->cluster_name : "";
    s.now = to_time(std::time(nullptr));
    if (options.now) {
        std::optional<TimePoint> now = parse_iso8601(*options.now);
        if (!now) throw InputError({"", 0, "--now"}, "'" + *options.now + "' is not an ISO-8601 time");
        s.now = *now;
    }
    return s;
}

// How far back records can still matter: the plugin's look-back (fairshare/run_charges.h).
TimePoint query_start(const ReportSettings& s) {
    return fairshare::usage_horizon(fairshare::LedgerConfig{s.window, s.half_life, s.bucket}, s.now);
}

// ---- reading a client command's (sacct, sacctmgr) lines

using tools::run_program;

std::vector<std::string> split(const std::string& line, char separator) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, separator)) fields.push_back(field);
    if (!line.empty() && line.back() == separator) fields.emplace_back();
    return fields;
}

// ---- job records (shared by both sources)

// TRES amounts of one job: "billing=2,cpu=2,gres/gpu=1" (names) or "1=2,5=2,1001=1" (ids).
struct JobTres {
    double billing = 0, cpus = 0, gpus = 0;
};

// Called for each of a million jobs, so it splits in place instead of building strings.
JobTres parse_tres(std::string_view text, const std::unordered_map<std::uint32_t, std::string>& names) {
    JobTres tres;
    while (!text.empty()) {
        std::size_t comma = text.find(',');
        std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        std::size_t equals = item.find('=');
        if (equals == std::string_view::npos) continue;
        std::string_view key = item.substr(0, equals);
        std::uint32_t id = 0;
        auto [id_end, id_error] = std::from_chars(key.data(), key.data() + key.size(), id);
        if (id_error == std::errc() && id_end == key.data() + key.size()) {
            auto named = names.find(id);
            if (named != names.end()) key = named->second;
        }
        double amount = 0;
        std::from_chars(item.data() + equals + 1, item.data() + item.size(), amount);
        if (key == "billing") tres.billing = amount;
        else if (key == "cpu") tres.cpus = amount;
        else if (key == "gres/gpu") tres.gpus = amount;
    }
    return tres;
}

// A time limit in minutes as slurmdbd and sacct's TimelimitRaw give it, in seconds (0: none).
std::int64_t limit_seconds(std::uint64_t minutes) {
    return slurm_public::job_time_limit(minutes).value_or(std::chrono::seconds{0}).count();
}

// Names the job's association and hands it over; records of deleted associations are counted.
void hand_over(LiveContext& ctx, std::uint32_t assoc_id, AccountedJob& job) {
    auto names = ctx.names_by_assoc_id.find(assoc_id);
    if (names == ctx.names_by_assoc_id.end()) {
        ++ctx.skipped;
        return;
    }
    job.assoc_id = assoc_id;
    job.account = names->second.first;
    job.user = names->second.second;
    ctx.on_job(job);
}

// What charging a record takes beyond the record: slurmctld's knowledge of open records, the
// resets, and the look-back horizon.
struct Charging {
    ControllerView controller;
    fairshare::UsageResets resets;
    TimePoint since;
};

std::optional<TimePoint> time_if_set(std::time_t t) { return t > 0 ? std::optional(to_time(t)) : std::nullopt; }

// A run is named by its job id and submit time (fairshare/recorded_runs.h).
fairshare::RecordedRun recorded_run(const AccountedJob& job) {
    std::uint32_t id = 0;
    std::from_chars(job.id.data(), job.id.data() + job.id.size(), id);
    return {{id, static_cast<std::int64_t>(job.submit)}, time_if_set(job.start), time_if_set(job.end), std::nullopt};
}

// Charges one job's run as the plugin's rebuild charges it: as far as fairshare/recorded_runs.h
// says, from its association's last reset on (fairshare/usage_resets.h), every second by
// fairshare/run_charges.h.
void charge_job(const LiveContext& ctx, Charging& charging, ReportModel& model, const AccountedJob& job) {
    const auto time_limit = job.time_limit > 0 ? std::optional(Seconds{job.time_limit}) : std::nullopt;
    std::optional<fairshare::ChargeSpan> span =
        charging.controller.span_to_charge(recorded_run(job), time_limit, charging.since);
    if (!span) return;
    span->from = charging.resets.counts_from(fairshare::ResetOwner::association, job.assoc_id, span->from);
    if (span->empty()) return;
    double seconds = static_cast<double>(span->length().count());
    auto factor = ctx.usage_factor.find(job.qos);  // QOS UsageFactor scales billing like the plugin's charges
    double billing = job.billing * (factor != ctx.usage_factor.end() ? factor->second : 1.0);
    UsageSample sample{job.account,       job.user,           span->from,        span->to,
                       billing * seconds, job.gpus * seconds, job.cpus * seconds};
    model.add(sample, {"accounting", 0, "job " + job.id});
}

// priority/fairway's resets; other priority plugins keep none.
fairshare::UsageResets usage_resets() {
    const std::string type = slurm_conf.priority_type ? slurm_conf.priority_type : "";
    if (type != "priority/fairway" || !slurm_conf.state_save_location) return {};
    return read_usage_resets(slurm_conf.state_save_location);
}

// ---- associations

void add_association(LiveContext& ctx, std::uint32_t id, const std::string& account, const std::string& user,
                     const std::string& parent, fairshare::Shares shares) {
    if (account.empty()) return;
    AssociationSpec spec{account,
                         user,
                         user.empty() && account != "root" ? parent : "",
                         shares,
                         {"slurmdbd", 0, "association " + std::to_string(id)}};
    ctx.header.associations.push_back(std::move(spec));
    ctx.names_by_assoc_id[id] = {account, user};
}

fairshare::Shares shares_of(std::uint32_t raw) {
    return raw == SLURMDB_FS_USE_PARENT ? fairshare::Shares::parent() : fairshare::Shares::of(raw);
}

using slurm_public::for_each_item;
using slurm_public::own_list;
using slurm_public::OwnedList;

// A list of C strings for a slurmdb condition; the strings stay owned by the caller.
OwnedList string_list(const std::string& text) {
    OwnedList list = own_list(slurm_list_create(nullptr));
    slurm_list_append(list.get(), const_cast<char*>(text.c_str()));
    return list;
}

void load_associations_slurmdb(LiveContext& ctx, void* db) {
    auto clusters = string_list(ctx.cluster);
    slurmdb_assoc_cond_t cond{};
    cond.cluster_list = clusters.get();
    const OwnedList list = own_list(slurmdb_associations_get(db, &cond));
    if (!list) throw std::runtime_error("cannot read associations from slurmdbd: " + slurm_error());
    for_each_item<slurmdb_assoc_rec_t>(list.get(), [&](slurmdb_assoc_rec_t* a) {
        if (a->partition && *a->partition) return;  // partition associations share their account's usage
        add_association(ctx, a->id, a->acct ? a->acct : "", a->user ? a->user : "",
                        a->parent_acct ? a->parent_acct : "", shares_of(a->shares_raw));
    });
}

void load_tres_names(LiveContext& ctx, void* db) {
    slurmdb_tres_cond_t cond{};
    const OwnedList list = own_list(slurmdb_tres_get(db, &cond));
    if (!list) return;  // ids stay unnamed; billing/cpu keep their fixed ids below
    for_each_item<slurmdb_tres_rec_t>(list.get(), [&](slurmdb_tres_rec_t* t) {
        std::string type = t->type ? t->type : "";
        ctx.tres_names[t->id] = (t->name && *t->name) ? type + "/" + t->name : type;
    });
}

void load_usage_factors_slurmdb(LiveContext& ctx, void* db) {
    slurmdb_qos_cond_t cond{};
    const OwnedList list = own_list(slurmdb_qos_get(db, &cond));
    if (!list) return;  // no QOS information: every factor is 1
    for_each_item<slurmdb_qos_rec_t>(list.get(), [&](slurmdb_qos_rec_t* q) {
        if (q->usage_factor >= 0) ctx.usage_factor[std::to_string(q->id)] = q->usage_factor;
    });
}

// ---- usage through libslurmdb, one time slice at a time so memory stays bounded

// The states a finished job's record holds (slurmdbd stores the base state, or REQUEUE/RESIZING
// for the earlier parts of a requeued or resized job). Asking for them makes slurmdbd select jobs
// whose end lies in the slice ("time_end between"), an index range: every finished job comes back
// exactly once. Without states it selects every job eligible before the slice's end that had not
// ended before its start, so each slice rescans the whole past and long jobs come back repeatedly.
constexpr std::uint32_t kFinishedStates[] = {JOB_COMPLETE,  JOB_CANCELLED, JOB_FAILED,    JOB_TIMEOUT,
                                             JOB_NODE_FAIL, JOB_PREEMPTED, JOB_BOOT_FAIL, JOB_DEADLINE,
                                             JOB_OOM,       JOB_REQUEUE,   JOB_RESIZING};

// libslurm writes each message as two send()s (length, then body) on a socket without
// TCP_NODELAY, and slurmdbd answers the same way: Nagle holds the second part until the peer's
// delayed ACK, about 40 ms each way, so every query idled ~90 ms (strace). sacct pays that once; a
// sliced fetch pays it per slice. The connection is opaque, so its socket is found by its peer
// (slurmdbd's port) and Nagle switched off on our side. The reply's 40 ms remain (TCP_QUICKACK
// does not last past our next send), which is why slices are sized to keep queries few.
void hurry_slurmdbd_socket() {
    for (int fd = 0; fd < 1024; ++fd) {
        sockaddr_storage peer{};
        socklen_t length = sizeof peer;
        if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) continue;
        std::uint16_t port = peer.ss_family == AF_INET    ? ntohs(reinterpret_cast<sockaddr_in*>(&peer)->sin_port)
                             : peer.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&peer)->sin6_port)
                                                          : 0;
        if (port == 0 || port != slurm_conf.accounting_storage_port) continue;
        int on = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
}

// Fetches the jobs slurmdbd selects for [from, to] (finished ones ending there when `finished_only`)
// and hands each to `on_job`; the list lives only for this slice. Returns how many came back.
std::size_t for_each_job(LiveContext& ctx, void* db, std::time_t from, std::time_t to, bool finished_only,
                         const std::function<void(slurmdb_job_rec_t*)>& on_job) {
    auto clusters = string_list(ctx.cluster);
    std::vector<std::string> state_names;
    const OwnedList states = own_list(slurm_list_create(nullptr));
    if (finished_only) {
        for (std::uint32_t state : kFinishedStates) state_names.push_back(std::to_string(state));
        for (std::string& name : state_names) slurm_list_append(states.get(), name.data());
    }
    slurmdb_job_cond_t cond{};
    cond.cluster_list = clusters.get();
    cond.state_list = finished_only ? states.get() : nullptr;
    // Every record, not only the newest of each job id: ids repeat (slurmctld lost its state, or
    // wrapped at MaxJobId; a requeued job runs again), and each run used its resources.
    cond.flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_TRUNC | JOBCOND_FLAG_DUP;
    cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;  // as sacct: do not filter on scheduling flags
    cond.usage_start = from;
    cond.usage_end = to;
    hurry_slurmdbd_socket();
    const OwnedList jobs = own_list(slurmdb_jobs_get(db, &cond));
    if (!jobs) throw std::runtime_error("cannot read jobs from slurmdbd: " + slurm_error());
    for_each_item<slurmdb_job_rec_t>(jobs.get(), on_job);
    return static_cast<std::size_t>(slurm_list_count(jobs.get()));
}

void hand_over_slurmdb_job(LiveContext& ctx, const slurmdb_job_rec_t& record) {
    JobTres tres = parse_tres(record.tres_alloc_str ? record.tres_alloc_str : "", ctx.tres_names);
    AccountedJob job{std::to_string(record.jobid),
                     {},
                     {},
                     std::to_string(record.qosid),
                     record.submit,
                     record.start,
                     record.end,
                     static_cast<double>(record.elapsed),
                     limit_seconds(record.timelimit),
                     tres.billing,
                     tres.cpus,
                     tres.gpus};
    hand_over(ctx, record.associd, job);
}

// Slices follow the density of the jobs seen so far: each aims at kJobsPerSlice records (about
// 1 KB each in libslurmdb's list, so tens of MB at most), and grows at most twofold per step, so
// memory stays bounded (83 MB max RSS for a million jobs) while a sparse window takes a handful
// of queries (each costs ~40 ms of round trip; see hurry_slurmdbd_socket).
constexpr double kJobsPerSlice = 50000;

std::time_t next_slice_length(std::time_t length, std::size_t jobs_in_last) {
    double scale = jobs_in_last == 0 ? 2.0 : std::clamp(kJobsPerSlice / static_cast<double>(jobs_in_last), 0.25, 2.0);
    return std::max<std::time_t>(60, static_cast<std::time_t>(static_cast<double>(length) * scale));
}

// Finished jobs slice by slice, each charged in the slice holding its end ([from, to), the last
// slice also taking its end second); then the jobs still running at "now", charged up to it.
void load_jobs_slurmdb(LiveContext& ctx, void* db, const AccountingQuery& query) {
    std::time_t from = std::chrono::system_clock::to_time_t(query.from);
    std::time_t now = std::chrono::system_clock::to_time_t(query.to);
    std::time_t length = std::max<std::time_t>(3600, (now - from) / 64);
    for (std::time_t start = from; start < now;) {
        std::time_t end = std::min(now, start + length);
        std::size_t jobs = for_each_job(ctx, db, start, end, true, [&](slurmdb_job_rec_t* job) {
            if (job->end >= start && (job->end < end || job->end == now)) hand_over_slurmdb_job(ctx, *job);
        });
        start = end;
        length = next_slice_length(length, jobs);
    }
    for_each_job(ctx, db, now, now, false, [&](slurmdb_job_rec_t* job) {
        if (job->end <= 0 || job->end > now) hand_over_slurmdb_job(ctx, *job);
    });
}

// ---- the sacct / sacctmgr fallback

void load_associations_sacctmgr(LiveContext& ctx) {
    run_program({"sacctmgr", "-n", "-P", "show", "associations", "cluster=" + ctx.cluster,
                 "format=ID,Account,User,ParentName,Share,Partition"},
                [&](const std::string& line) {
                    std::vector<std::string> f = split(line, '|');
                    if (f.size() < 6 || !f[5].empty()) return;
                    fairshare::Shares shares =
                        f[4] == "parent" ? fairshare::Shares::parent() : fairshare::Shares::of(std::stoul(f[4]));
                    add_association(ctx, std::stoul(f[0]), f[1], f[2], f[3], shares);
                });
}

void load_usage_factors_sacctmgr(LiveContext& ctx) {
    run_program({"sacctmgr", "-n", "-P", "show", "qos", "format=Name,UsageFactor"}, [&](const std::string& line) {
        std::vector<std::string> f = split(line, '|');
        if (f.size() >= 2 && !f[1].empty()) ctx.usage_factor[f[0]] = std::strtod(f[1].c_str(), nullptr);
    });
}

std::time_t sacct_time(const std::string& text) {
    std::optional<TimePoint> when = parse_iso8601(text);  // sacct runs with TZ=UTC
    return when ? std::chrono::system_clock::to_time_t(*when) : 0;
}

// sacct's TimelimitRaw: minutes, or "UNLIMITED"/"Partition_Limit" (no limit of the job's own).
std::int64_t sacct_limit(const std::string& text) {
    char* end = nullptr;
    unsigned long long minutes = std::strtoull(text.c_str(), &end, 10);
    return end != text.c_str() && *end == '\0' ? limit_seconds(minutes) : 0;
}

void load_jobs_sacct(LiveContext& ctx, const AccountingQuery& query) {
    setenv("TZ", "UTC", 1);
    std::string from = format_iso8601(query.from).substr(0, 19);
    std::string to = format_iso8601(query.to).substr(0, 19);
    run_program({query.sacct, "--parsable2", "--noheader", "--allusers", "--allocations", "--duplicates",
                 "--clusters=" + ctx.cluster, "--starttime=" + from, "--endtime=" + to,
                 "--format=JobIDRaw,AssocID,Start,End,ElapsedRaw,AllocTRES,QOS,Submit,TimelimitRaw"},
                [&](const std::string& line) {
                    std::vector<std::string> f = split(line, '|');
                    if (f.size() < 9 || f[1].empty()) return;
                    JobTres tres = parse_tres(f[5], ctx.tres_names);
                    AccountedJob job{f[0],
                                     {},
                                     {},
                                     f[6],
                                     sacct_time(f[7]),
                                     sacct_time(f[2]),
                                     f[3] == "Unknown" ? 0 : sacct_time(f[3]),
                                     std::strtod(f[4].c_str(), nullptr),
                                     sacct_limit(f[8]),
                                     tres.billing,
                                     tres.cpus,
                                     tres.gpus};
                    hand_over(ctx, std::stoul(f[1]), job);
                });
}

// The tree (handed to `on_header`), then every job record of the query to ctx.on_job.
void load_accounting(LiveContext& ctx, const AccountingQuery& query,
                     const std::function<void(const InputHeader&)>& on_header) {
    ctx.header.source = "slurmdbd";
    if (query.use_sacct) {
        load_associations_sacctmgr(ctx);
        load_usage_factors_sacctmgr(ctx);
        on_header(ctx.header);
        load_jobs_sacct(ctx, query);
        return;
    }
    void* db = slurmdb_connection_get(nullptr);
    if (!db) throw std::runtime_error("cannot connect to slurmdbd: " + slurm_error());
    std::unique_ptr<void*, void (*)(void**)> guard(&db, [](void** conn) { slurmdb_connection_close(conn); });
    load_associations_slurmdb(ctx, db);
    load_tres_names(ctx, db);
    load_usage_factors_slurmdb(ctx, db);
    on_header(ctx.header);
    load_jobs_slurmdb(ctx, db, query);
}

// One line of sprio -l's view; a job whose priority an administrator set has no factors.
void print_partition_factors(std::ostream& out, const char* partition, const compat::JobFactors* f) {
    out << "  partition " << (partition ? partition : "-");
    if (!f) {
        out << ": priority set by an administrator\n";
        return;
    }
    out << ": age " << f->priority_age << ", assoc " << f->priority_assoc << ", fairshare " << f->priority_fs
        << ", jobsize " << f->priority_js << ", partition " << f->priority_part << ", qos " << f->priority_qos
        << ", site " << static_cast<std::int64_t>(f->priority_site) - NICE_OFFSET << ", nice "
        << static_cast<std::int64_t>(f->nice) - NICE_OFFSET;
    for (std::uint32_t i = 0; i < f->tres_cnt && f->priority_tres; ++i)
        if (f->priority_tres[i] != 0)
            out << ", " << (f->tres_names && f->tres_names[i] ? f->tres_names[i] : "tres") << " "
                << f->priority_tres[i];
    out << "\n";
}

// sprio -l's view of one pending job: the weighted factors slurmctld's priority plugin computed.
void print_job_factors(std::ostream& out, std::uint32_t job_id) {
    priority_factors_response_msg_t* factors = nullptr;
    if (compat::load_job_factors(&factors, job_id) != SLURM_SUCCESS || !factors) {
        out << "  (no priority factors from slurmctld: " << slurm_error() << ")\n";
        return;
    }
    std::unique_ptr<priority_factors_response_msg_t, void (*)(priority_factors_response_msg_t*)> guard(
        factors, &slurm_free_priority_factors_response_msg);
    bool listed = false;
    for_each_item<priority_factors_object_t>(factors->priority_factors_list, [&](priority_factors_object_t* entry) {
        if (entry->job_id != job_id) return;
        listed = true;
        print_partition_factors(out, entry->partition, compat::factors_of(entry));
    });
    if (!listed) out << "  (slurmctld reports no factors: the job is not pending)\n";
}

// priority/fairway's Kubernetes usage (report/kube_usage.h), each association's from its last reset
// on, as the plugin's book charges it; other priority plugins charge none.
void add_spool_usage(const LiveContext& ctx, const fairshare::UsageResets& resets, ReportModel& model) {
    const std::string type = slurm_conf.priority_type ? slurm_conf.priority_type : "";
    if (type != "priority/fairway" || !slurm_conf.state_save_location) return;
    std::unordered_map<std::string, std::uint32_t> assoc_id_by_name;
    for (const auto& [id, names] : ctx.names_by_assoc_id) assoc_id_by_name[names.first + '\0' + names.second] = id;
    const CountsFrom counts_from = [&](const std::string& account, const std::string& user, TimePoint from) {
        auto id = assoc_id_by_name.find(account + '\0' + user);
        if (id == assoc_id_by_name.end()) return from;
        return resets.counts_from(fairshare::ResetOwner::association, id->second, from);
    };
    const std::string spool =
        std::string(slurm_conf.state_save_location) + "/" + std::string(fairshare::kUsageSpoolName);
    add_kubernetes_usage(spool, slurm_conf.slurm_user_id, model, counts_from);
}

}  // namespace

void load_live(const Options& options, ReportModel& model) {
    slurm_init(nullptr);
    LiveContext ctx;
    ctx.header.settings = read_settings(options, ctx.cluster);
    const TimePoint now = ctx.header.settings.now;
    Charging charging{ControllerView(now), usage_resets(), query_start(ctx.header.settings)};
    ctx.on_job = [&](const AccountedJob& job) { charge_job(ctx, charging, model, job); };
    charging.controller.queued_for_slurmdbd();
    AccountingQuery query{query_start(ctx.header.settings), ctx.header.settings.now, options.use_sacct, options.sacct};
    load_accounting(ctx, query, [&](const InputHeader& header) { model.begin(header); });
    add_spool_usage(ctx, charging.resets, model);
    model.finish(ctx.header.settings);
    if (ctx.skipped > 0)
        std::fprintf(stderr, "fairway-report: note: %zu job record(s) of deleted associations were skipped\n",
                     ctx.skipped);
}

std::size_t read_accounting(const AccountingQuery& query, const std::function<void(const InputHeader&)>& on_header,
                            const std::function<void(const AccountedJob&)>& on_job) {
    slurm_init(nullptr);
    LiveContext ctx;
    ctx.header.settings = read_settings(Options{}, ctx.cluster);
    ctx.header.settings.now = query.to;
    ctx.on_job = on_job;
    load_accounting(ctx, query, on_header);
    return ctx.skipped;
}

int explain_live_job(const Options& options, const ReportModel& model, std::ostream& out) {
    std::uint32_t job_id = static_cast<std::uint32_t>(std::stoul(options.target));
    job_info_msg_t* jobs = nullptr;
    if (slurm_load_job(&jobs, job_id, SHOW_DETAIL) != SLURM_SUCCESS || !jobs || jobs->record_count == 0)
        throw std::runtime_error("cannot load job " + options.target + " from slurmctld: " + slurm_error());
    std::unique_ptr<job_info_msg_t, void (*)(job_info_msg_t*)> guard(jobs, &slurm_free_job_info_msg);
    const slurm_job_info_t& job = jobs->job_array[0];
    struct passwd* pw = getpwuid(job.user_id);
    std::string user = pw ? pw->pw_name : std::to_string(job.user_id);
    std::string account = job.account ? job.account : "";
    out << "Job " << options.target << " of user " << user << " in account " << account << " (partition "
        << (job.partition ? job.partition : "?") << "): priority " << job.priority << "\n";
    print_job_factors(out, job_id);
    std::vector<AssociationExplanation> explanations = explain_target(model, user);
    std::erase_if(explanations, [&](const AssociationExplanation& e) { return e.account != account; });
    print_explanations(out, model, explanations);
    return 0;
}

}  // namespace fairway::report
