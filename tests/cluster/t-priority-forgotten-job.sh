#!/bin/bash
# A job that runs while slurmctld cannot save its state (an unwritable state directory), then a
# kill -9: the restarted slurmctld never knew the job, and fairway recovers its own older state
# file. Accounting has the job, so fairway charges it at the first pass (within 10% of its
# billing x elapsed); before, its usage was lost.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
require_cluster
wait_idle 60

prio_configure "PriorityParameters=window=30:00,calc_period=0:02"
ctld_dir=$CLUSTER_STATE/ctld
restore_writable() {
    local status=$?
    chmod u+w "$ctld_dir"
    "$CLUSTER" start >/dev/null 2>&1 || echo "warning: cluster start failed" >&2
    (exit "$status")
    prio_restore
}
trap restore_writable EXIT

# charge_of JOB: billing x elapsed seconds of one job in accounting (QOS UsageFactor 1).
charge_of() {
    sacct -n -X -P -j "$1" -o AllocTRES,ElapsedRaw |
        awk -F'|' '{ if (match($1, /billing=[0-9]+/)) sum += substr($1, RSTART + 8, RLENGTH - 8) * $2 } END { print sum + 0 }'
}
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

before=$(settled_usage bob) || fail "bob's RawUsage does not settle: $(raw_usage bob)"
# slurmctld runs as SlurmUser (slurm): from now on it saves neither its job state nor fairway's.
chmod a-w "$ctld_dir"
# srun: a batch job's script could not be written either.
as_user bob srun -p gpu -N1 --gpus=2 -t 2 sleep 8 || fail "srun as bob failed"
job=$(sacct -n -X -P -u bob -S now-5minutes -o JobIDRaw | tail -n 1)
wait_for 60 "job $job to finish" job_finished "$job" || fail "job $job did not finish"
charge=$(charge_of "$job")
greater "$charge" 0 || fail "accounting shows no billing for job $job"
wait_for 30 "the job to be charged in memory" eval 'greater "$(raw_usage bob)" "$before"' ||
    fail "job $job was never charged (bob's RawUsage $(raw_usage bob), was $before)"
in_memory=$(raw_usage bob)
stop_ctld KILL
chmod u+w "$ctld_dir"
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld after kill -9 failed"
wait_for 30 "the saved usage to be recovered" eval 'ctld_log_has "recovered the usage of"' ||
    fail "no recovery logged: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
scontrol show job "$job" >/dev/null 2>&1 && fail "the restarted slurmctld still knows job $job: nothing was forgotten"
want=$(awk -v b="$before" -v c="$charge" 'BEGIN { print b + 0.9 * c }')
wait_for 30 "bob's usage to include the forgotten job" eval 'at_least "$(raw_usage bob)" "$want"' ||
    fail "bob's RawUsage $(raw_usage bob) after the restart: the forgotten job's $charge billing-seconds are missing (before it $before, in memory $in_memory)"
close_to "$(raw_usage bob)" "$in_memory" 10 ||
    fail "bob's RawUsage $(raw_usage bob) after the restart, $in_memory before the kill: charged twice?"
ctld_log_has "slurmctld does not know" || fail "the charge of forgotten runs was not logged"
note "forgotten job $job ($charge billing-seconds): bob's RawUsage $before before it, $in_memory in memory, $(raw_usage bob) after kill -9 and restart"
