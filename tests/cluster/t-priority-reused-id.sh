#!/bin/bash
# One job id, two runs: slurmctld loses its job state and starts its ids again (MaxJobId wraps the
# same way), so accounting holds two records under one id. A rebuild of the usage from accounting
# counts both runs, and so does fairway-report.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
prio_test_setup "PriorityParameters=window=30:00,calc_period=0:02"

rebuild_from_accounting() {
    stop_ctld TERM
    rm -f "$STATE_FILE"
    "$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld failed"
    wait_for 30 "the usage to be rebuilt from accounting" eval 'ctld_log_has "usage rebuilt from accounting" && state_newer_than_start' ||
        fail "no rebuild logged: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
}
# run_job SECONDS NODE: a job of bob's, waited for until accounting has this run finished (its id
# may already name another run there). The runs go to different nodes, since a slurmd refuses to
# launch a job id it has just seen finish.
run_job() {
    local id submitted
    id=$(submit bob -p gpu -w "$2" -n1 --mem=4G --gpus=1 -t 2 --wrap "sleep $1") || fail "sbatch as bob failed"
    submitted=$(scontrol show job "$id" | grep -o 'SubmitTime=[^ ]*' | cut -d= -f2)
    wait_for 60 "job $id to finish" run_finished "$id" "$submitted" || fail "job $id (submitted $submitted) did not finish"
    echo "$id"
}
run_finished() {
    sacct -n -X -D -P -j "$1" -o Submit,State | grep -qE "^$2\|(COMPLETED|FAILED|CANCELLED|TIMEOUT)"
}

first=$(run_job 8 node1)
# The next slurmctld that starts without job state gives out this id again.
"$CLUSTER" conf-set "FirstJobId=$first" >/dev/null || fail "cluster conf-set FirstJobId failed"
stop_ctld TERM
rm -f "$CLUSTER_STATE"/ctld/job_state*
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld without job state failed"
second=$(run_job 4 node2)
expect_eq "$second" "$first" "the job id given after slurmctld lost its job state"
records=$(sacct -n -X -D -P -j "$first" -o JobIDRaw,Submit,ElapsedRaw,State | tr '\n' ' ')
note "job $first in accounting: $records"
[ "$(sacct -n -X -D -P -j "$first" -o State,ElapsedRaw | grep -c '^COMPLETED|[1-9]')" -ge 2 ] ||
    fail "accounting does not hold two completed runs of job $first: $records"

rebuild_from_accounting
want=$(recorded_usage bob -D)
newest_only=$(recorded_usage bob)
wait_for 10 "bob's rebuilt usage" eval 'close_to "$(raw_usage bob)" "$want" 3'
note "bob's rebuilt RawUsage $(raw_usage bob); accounting, every record: $want, newest record of each id: $newest_only"
close_to "$(raw_usage bob)" "$want" 3 || fail "bob's rebuilt RawUsage $(raw_usage bob) is not the $want of every record"

report=$FAIRWAY_BUILD/tools/fairway-report
[ -x "$report" ] || fail "fairway-report is not built at $report"
for source in "" "--sacct"; do
    reported=$("$report" --parsable --noheader $source | awk -F'|' '$2 == "bob" { print $5; exit }')
    note "fairway-report ${source:-(libslurmdb)}: bob's RawUsage $reported"
    close_to "$reported" "$want" 3 || fail "fairway-report ${source:-(libslurmdb)} shows bob's RawUsage $reported, not $want"
done
