#include "bridge/usage_spool.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "bridge/log.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "quota/mirror.h"

namespace fairway::bridge {
namespace fs = std::filesystem;

namespace {

// The spool: made 0700 when missing; one writable by others would let anyone charge usage, and the
// plugin would refuse to read it.
// A spool this bridge makes as root goes to the owner of StateSaveLocation (SlurmUser), whom
// slurmctld runs as.
void ensure_spool(const std::string& spool) {
    if (mkdir(spool.c_str(), 0700) == 0) {
        struct stat parent {};
        if (geteuid() == 0 && stat(fs::path(spool).parent_path().c_str(), &parent) == 0 &&
            chown(spool.c_str(), parent.st_uid, parent.st_gid) != 0)
            throw std::runtime_error("cannot give the usage spool " + spool + " to SlurmUser: " + std::strerror(errno));
    } else if (errno != EEXIST) {
        throw std::runtime_error("cannot make the usage spool " + spool + ": " + std::strerror(errno));
    }
    struct stat st {};
    if (stat(spool.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw std::runtime_error("the usage spool " + spool + " is not a directory");
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        throw std::runtime_error("the usage spool " + spool + " is writable by its group or others");
}

fairshare::TimePoint latest_end(const std::vector<fairshare::ExternalCharge>& charges) {
    fairshare::TimePoint latest{};
    for (const auto& c : charges) latest = std::max(latest, c.end);
    return latest;
}

}  // namespace

UsageSpool::UsageSpool(const quota::BridgeConfig& config, fairshare::TimePoint now) : config_(config), meter_(config) {
    ensure_spool(config_.usage.spool);
    read_back(now);
}

void UsageSpool::read_back(fairshare::TimePoint now) {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(config_.usage.spool, error)) {
        const std::string file = entry.path().filename().string();
        const auto name = fairshare::parse_usage_record_name(file);
        if (!name || name->source != config_.usage.source) continue;
        try {
            const auto text = read_whole_file(entry.path());
            // Read at a far-future `now`: our own records are trusted for their times.
            const auto record = fairshare::parse_usage_record(text.value_or(""), file, now + Seconds{86400});
            for (const auto& charge : record.charges) meter_.remember(charge);
            latest_end_[record.sequence] = latest_end(record.charges);
        } catch (const std::exception& e) {
            log_event(LogLevel::warn, "own usage record not readable", {{"file", file}, {"error", e.what()}});
        }
        sequence_ = std::max(sequence_, name->sequence);
    }
    if (error) throw std::runtime_error("cannot read the usage spool " + config_.usage.spool + ": " + error.message());
    log_event(LogLevel::info, "usage spool read",
              {{"spool", config_.usage.spool},
               {"records", std::to_string(latest_end_.size())},
               {"last_sequence", std::to_string(sequence_)}});
}

void UsageSpool::cycle(KubeApi& kube, fairshare::TimePoint now) {
    if (last_flush_ && now - *last_flush_ < Seconds{config_.usage.record_seconds}) return;
    ApiResult list = kube.list(quota::demand_collection(config_.kubernetes.backend));
    if (!list.ok()) {
        log_event(LogLevel::warn, "cannot list the metered objects for usage", {{"error", list.response.summary()}});
        return;
    }
    last_flush_ = now;
    auto charges = meter_.flush(list.object.value("items", nlohmann::json::array()), now);
    if (!charges.empty() && !write(std::move(charges))) {
        // What the meter took is not on disk: read the spool back, so it is charged again next time.
        meter_ = quota::UsageMeter(config_);
        latest_end_.clear();
        read_back(now);
    }
    prune(now);
}

bool UsageSpool::write(std::vector<fairshare::ExternalCharge> charges) {
    const fairshare::UsageRecord record{config_.usage.source, sequence_ + 1, std::move(charges)};
    const std::string file = fairshare::usage_record_name(record.source, record.sequence);
    try {
        // Readable by SlurmUser when written as root; the spool (0700) keeps everybody else out.
        write_file_atomically(
            fs::path(config_.usage.spool) / file, fairshare::format_usage_record(record),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    } catch (const std::exception& e) {
        ++totals_.write_failures;
        log_event(LogLevel::error, "cannot write usage record", {{"file", file}, {"error", e.what()}});
        return false;
    }
    sequence_ = record.sequence;
    latest_end_[record.sequence] = latest_end(record.charges);
    ++totals_.records_written;
    for (const auto& c : record.charges) {
        ++totals_.charges_written;
        totals_.gpu_seconds_written += static_cast<double>(c.gpus) * static_cast<double>((c.end - c.start).count());
    }
    log_event(LogLevel::info, "usage record written",
              {{"file", file}, {"charges", std::to_string(record.charges.size())}});
    return true;
}

// Records all of whose charges ended before the keep horizon go; the newest is kept whatever its
// age, so that the sequence survives a restart.
void UsageSpool::prune(fairshare::TimePoint now) {
    const fairshare::TimePoint horizon = now - Seconds{config_.usage.keep_seconds};
    for (auto it = latest_end_.begin(); it != latest_end_.end() && it->first != sequence_;) {
        if (it->second >= horizon) break;
        std::error_code ignored;
        fs::remove(fs::path(config_.usage.spool) / fairshare::usage_record_name(config_.usage.source, it->first),
                   ignored);
        it = latest_end_.erase(it);
    }
    meter_.forget_before(horizon);
    std::error_code error;
    long refused = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(config_.usage.spool) / "refused", error))
        refused += fairshare::parse_usage_record_name(entry.path().filename().string()) ? 1 : 0;
    totals_.refused = refused;
}

std::string UsageSpool::metrics() const {
    const auto line = [](const char* name, const char* help, const char* type, double value) {
        return std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
               std::to_string(value) + "\n";
    };
    return line("fairway_bridge_usage_records_written_total", "usage records written to the spool", "counter",
                static_cast<double>(totals_.records_written)) +
           line("fairway_bridge_usage_gpu_seconds_written_total", "Kubernetes GPU-seconds written as usage", "counter",
                totals_.gpu_seconds_written) +
           line("fairway_bridge_usage_write_failures_total", "usage records that could not be written", "counter",
                static_cast<double>(totals_.write_failures)) +
           line("fairway_bridge_usage_records_refused", "usage records the Slurm plugin refused (spool's refused/)",
                "gauge", static_cast<double>(totals_.refused));
}

}  // namespace fairway::bridge
