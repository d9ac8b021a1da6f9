#!/bin/bash
# slurmdbd is away while jobs start and end, and the usage is rebuilt from accounting just after
# it returns. slurmctld then sends each job's start at once, with the job's state but no end, and
# its queued end some seconds later; a rebuild in between must not charge the job as if it still
# ran (1: slurmctld stays up, a reconfigure asks for the rebuild), nor forget a job accounting has
# not heard of yet (2: slurmctld restarts without fairway's state). Either way the usage matches
# accounting, once the end has arrived, within one calc period of the job's charge. fairway-report,
# made just after slurmdbd returned, counts the job or says that its totals are provisional.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
calc_period=2
prio_test_setup "PriorityParameters=window=30:00,calc_period=0:0$calc_period"
# However the test ends, slurmdbd runs again before the configuration is restored.
trap restore_with_daemons EXIT

billing=10   # 1 CPU + 4G x 0.25/G + 1 GPU x 8 under the cluster's TRESBillingWeights
allowed=$((calc_period * billing))

ctld_job_state() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z]*' | cut -d= -f2; }
recorded_times() { sacct -n -X -P -j "$1" -o Start,End | head -n 1; }
start_recorded_without_end() { [[ $(recorded_times "$1") =~ ^[0-9].*\|Unknown$ ]]; }
end_recorded() { [[ $(recorded_times "$1") =~ \|[0-9] ]]; }
log_lines() { wc -l <"$CLUSTER_STATE/log/slurmctld.log"; }
log_after() { tail -n +"$(($1 + 1))" "$CLUSTER_STATE/log/slurmctld.log"; }
rebuilt_after() { log_after "$1" | grep -qF "usage rebuilt from accounting"; }

# job_while_dbd_away USER: runs a 5-second job while slurmdbd is stopped; prints its id.
job_while_dbd_away() {
    local job
    stop_dbd
    job=$(submit "$1" -p gpu -n1 --mem=4G --gpus=1 -t 2 --wrap 'sleep 5') || fail "sbatch as $1 failed"
    wait_for 60 "job $job to complete" eval '[ "$(ctld_job_state "$job")" = COMPLETED ]' ||
        fail "job $job did not complete: $(ctld_job_state "$job")"
    echo "$job"
}
# expect_usage_as_recorded USER JOB LOG_LINE: once accounting has JOB's end, USER's settled usage is
# accounting's (the rebuilds logged after LOG_LINE are counted).
expect_usage_as_recorded() {
    local have want
    wait_for 60 "accounting to record the end of job $2" end_recorded "$2" ||
        fail "accounting has job $2 as $(recorded_times "$2")"
    have=$(settled_usage "$1") || fail "$1's RawUsage does not settle: $(raw_usage "$1")"
    want=$(recorded_usage "$1" -D)
    note "$1's RawUsage after the rebuild: $have; accounting: $want (allowed: $allowed more or less); rebuilds since the trigger: $(log_after "$3" | grep -cF "usage rebuilt from accounting")"
    awk -v h="$have" -v w="$want" -v a="$allowed" 'BEGIN { d = h - w; if (d < 0) d = -d; exit !(d <= a) }' ||
        fail "$1's RawUsage $have after the rebuild is not within $allowed of accounting's $want"
}

# report_at_once USER: fairway-report just after slurmdbd returned, while the job's start and end
# may still be queued; USER's RawUsage in it and its notes are kept for
# expect_report_counted_or_provisional.
report_notes=$(mktemp)
report_at_once() {
    at_once_usage=$("$FAIRWAY_BUILD/tools/fairway-report" --parsable --noheader 2>"$report_notes" | awk -F'|' -v u="$1" '$2 == u { print $5; exit }')
    at_once_record=$(recorded_times "$job")
}
# expect_report_counted_or_provisional USER: the report cannot count what accounting had not
# stored yet, so it either counted the job (at most one calc period short of accounting, now that
# the end is stored) or said that its totals were provisional.
expect_report_counted_or_provisional() {
    local recorded
    recorded=$(recorded_usage "$1" -D)
    note "fairway-report just after slurmdbd returned (job $job in accounting: ${at_once_record:-no record}): $1's RawUsage ${at_once_usage:-none}, accounting now $recorded; $(tr '\n' ' ' <"$report_notes")"
    awk -v a="${at_once_usage:-0}" -v b="$recorded" -v s="$allowed" 'BEGIN { exit !(b - a <= s) }' ||
        grep -qF "the totals are provisional" "$report_notes" ||
        fail "fairway-report showed $1's RawUsage ${at_once_usage:-none} (accounting: $recorded) and did not say it was provisional"
}

# 1. slurmctld stays up: the rebuild reads the job's start, not yet its end. Whether the start
# comes first is up to slurmctld's two senders (the thread that sends starts tries every 5 s, the
# queue's agent waits 10 s after a failure), so the outage is repeated until it does (on 22.05).
for attempt in 1 2 3 4; do
    job=$(job_while_dbd_away alice)
    start_dbd
    report_at_once alice
    wait_for 30 "accounting to have job $job's start" eval 'start_recorded_without_end "$job" || end_recorded "$job"'
    start_recorded_without_end "$job" && break
    note "attempt $attempt: job $job's start and end reached accounting together"
done
# 22.05 sends the start first in most outages; 24.11 was seen sending both together every time,
# and then the rebuild can only read the whole run: the usage must still match accounting.
if ! start_recorded_without_end "$job"; then
    [ "$(scontrol --version | awk '{ print $2 }' | cut -d. -f1)" = 22 ] &&
        fail "accounting never had a job's start without its end"
    note "this Slurm sent each job's start and end together: the rebuild reads whole runs"
fi
# fairway-report, made while the end is still queued, asks slurmctld: the job ended, so it is
# charged to its end, as sshare shows it, not up to the report's time.
if start_recorded_without_end "$job"; then
    reported=$("$FAIRWAY_BUILD/tools/fairway-report" --parsable --noheader | awk -F'|' '$2 == "alice" { print $5; exit }')
    shown=$(raw_usage alice)
    note "fairway-report while job $job's end is queued ($(recorded_times "$job")): alice's RawUsage $reported, sshare $shown"
    awk -v a="$reported" -v b="$shown" -v s="$((allowed + 1))" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s) }' ||
        fail "fairway-report shows alice's RawUsage $reported, sshare $shown: job $job is charged past its end"
fi
before=$(log_lines)
sed -i "s|^PriorityParameters=.*|PriorityParameters=window=31:00,calc_period=0:0$calc_period|" "$SLURM_CONF"
scontrol reconfigure || fail "scontrol reconfigure failed"
wait_for 30 "the usage to be rebuilt from accounting" rebuilt_after "$before" ||
    fail "no rebuild logged: $(log_after "$before" | grep fairway | tr '\n' ';')"
note "job $job at the rebuild: $(recorded_times "$job") in accounting; $(log_after "$before" | grep -F 'read the usage of' | sed 's/.*priority/priority/')"
expect_usage_as_recorded alice "$job" "$before"
expect_report_counted_or_provisional alice

# 2. slurmctld restarts just after slurmdbd, without fairway's state: the rebuild comes before
# any news of the job reaches accounting.
job=$(job_while_dbd_away bob)
before=$(log_lines)
stop_ctld TERM
rm -f "$STATE_FILE"
start_dbd
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld failed"
report_at_once bob
wait_for 30 "the usage to be rebuilt from accounting" eval 'ctld_log_has "usage rebuilt from accounting" && state_newer_than_start' ||
    fail "no rebuild logged: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
note "$(slurmctld_log_since_start | grep -F 'read the usage of' | sed 's/.*priority/priority/' | tr '\n' ';')"
expect_usage_as_recorded bob "$job" "$before"
expect_report_counted_or_provisional bob
rm -f "$report_notes"
