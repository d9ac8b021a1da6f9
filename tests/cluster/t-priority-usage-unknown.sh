#!/bin/bash
# While fairway does not know the usage (its state file is gone and slurmdbd does not answer, so
# there is nothing to rebuild it from), it leaves pending jobs' priorities as slurmctld saved them
# instead of recomputing them as if nobody had used the cluster; once slurmdbd answers, the usage
# is rebuilt and the priorities follow it again. The outage is logged once, not at every pass, and
# the rebuild says how long the usage was unknown.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
# Pending jobs wait in the debug partition, down in the configuration so that it stays down when
# slurmctld restarts.
# DebugFlags=Priority logs each pass, skipped ones included.
prio_test_setup "PriorityParameters=window=30:00,calc_period=0:02" DebugFlags=Priority SlurmctldDebug=verbose \
    'PartitionName=debug Nodes=node[1-4] Default=NO MaxTime=30 State=DOWN TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=8.0"'
# However the test ends, slurmdbd runs again before the configuration is restored.
trap restore_with_daemons EXIT

queued_priority() { squeue -h -j "$1" -o %Q; }
failed_rebuilds() { slurmctld_log_since_start | grep -cF "slurmdbd did not return job records"; }
skipped_passes() { slurmctld_log_since_start | grep -cF "pass skipped: the usage is not known"; }

# alice has used the cluster and carol, in the same account, never has (earlier tests charge alice
# and bob, and rebuilds from accounting bring back usage an administrator reset), so under Fair Tree
# carol's pending job ranks ahead of alice's whatever those tests left behind.
used=$(submit alice -p gpu -n1 --mem=4G --gpus=4 -t 2 --wrap 'sleep 5') || fail "sbatch as alice failed"
wait_for 60 "job $used to finish" job_finished "$used" || fail "job $used did not finish"
wait_for 30 "alice's usage" eval 'greater "$(raw_usage alice)" 0' || fail "alice's usage was never charged"
heavy=$(submit alice -p debug -n1 -t 1 --wrap true) || fail "sbatch as alice failed"
light=$(submit carol -p debug -n1 -t 1 --wrap true) || fail "sbatch as carol failed"
wait_pass && wait_pass || fail "no calculation pass"
before="$(queued_priority "$heavy") $(queued_priority "$light")"
note "priorities of alice's and carol's pending jobs: $before (alice's RawUsage $(raw_usage alice))"
greater "$(queued_priority "$light")" "$(queued_priority "$heavy")" || fail "carol's job is not ahead of alice's: $before"

stop_ctld TERM
identity=$(process_identity "$(cat "$CLUSTER_STATE/run/slurmdbd.pid")") || fail "slurmdbd is not running"
kill -TERM "${identity%%:*}"
wait_for 30 "slurmdbd to stop" eval "! identity_alive $identity" || fail "slurmdbd did not stop"
rm -f "$STATE_FILE"
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld without slurmdbd failed"
wait_for 30 "four passes that cannot rebuild the usage" eval '[ "$(skipped_passes)" -ge 4 ]' ||
    fail "slurmctld did not try to rebuild: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
expect_eq "$(failed_rebuilds)" 1 "errors for slurmdbd's silence over $(skipped_passes) passes"
during="$(queued_priority "$heavy") $(queued_priority "$light")"
note "while the usage is unknown: $during"
expect_eq "$during" "$before" "the pending jobs' priorities while the usage is unknown"

"$SLURM_SBIN"/slurmdbd || fail "slurmdbd did not start"
wait_for 60 "the usage to be rebuilt from accounting" ctld_log_has "usage rebuilt from accounting" ||
    fail "no rebuild after slurmdbd returned: $(slurmctld_log_since_start | grep fairway | tail -n 3 | tr '\n' ';')"
rebuilt=$(slurmctld_log_since_start | grep -F "usage rebuilt from accounting" | head -n 1)
note "$rebuilt"
unknown_for=$(printf '%s\n' "$rebuilt" | sed -n 's/.*the usage was unknown for \([0-9]*\) s.*/\1/p')
[ -n "$unknown_for" ] && [ "$unknown_for" -ge 6 ] || fail "the rebuild does not say how long the usage was unknown: $rebuilt"
wait_pass && wait_pass || fail "no calculation pass after the rebuild"
expect_eq "$(failed_rebuilds)" 1 "errors for slurmdbd's silence, the outage over"
after="$(queued_priority "$heavy") $(queued_priority "$light")"
note "after the rebuild: $after"
greater "$(queued_priority "$light")" "$(queued_priority "$heavy")" || fail "carol's job is not ahead of alice's after the rebuild: $after"
