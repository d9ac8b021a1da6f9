#!/bin/bash
# Bad PriorityParameters: on `scontrol reconfigure` priority/fairway logs an error naming the key
# and keeps its previous configuration (slurmctld stays up); at startup slurmctld stops with a
# fatal message naming the key. At startup it warns that PriorityUsageResetPeriod is ignored, and
# does not warn about GPU billing when the partitions bill GPUs.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
require_cluster

startup_line=$(($(wc -l <"$CLUSTER_STATE/log/slurmctld.log") + 1))
prio_configure "PriorityParameters=window=30:00,calc_period=0:02" "PriorityUsageResetPeriod=WEEKLY"
conf=$CLUSTER_STATE/etc/slurm.conf
bad_conf=$CLUSTER_STATE/etc/slurm-bad-priority.conf
bad_log=$CLUSTER_STATE/log/slurmctld-bad-priority.log
trap 'rm -f "$bad_conf" "$bad_log"; prio_restore' EXIT

# with_parameters VALUE: slurm.conf with PriorityParameters replaced.
with_parameters() { sed "s|^PriorityParameters=.*|PriorityParameters=$1|" "$conf"; }

# 0. The startup warnings.
startup_log() { tail -n +"$startup_line" "$CLUSTER_STATE/log/slurmctld.log"; }
wait_for 30 "priority/fairway to load" eval 'startup_log | grep -qF "priority/fairway: loaded in slurmctld"' ||
    fail "priority/fairway's startup line is not in the log"
warning=$(startup_log | grep -F "PriorityUsageResetPeriod is ignored" | tail -n 1)
note "$warning"
[ -n "$warning" ] || fail "no warning that PriorityUsageResetPeriod is ignored"
wait_pass   # GPU billing is checked at the first pass, before it writes the state file
startup_log | grep -F "GPUs carry no billing weight" && fail "GPU billing warning although the partitions bill GPUs"

# 1. scontrol reconfigure with a bad value keeps the running configuration.
log_lines_before=$(wc -l <"$CLUSTER_STATE/log/slurmctld.log")
new_log() { tail -n +"$((log_lines_before + 1))" "$CLUSTER_STATE/log/slurmctld.log"; }
new_log_has() { new_log | grep -qF -- "$1"; }
with_parameters "window=soon" >"$conf.new" && mv -f "$conf.new" "$conf"
scontrol reconfigure || fail "scontrol reconfigure failed"
wait_for 30 "the rejected PriorityParameters to be logged" new_log_has "keeping the previous one" ||
    fail "no error logged: $(new_log | grep fairway | tail -n 3 | tr '\n' ';')"
line=$(new_log | grep -F "keeping the previous one" | tail -n 1)
note "$line"
expect_match "$line" "key 'window'" "the reconfigure error"
new_log_has "priority/fairway: reconfigured" && fail "priority/fairway accepted the bad configuration"
scontrol ping | grep -q 'is UP' || fail "slurmctld is not up after the bad reconfigure"
# Still calculating with the old settings: a pass rewrites the state file.
touch -d '-1 second' "$STATE_FILE"; stamp=$(stat -c %Y "$STATE_FILE")
wait_for 20 "a calculation pass after the bad reconfigure" eval '[ "$(stat -c %Y "$STATE_FILE")" -gt "$stamp" ]' ||
    fail "no calculation pass after the bad reconfigure"

# 2. Starting slurmctld with an unknown key fails with a message naming it.
pid=$(slurmctld_pid)
began=$SECONDS
kill -TERM "$pid"
wait_for 30 "slurmctld to stop" eval "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status" ||
    fail "slurmctld did not stop"
note "slurmctld stopped in $((SECONDS - began))s"
with_parameters "window=1-0,windw=2-0" | sed "s|^SlurmctldLogFile=.*|SlurmctldLogFile=$bad_log|" >"$bad_conf"
timeout 60 "$SLURM_SBIN"/slurmctld -D -f "$bad_conf" >/dev/null 2>&1
status=$?
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "slurmctld with bad PriorityParameters exited with $status"
line=$(grep -F fatal "$bad_log" | tail -n 1)
note "$line"
expect_match "$line" "priority/fairway.*key 'windw'" "the startup error"
