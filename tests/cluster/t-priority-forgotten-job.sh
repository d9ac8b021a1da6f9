#!/bin/bash
# A job that runs while slurmctld cannot save its state (an unwritable state directory), then a
# kill -9: the restarted slurmctld never knew the job, and fairway recovers its own older state
# file. 1: the job ended before the kill. Accounting has the job, so fairway charges it at the
# first pass (within 10% of its billing x elapsed); before, its usage was lost. 2: the job still
# runs at the kill and slurmdbd is away when slurmctld restarts. Its record stays open (the
# restarted slurmctld aborts a job it does not know as its node registers), and records queue up
# for slurmdbd: fairway charges the job once that queue has drained, up to slurmctld's restart,
# once; before, it charged the open record up to the last time the queue had been empty since the
# restart (never: nothing; else that time, however long slurmdbd stayed away). fairway-report
# charges it the same (before, up to the report's time). 3: slurmctld restarts once more, after the
# job's time limit: fairway remembered the run as forgotten at the first restart (in
# StateSaveLocation/fairway_priority_forgotten), so neither the report nor a rebuild from accounting
# charges the open record further (before: up to its time limit, and without one up to the latest
# restart).
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

prio_test_setup "PriorityParameters=window=30:00,calc_period=0:02"
ctld_dir=$CLUSTER_STATE/ctld
srun_pid=
restore_writable() {
    local status=$?
    chmod u+w "$ctld_dir"
    [ -n "$srun_pid" ] && kill "$srun_pid" 2>/dev/null
    "$CLUSTER" start >/dev/null 2>&1 || echo "warning: cluster start failed" >&2
    (exit "$status")
    prio_restore
}
trap restore_writable EXIT

at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# 1. The job ended before the kill.
before=$(settled_usage bob) || fail "bob's RawUsage does not settle: $(raw_usage bob)"
# slurmctld runs as SlurmUser (slurm): from now on it saves neither its job state nor fairway's.
chmod a-w "$ctld_dir"
# srun: a batch job's script could not be written either.
as_user bob srun -p gpu -N1 --gpus=2 -t 2 sleep 8 || fail "srun as bob failed"
job=$(sacct -n -X -P -u bob -S now-5minutes -o JobIDRaw | tail -n 1)
wait_for 60 "job $job to finish" job_finished "$job" || fail "job $job did not finish"
charge=$(job_charge "$job")
greater "$charge" 0 || fail "accounting shows no billing for job $job"
# Most of it (the pass may not have charged its last seconds yet; no state is saved, so no pass shows).
charged=$(awk -v b="$before" -v c="$charge" 'BEGIN { print b + 0.9 * c }')
wait_for 30 "the job to be charged in memory" eval 'at_least "$(raw_usage bob)" "$charged"' ||
    fail "job $job was never charged (bob's RawUsage $(raw_usage bob), was $before)"
sleep 3
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

# 2. The job still runs at the kill; slurmdbd away across the restart.
before=$(settled_usage bob) || fail "bob's RawUsage does not settle: $(raw_usage bob)"
chmod a-w "$ctld_dir"
as_user bob srun -p gpu -N1 --gpus=2 -t 1 sleep 100 >/dev/null 2>&1 &
srun_pid=$!
running_job() { squeue -h -u bob -t R -o %i | head -n 1; }
wait_for 30 "bob's job to run" eval '[ -n "$(running_job)" ]' || fail "bob's job does not run"
job=$(running_job)
sleep 6
stop_dbd
killed_at=$(date +%s)
stop_ctld KILL
chmod u+w "$ctld_dir"
restarted_at=$(date +%s)
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld after kill -9 failed"
up_at=$(date +%s)
kill "$srun_pid" 2>/dev/null
scontrol show job "$job" >/dev/null 2>&1 && fail "the restarted slurmctld still knows job $job: nothing was forgotten"
sleep 10 # slurmdbd stays away: records queue up
start_dbd
start=$(date -d "$(sacct -n -X -P -j "$job" -o Start | head -n 1)" +%s) || fail "no start of job $job in accounting"
billing=$(sacct -n -X -P -j "$job" -o AllocTRES | grep -o 'billing=[0-9]*' | head -n 1 | cut -d= -f2)
greater "$billing" 0 || fail "accounting shows no billing for job $job"
[ "$(sacct -n -X -P -j "$job" -o End | head -n 1)" = Unknown ] || fail "job $job's record has an end: $(sacct -n -X -P -j "$job" -o End,State)"
low=$(awk -v b="$before" -v r="$billing" -v s="$start" -v k="$killed_at" 'BEGIN { print b + 0.9 * r * (k - s) }')
high=$(awk -v b="$before" -v r="$billing" -v s="$start" -v u="$up_at" 'BEGIN { print b + r * (u - s + 2) + 1 }')
wait_for 30 "bob's usage to include the forgotten running job" eval 'at_least "$(raw_usage bob)" "$low"' ||
    fail "bob's RawUsage $(raw_usage bob): job $job's $(awk -v r="$billing" -v s="$start" -v k="$killed_at" 'BEGIN { print r * (k - s) }') billing-seconds before the kill are missing (before it $before)"
after=$(settled_usage bob) || fail "bob's RawUsage does not settle: $(raw_usage bob)"
note "forgotten running job $job (billing $billing, started $start, slurmctld killed at $killed_at, restarted $restarted_at-$up_at): bob's RawUsage $before before it, $after after; allowed $low to $high"
at_least "$high" "$after" || fail "bob's RawUsage $after is above $high: job $job was charged past slurmctld's restart"
# fairway-report asks slurmctld too: the open record of a job it does not know is charged up to its
# start, as the plugin charges it, not up to the report's time.
wait_for 30 "slurmctld's queue for slurmdbd to drain" dbd_queue_empty || fail "slurmctld's queue for slurmdbd does not drain"
report=$FAIRWAY_BUILD/tools/fairway-report
reported=$("$report" --parsable --noheader | awk -F'|' '$2 == "bob" { print $5; exit }')
shown=$(raw_usage bob)
slack=$((2 * billing + 1)) # one calc period of the job's charge, and 1 for sshare's truncation
note "fairway-report: bob's RawUsage $reported, sshare $shown (± $slack)"
awk -v a="$reported" -v b="$shown" -v s="$slack" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s) }' ||
    fail "fairway-report shows bob's RawUsage $reported, sshare $shown (± $slack): job $job's open record is charged past slurmctld's restart"

# 3. slurmctld restarts again after the job's time limit has passed. The open record now started
# before this slurmctld's start too; it is charged up to the first restart, as remembered, by the
# plugin's look for forgotten runs, by the report and by a rebuild (before: up to the limit,
# 1 minute + OverTimeLimit + KillWait, or without one up to the latest restart, more at each).
longest=$((60 + $(scontrol show config | awk '/^OverTimeLimit/ { print $3 + 0 }') * 60 + $(scontrol show config | awk '/^KillWait/ { print $3 + 0 }')))
sleep $(( start + longest + 30 - $(date +%s) > 0 ? start + longest + 30 - $(date +%s) : 0 ))
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld past the job's time limit failed"
after_restart=$(settled_usage bob) || fail "bob's RawUsage does not settle: $(raw_usage bob)"
close_to "$after_restart" "$after" 5 || fail "bob's RawUsage $after_restart after a later restart, $after before: the open record was charged again"
[ -s "$CLUSTER_STATE/ctld/fairway_priority_forgotten" ] || fail "no forgotten runs file in $CLUSTER_STATE/ctld"
within() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s) }'; }
reported=$("$report" --parsable --noheader | awk -F'|' '$2 == "bob" { print $5; exit }')
note "after a later restart ($(( $(date +%s) - start )) s after the job started, its limit $longest s): bob's RawUsage $after_restart in sshare, $reported in fairway-report (± $slack)"
within "$reported" "$after_restart" "$slack" ||
    fail "fairway-report shows bob's RawUsage $reported, sshare $after_restart (± $slack): job $job's open record is charged past the restart that forgot it"
# The usage state lost now: the rebuild from accounting charges the record as far as the report does.
rebuild_usage
wait_pass || fail "no pass after the rebuild"
rebuilt=$(raw_usage bob)
note "rebuilt from accounting after the later restart: bob's RawUsage $rebuilt (report $reported, ± $slack)"
within "$rebuilt" "$reported" "$slack" || fail "the rebuild charges bob $rebuilt, the report $reported: job $job's open record is charged past the restart that forgot it"
# The record stays open (a runaway job): fix it, as an administrator would, so that later tests'
# rebuilds do not charge it again. Fixed, its end is its start: accounting now holds none of what
# the passes charged for it, which the live usage keeps. Later tests compare the two
# (fairway-report against sshare), so the usage is rebuilt from accounting, and saved, first.
sacctmgr -i list runawayjobs >/dev/null 2>&1
rebuild_usage
wait_pass || fail "no pass after the rebuild"
