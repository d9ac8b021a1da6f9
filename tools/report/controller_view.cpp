#include "tools/report/controller_view.h"

extern "C" {
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

// libslurm exports it (sdiag frees its statistics with it); the public headers do not declare it.
extern void slurm_free_stats_response_msg(stats_info_response_msg_t* msg);
}

#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>

#include "common/atomic_file.h"
#include "slurm_public/time_limits.h"

namespace fairway::report {
namespace {

using fairshare::from_unix_seconds;

void note(const std::string& text) { std::fprintf(stderr, "fairway-report: note: %s\n", text.c_str()); }

std::string slurm_error() { return slurm_strerror(errno); }

}  // namespace

namespace {
// priority/fairway's file `name` in the state directory; an empty T when it does not exist, and
// after a note saying what is counted wrongly when it cannot be read (only root and SlurmUser may).
template <typename T>
T read_plugin_file(const std::string& state_save_location, const char* name, const char* what,
                   const char* consequence) {
    try {
        std::optional<std::string> bytes = read_whole_file(std::filesystem::path(state_save_location) / name);
        return bytes ? T::deserialize(*bytes) : T();
    } catch (const std::exception& e) {
        note(std::string("cannot read priority/fairway's ") + what + " (" + e.what() + "): " + consequence +
             "; run as root or SlurmUser on the slurmctld host");
        return T();
    }
}
}  // namespace

fairshare::UsageResets read_usage_resets(const std::string& state_save_location) {
    return read_plugin_file<fairshare::UsageResets>(state_save_location, fairshare::kResetsFileName, "RawUsage resets",
                                                    "usage reset with sacctmgr is counted as if it had not been");
}

fairshare::ForgottenRuns read_forgotten_runs(const std::string& state_save_location) {
    return read_plugin_file<fairshare::ForgottenRuns>(
        state_save_location, fairshare::kForgottenRunsFileName, "forgotten runs",
        "a runaway record is counted up to slurmctld's latest start or its time limit");
}

std::optional<fairshare::ChargeSpan> ControllerView::span_to_charge(fairshare::RecordedRun run,
                                                                    std::optional<Seconds> time_limit,
                                                                    fairshare::TimePoint since) {
    if (run.end) return fairshare::span_to_charge(run, nullptr, since, now_, now_, started_);
    if (!asked_) ask_slurmctld();
    run.longest = fairshare::longest_run(time_limit, over_time_limit_, kill_wait_);
    const auto held = held_.find(run.id);
    return fairshare::span_to_charge(run, held != held_.end() ? &held->second : nullptr, since, complete_until_, now_,
                                     started_, forgotten_);
}

// When slurmctld started, whether its queue for slurmdbd is empty, and every job it holds.
void ControllerView::ask_slurmctld() {
    asked_ = true;
    slurm_conf_t* conf = nullptr;
    if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || !conf || !load_jobs()) {
        note("slurmctld did not answer (" + slurm_error() +
             "): jobs accounting holds without an end are counted as running up to now");
        if (conf) slurm_free_ctl_conf(conf);
        return;
    }
    started_ = from_unix_seconds(conf->boot_time);
    over_time_limit_ = slurm_public::over_time_limit(conf->over_time_limit);
    kill_wait_ = Seconds(conf->kill_wait);
    const bool fairway = conf->priority_type && std::string(conf->priority_type) == "priority/fairway";
    if (fairway && conf->state_save_location) forgotten_ = read_forgotten_runs(conf->state_save_location);
    slurm_free_ctl_conf(conf);
    // Accounting lacks what is queued (the plugin's rebuild is then provisional): a record slurmctld
    // no longer holds is charged nothing beyond what accounting vouches for, as the plugin charges it
    // before it has seen the queue empty.
    if (queued_for_slurmdbd() > 0) complete_until_ = from_unix_seconds(0);
}

// Asked before accounting is read: what was stored by then is in the records read after.
std::uint32_t ControllerView::queued_for_slurmdbd() {
    if (queued_) return *queued_;
    queued_ = 0;
    stats_info_request_msg_t request{};
    request.command_id = STAT_COMMAND_GET;
    stats_info_response_msg_t* stats = nullptr;
    // A queue that cannot be read is taken as empty, as the plugin takes it.
    if (slurm_get_statistics(&stats, &request) != SLURM_SUCCESS || !stats) return *queued_;
    queued_ = stats->dbd_agent_queue_size;
    slurm_free_stats_response_msg(stats);
    if (*queued_ > 0)
        note("slurmctld has " + std::to_string(*queued_) +
             " records queued for slurmdbd (sdiag): the totals are provisional, since a job whose start or end "
             "is among them is missing or counted short until they are stored");
    return *queued_;
}

bool ControllerView::load_jobs() {
    job_info_msg_t* jobs = nullptr;
    if (slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS || !jobs) return false;
    std::unique_ptr<job_info_msg_t, void (*)(job_info_msg_t*)> guard(jobs, &slurm_free_job_info_msg);
    for (std::uint32_t i = 0; i < jobs->record_count; ++i) {
        const slurm_job_info_t& job = jobs->job_array[i];
        const std::uint32_t state = job.job_state & JOB_STATE_BASE;
        const bool running = state == JOB_RUNNING || state == JOB_SUSPENDED;
        held_[{job.job_id, static_cast<std::int64_t>(job.submit_time)}] =
            fairshare::held_run(running, job.start_time, job.end_time);
    }
    return true;
}

}  // namespace fairway::report
