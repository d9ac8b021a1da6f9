#include "jobsubmit/job_desc_io.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "presets/slurm_tres.h"

#include "jobsubmit/slurm_compat.h"

namespace fairway::jobsubmit {
namespace {

using presets::Field;
using presets::GpuCount;
using presets::JobRequest;
using presets::Seconds;

std::optional<std::string> text_of(const char* value) {
    if (!value) return std::nullopt;
    return std::string(value);
}

void set_text(char*& target, const std::optional<std::string>& value) {
    xfree(target);
    if (value && !value->empty()) target = xstrdup(value->c_str());
}

std::optional<Seconds> time_of(std::uint32_t minutes) {
    if (minutes == NO_VAL) return std::nullopt;
    if (minutes == INFINITE) return Seconds::max();
    return Seconds(static_cast<std::int64_t>(minutes) * 60);
}

std::uint32_t minutes_of(const std::optional<Seconds>& time) {
    if (!time) return NO_VAL;
    if (*time == Seconds::max()) return INFINITE;
    auto minutes = (time->count() + 59) / 60;
    return static_cast<std::uint32_t>(std::min<std::int64_t>(minutes, INFINITE - 1));
}

// The core reads and writes TRES entries as "gres:gpu:a100:2"; the descriptor holds the release's
// form (compat::kGresSeparator: "gres/gpu:a100:2" since 23.02). Converted at this edge only.
std::string with_gres_separator(const char* tres, char from, char to) {
    std::string text = tres ? tres : "";
    for (size_t entry = 0; entry < text.size();) {
        if (text.compare(entry, 4, "gres") == 0 && entry + 4 < text.size() && text[entry + 4] == from)
            text[entry + 4] = to;
        const size_t comma = text.find(',', entry);
        if (comma == std::string::npos) break;
        entry = comma + 1;
    }
    return text;
}
std::string core_tres(const char* tres) { return with_gres_separator(tres, compat::kGresSeparator, ':'); }
std::string release_tres(const std::string& tres) {
    return with_gres_separator(tres.c_str(), ':', compat::kGresSeparator);
}

// A GPU entry the core cannot read still counts as set by the job (defaults leave it alone).
std::optional<GpuCount> gpus_of(const char* tres) {
    if (!tres || !presets::has_gpu_entry(core_tres(tres))) return std::nullopt;
    if (auto gpus = presets::gpus_in_tres(core_tres(tres))) return gpus;
    return GpuCount{core_tres(tres), 0};
}

void set_gpus(char*& tres, const std::optional<GpuCount>& gpus) {
    set_text(tres, release_tres(presets::with_gpus_in_tres(core_tres(tres), gpus)));
}

std::optional<std::uint64_t> per_gpu_of(const char* tres) {
    if (!tres || !presets::has_gpu_entry(core_tres(tres))) return std::nullopt;
    return presets::per_gpu_amount_in_tres(core_tres(tres)).value_or(0);
}

void set_per_gpu(char*& tres, const std::optional<std::uint64_t>& amount) {
    set_text(tres, release_tres(presets::with_per_gpu_amount_in_tres(core_tres(tres), amount)));
}

std::optional<bool> exclusive_of(std::uint16_t shared) {
    if (shared == NO_VAL16) return std::nullopt;
    return shared != JOB_SHARED_OK;  // NONE, USER, MCS, TOPO are all kinds of exclusive
}

std::optional<presets::WarnSignal> signal_of(const job_desc_msg_t& desc) {
    if (desc.warn_signal == 0 || desc.warn_signal == NO_VAL16) return std::nullopt;
    return presets::WarnSignal{desc.warn_signal, desc.warn_time == NO_VAL16 ? std::uint16_t(60) : desc.warn_time,
                               (desc.warn_flags & KILL_JOB_BATCH) != 0};
}

void set_signal(job_desc_msg_t& desc, const std::optional<presets::WarnSignal>& signal) {
    desc.warn_signal = signal ? static_cast<std::uint16_t>(signal->number) : 0;
    desc.warn_time = signal ? signal->seconds_before : 0;
    if (signal && signal->batch_shell_only) desc.warn_flags |= KILL_JOB_BATCH;
    else desc.warn_flags &= static_cast<std::uint16_t>(~KILL_JOB_BATCH);
}

template <class T>
std::optional<T> unless(T value, T unset) {
    if (value == unset) return std::nullopt;
    return value;
}

bool is_entry_of(const char* entry, const std::string& name) {
    return entry && std::strncmp(entry, name.c_str(), name.size()) == 0 && entry[name.size()] == '=';
}

}  // namespace

JobRequest read_job_request(const job_desc_msg_t& desc) {
    JobRequest job;
    job.partition = text_of(desc.partition);
    job.qos = text_of(desc.qos);
    job.time = time_of(desc.time_limit);
    job.nodes = desc.min_nodes == 0 ? std::nullopt : unless<std::uint32_t>(desc.min_nodes, NO_VAL);
    job.ntasks_per_node = unless<std::uint16_t>(desc.ntasks_per_node, NO_VAL16);
    job.gpus = gpus_of(desc.tres_per_job);
    job.gpus_per_node = gpus_of(desc.tres_per_node);
    job.gpus_per_task = gpus_of(desc.tres_per_task);
    auto cpus = per_gpu_of(desc.cpus_per_tres);
    if (cpus) job.cpus_per_gpu = static_cast<std::uint32_t>(std::min<std::uint64_t>(*cpus, UINT32_MAX));
    job.mem_per_gpu_mb = per_gpu_of(desc.mem_per_tres);
    job.constraint = text_of(desc.features);
    job.exclusive = exclusive_of(desc.shared);
    job.requeue = desc.requeue == NO_VAL16 ? std::nullopt : std::optional<bool>(desc.requeue != 0);
    job.signal = signal_of(desc);
    return job;
}

void write_job_request(job_desc_msg_t& desc, const JobRequest& before, const JobRequest& after) {
    const auto changed = presets::changed_fields(before, after);
    auto is_changed = [&](Field field) { return changed.test(static_cast<std::size_t>(field)); };
    if (is_changed(Field::partition)) set_text(desc.partition, after.partition);
    if (is_changed(Field::qos)) set_text(desc.qos, after.qos);
    if (is_changed(Field::time)) desc.time_limit = minutes_of(after.time);
    if (is_changed(Field::nodes)) desc.min_nodes = desc.max_nodes = after.nodes.value_or(NO_VAL);  // like --nodes=N
    if (is_changed(Field::ntasks_per_node))
        desc.ntasks_per_node =
            after.ntasks_per_node
                ? static_cast<std::uint16_t>(std::min<std::uint32_t>(*after.ntasks_per_node, NO_VAL16 - 1))
                : NO_VAL16;
    if (is_changed(Field::gpus)) set_gpus(desc.tres_per_job, after.gpus);
    if (is_changed(Field::gpus_per_node)) set_gpus(desc.tres_per_node, after.gpus_per_node);
    if (is_changed(Field::gpus_per_task)) set_gpus(desc.tres_per_task, after.gpus_per_task);
    if (is_changed(Field::cpus_per_gpu)) set_per_gpu(desc.cpus_per_tres, after.cpus_per_gpu);
    if (is_changed(Field::mem_per_gpu)) set_per_gpu(desc.mem_per_tres, after.mem_per_gpu_mb);
    if (is_changed(Field::constraint)) set_text(desc.features, after.constraint);
    if (is_changed(Field::exclusive)) desc.shared = after.exclusive.value_or(false) ? JOB_SHARED_NONE : NO_VAL16;
    if (is_changed(Field::requeue)) desc.requeue = after.requeue ? (*after.requeue ? 1 : 0) : NO_VAL16;
    if (is_changed(Field::signal)) set_signal(desc, after.signal);
}

std::optional<std::string> spank_env_value(const job_desc_msg_t& desc, const std::string& name) {
    std::optional<std::string> value;
    for (std::uint32_t i = 0; desc.spank_job_env && i < desc.spank_job_env_size; ++i)
        if (is_entry_of(desc.spank_job_env[i], name)) value = std::string(desc.spank_job_env[i] + name.size() + 1);
    return value;
}

static void set_env_entry(char**& array, std::uint32_t& size, const std::string& name,
                          const std::optional<std::string>& value) {
    std::uint32_t kept = 0;
    for (std::uint32_t i = 0; array && i < size; ++i) {
        if (is_entry_of(array[i], name)) xfree(array[i]);
        else array[kept++] = array[i];
    }
    size = kept;
    if (value) {
        // One spare slot keeps the array NULL-terminated for code that walks it as environ.
        xrecalloc(array, kept + 2, sizeof(char*));
        array[kept] = xstrdup_printf("%s=%s", name.c_str(), value->c_str());
        size = kept + 1;
    }
    if (array) array[size] = nullptr;
}

void set_spank_env(job_desc_msg_t& desc, const std::string& name, const std::optional<std::string>& value) {
    set_env_entry(desc.spank_job_env, desc.spank_job_env_size, name, value);
}

void set_batch_env(job_desc_msg_t& desc, const std::string& name, const std::optional<std::string>& value) {
    if (!desc.script || !desc.environment) return;
    set_env_entry(desc.environment, desc.env_size, name, value);
}

void append_admin_comment(job_desc_msg_t& desc, const std::string& text) {
    if (desc.admin_comment && desc.admin_comment[0]) xstrfmtcat(desc.admin_comment, "; %s", text.c_str());
    else set_text(desc.admin_comment, text);
}

}  // namespace fairway::jobsubmit
