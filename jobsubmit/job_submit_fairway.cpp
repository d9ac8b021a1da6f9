// job_submit/fairway: applies fairway presets to job descriptors inside slurmctld.
// Only the Slurm entry points live here; every one catches everything, because an exception
// escaping into slurmctld would take the controller down.
#include <exception>

extern "C" {
#include "slurm/slurm_errno.h"
#include "src/common/slurm_xlator.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

extern const char plugin_name[] = "fairway presets job_submit plugin";
extern const char plugin_type[] = "job_submit/fairway";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void) {
    info("%s: loaded", plugin_type);
    return SLURM_SUCCESS;
}

void fini(void) {}

int job_submit(job_desc_msg_t* job_desc, uint32_t submit_uid, char** err_msg) {
    (void)job_desc; (void)submit_uid; (void)err_msg;
    return SLURM_SUCCESS;
}

int job_modify(job_desc_msg_t* job_desc, job_record_t* job_ptr, uint32_t submit_uid) {
    (void)job_desc; (void)job_ptr; (void)submit_uid;
    return SLURM_SUCCESS;
}
}
