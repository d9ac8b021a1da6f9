#!/bin/bash
# An administrator resets bob's usage (sacctmgr ... set RawUsage=0 on his account); accounting
# keeps the jobs.
# A rebuild from accounting (a corrupt state file, then a changed window) charges nothing from
# before the reset: RawUsage stays what ran after it. Before, every rebuild brought the reset usage
# back. The reset times are kept in StateSaveLocation/fairway_priority_resets, beside the usage;
# fairway-report reads them there and agrees with sshare.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
prio_test_setup "PriorityParameters=window=30:00,calc_period=0:02"
RESETS_FILE=$CLUSTER_STATE/ctld/fairway_priority_resets

run_job() {
    local id
    id=$(submit bob -p gpu -N1 -n1 --mem=4G --gpus=1 -t 2 --wrap "sleep $1") || fail "sbatch as bob failed"
    wait_for 60 "job $id to finish" job_finished "$id" || fail "job $id did not finish"
    echo "$id"
}
rebuilt_after() {
    wait_for 30 "the usage to be rebuilt from accounting" eval 'ctld_log_has "usage rebuilt from accounting" && state_newer_than_start' ||
        fail "no rebuild logged after $1: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
}
# One calc period (2 s) of a job's charge, and 1 for sshare's truncation.
slack_of() { awk -v c="$(job_charge "$1")" -v s="$(job_seconds "$1")" 'BEGIN { print (s > 0 ? 2 * c / s : 0) + 1 }'; }
within() { awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s) }'; }

before_job=$(run_job 10)
before=$(settled_usage bob) || fail "bob's RawUsage does not settle: $(raw_usage bob)"
# At least the job's charge, less what decay and sshare's truncation take from it.
at_least=$(awk -v c="$(job_charge "$before_job")" -v s="$(slack_of "$before_job")" 'BEGIN { print c - s }')
greater "$before" "$at_least" || greater "$before" 100 ||
    fail "bob's RawUsage $before does not hold job $before_job's $(job_charge "$before_job")"

# The account's reset: it reaches every association below it (t-priority-state.sh resets a user's).
sacctmgr -i modify account where name=biology set RawUsage=0 >/dev/null || fail "sacctmgr set RawUsage=0 failed"
wait_for 30 "fairway to forget bob's usage" ctld_log_has "was reset; forgetting its usage" ||
    fail "the reset was not taken over: $(slurmctld_log_since_start | grep fairway | tail -n 3 | tr '\n' ';')"
wait_pass || fail "no pass after the reset"
[ "$(raw_usage bob)" = 0 ] || fail "bob's RawUsage is $(raw_usage bob) right after the reset"
[ -s "$RESETS_FILE" ] || fail "no resets file at $RESETS_FILE"

after_job=$(run_job 4)
live=$(settled_usage bob) || fail "bob's RawUsage does not settle: $(raw_usage bob)"
slack=$(slack_of "$after_job")
within "$live" "$(job_charge "$after_job")" "$slack" ||
    fail "bob's RawUsage $live after the reset is not job $after_job's $(job_charge "$after_job") (± $slack)"

# A corrupt state file: rebuilt from accounting, which still holds job $before_job.
stop_ctld TERM
head -c 300 /dev/urandom >"$STATE_FILE"
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld after corrupting the state failed"
rebuilt_after "a corrupt state file"
wait_pass || fail "no pass after the rebuild"
note "corrupt state: bob's RawUsage $(raw_usage bob), live $live; $before before the reset (job $before_job: $(job_charge "$before_job"), job $after_job after it: $(job_charge "$after_job"))"
within "$(raw_usage bob)" "$live" "$slack" ||
    fail "after a rebuild bob's RawUsage is $(raw_usage bob), not the $live that ran after the reset (± $slack): the reset usage came back"

# A changed window: the saved usage no longer fits and is rebuilt.
"$CLUSTER" conf-set "PriorityParameters=window=31:00,calc_period=0:02" >/dev/null || fail "cluster conf-set window failed"
rebuilt_after "a changed window"
wait_pass || fail "no pass after the rebuild"
note "changed window: bob's RawUsage $(raw_usage bob), live $live"
within "$(raw_usage bob)" "$live" "$slack" ||
    fail "after a window change bob's RawUsage is $(raw_usage bob), not the $live that ran after the reset (± $slack)"
# fairway-report reads the resets file too (as root here): it shows what sshare shows, where
# counting accounting alone brought the reset usage back. Run as bob, who cannot read the file,
# it says so.
report=$FAIRWAY_BUILD/tools/fairway-report
[ -x "$report" ] || fail "fairway-report is not built at $report"
reported=$("$report" --parsable --noheader | awk -F'|' '$2 == "bob" { print $5; exit }')
note "fairway-report: bob's RawUsage $reported (sshare $(raw_usage bob))"
within "$reported" "$(raw_usage bob)" "$slack" ||
    fail "fairway-report shows bob's RawUsage $reported, sshare $(raw_usage bob) (± $slack): the report counts the reset usage"
as_user bob "$report" --parsable --noheader 2>&1 >/dev/null | grep -q "cannot read priority/fairway's RawUsage resets" ||
    fail "fairway-report run as bob does not say that it cannot read the resets"
undo_resets
