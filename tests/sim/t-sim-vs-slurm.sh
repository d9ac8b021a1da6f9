#!/bin/bash
# fairway-sim against real Slurm: tests/sim/vs-slurm.swf (46 jobs, seconds long) runs as sleeps on
# the test cluster under priority/fairway with a 2-minute window and a 1-minute half-life, then
# fairway-sim replays the same jobs from the cluster's own accounting (--accounting, through
# libslurmdb and again through sacct: the same JSON) under each kind of policy, with the same
# settings, cluster and slurmdbd's tree. The replay must hold every job as sacct shows it (id, user,
# submit time), and the start orders must agree on most job pairs, and agree better than FCFS's:
# with the priorities ignored the comparison fails (alice's flood would start before bob and carol).
#
# Expected differences, why the agreement is not 1: Slurm's calc passes run every 5 s from its own
# start, the sim's from the trace's time 0, so a job submitted between them may be ordered on older
# usage in one and newer in the other; Slurm starts jobs from several passes (at submission, at a
# job's end, backfill every second) and takes time to launch a job, the sim starts everything at the
# instant it fits; Slurm places tasks on nodes, the sim only counts cores.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
sim=$FAIRWAY_BUILD/tools/fairway-sim
here=$FAIRWAY_SRC/tests/sim
[ -x "$sim" ] || fail "fairway-sim is not built at $sim"
command -v jq >/dev/null || skip "jq is not installed"
require_cluster
wait_idle 60

WINDOW=2:00 HALF_LIFE_MINUTES=1 CALC_PERIOD=0:05
# Shares of job pairs started in the same order. Measured: 0.97 for fairway, 0.70 for FCFS (the sim
# with the priorities ignored), which fails both checks.
MIN_AGREEMENT=0.85 MIN_LEAD_OVER_FCFS=0.10
USERS=(unused alice bob carol)   # SWF user N
tmp=$(mktemp -d)
prio_configure "PriorityDecayHalfLife=$HALF_LIFE_MINUTES" "PriorityParameters=window=$WINDOW,calc_period=$CALC_PERIOD"
cleanup() { local status=$?; rm -rf "$tmp"; (exit "$status"); prio_restore; }
trap cleanup EXIT

# The sim starts from no usage: wait until earlier tests' usage has left the window.
no_usage() { local u; for u in alice bob carol; do [ "$(raw_usage "$u")" = 0 ] || return 1; done; }
wait_for 200 "earlier usage to leave the $WINDOW window" no_usage ||
    fail "RawUsage left: alice=$(raw_usage alice) bob=$(raw_usage bob) carol=$(raw_usage carol)"

# submit_trace SWF: submits every job at its submit time (seconds from now), a sleep of its run
# time, named vsN for trace job N; prints the Slurm job ids.
submit_trace() {
    local t0=$EPOCHREALTIME job submit run procs user delay
    while read -r job submit _ run procs _ _ _ _ _ _ user _; do
        delay=$(awk -v t0="$t0" -v now="$EPOCHREALTIME" -v at="$submit" 'BEGIN { d = t0 + at - now; print (d > 0 ? d : 0) }')
        sleep "$delay"
        submit "${USERS[$user]}" -p gpu -n "$procs" -t 1 -J "vs$job" --wrap "sleep $run" ||
            fail "sbatch of trace job $job failed"
    done < <(grep -v '^;' "$1")
}
from=$(date -u +%FT%TZ)
submit_trace "$here/vs-slurm.swf" >"$tmp/ids"
ids=$(paste -sd, "$tmp/ids")
wait_for 180 "the trace's jobs to finish" eval '[ -z "$(squeue -h -t PD,R,CG -j "$ids" -o %i 2>/dev/null)" ]' ||
    fail "jobs left: $(squeue -h -o '%i %j %T %r' | head -n 5 | tr '\n' ';')"

# What Slurm did: per job (submission order) its trace number, submit, start, end (epoch seconds).
slurm_jobs() { SLURM_TIME_FORMAT=%s sacct -n -X -P -j "$ids" -o JobID,JobName,Submit,Start,End,State; }
wait_for 30 "sacct to record the trace's jobs" eval '[ "$(slurm_jobs | grep -c "|COMPLETED$")" = 46 ]' ||
    fail "sacct: $(slurm_jobs | grep -vc COMPLETED) of the trace's jobs not COMPLETED: $(slurm_jobs | grep -v COMPLETED | head -n 3)"
sleep 1
to=$(date -u +%FT%TZ)
slurm_jobs | sort -t'|' -k1,1n >"$tmp/slurm.txt"
# Slurm's starts and submit times by job id, in seconds from the period's start (the sim's time 0).
t0=$(date -u -d "$from" +%s)
awk -F'|' -v t0="$t0" '{ printf "%d\t%d\t%d\n", $1, $4 - t0, $3 - t0 }' "$tmp/slurm.txt" >"$tmp/slurm-starts.tsv"

# The same jobs from the cluster's accounting, under FCFS, multifactor, fairway and a usage reset.
replay() {
    "$sim" --accounting "$from..$to" --nodes 4 --cores-per-node 16 --gpus-per-node 4 \
        --calc-period "$CALC_PERIOD" --weight-fairshare 100000 --weight-age 1000 --weight-jobsize 0 --max-age 7-0 \
        --billing cpu=1.244,gpu=8 --share-window 0:30 --share-step 0:10 \
        --policy fcfs --policy "fairway:window=$WINDOW,half_life=$HALF_LIFE_MINUTES:00" \
        --policy "multifactor:half_life=$HALF_LIFE_MINUTES:00" --policy reset:period=daily,half_life=0 "$@"
}
replay --json --starts "$tmp/sim-starts.tsv" >"$tmp/sim.json" || fail "fairway-sim --accounting failed"
replay --json --sacct >"$tmp/sim-sacct.json" || fail "fairway-sim --accounting --sacct failed"
cmp -s "$tmp/sim.json" "$tmp/sim-sacct.json" ||
    fail "libslurmdb and sacct replays differ: $(diff "$tmp/sim.json" "$tmp/sim-sacct.json" | head -n 6 | tr '\n' ' ')"

# Every job as accounting holds it: Slurm's ids and submit times, slurmdbd's accounts and shares.
expect_eq "$(jq -c '[.trace.jobs_replayed, .trace.jobs_read]' "$tmp/sim.json")" '[46,46]' "jobs replayed"
expect_eq "$(jq -c '[.policies[].overall.jobs] | unique' "$tmp/sim.json")" '[46]' "every policy runs every job"
expect_eq "$(jq -c '.policies[0].users | keys' "$tmp/sim.json")" '["alice","bob","carol"]' "users from accounting"
expect_eq "$(jq -c '.policies[1].shares.entities | keys' "$tmp/sim.json")" '["biology","physics"]' "slurmdbd's tree"
expect_eq "$(jq '[.policies[1].shares.series.physics[][2]] | max' "$tmp/sim.json")" 0.4 "physics's 40 shares of 100"
sim_jobs=$(awk -F'\t' '$1 == "fcfs" { print $2 "\t" $3 }' "$tmp/sim-starts.tsv" | sort -n)
expect_eq "$sim_jobs" "$(cut -f1,3 "$tmp/slurm-starts.tsv" | sort -n)" "job ids and submit times (s from $from)"

# same_order POLICY: of the job pairs both Slurm and the sim started at different seconds, the
# share started in the same order; then those pairs and the pairs tied in exactly one of them.
same_order() {
    awk -F'\t' -v policy="$1" 'NR == FNR { slurm[$1] = $2; next }
        $1 == policy { sim[$2] = $4; jobs[++n] = $2 }
        END {
            for (i = 1; i <= n; i++) for (k = i + 1; k <= n; k++) {
                a = jobs[i]; b = jobs[k]
                ds = slurm[a] - slurm[b]; dm = sim[a] - sim[b]
                if (ds == 0 && dm == 0) continue
                if (ds == 0 || dm == 0) { tied++; continue }
                ordered++; if ((ds > 0) == (dm > 0)) same++
            }
            printf "%.3f %d %d\n", same / ordered, ordered, tied
        }' "$tmp/slurm-starts.tsv" "$tmp/sim-starts.tsv"
}
read -r fairway pairs tied < <(same_order "$(awk -F'\t' '$1 ~ /^fairway/ { print $1; exit }' "$tmp/sim-starts.tsv")")
read -r fcfs fcfs_pairs _ < <(same_order fcfs)
note "same start order as Slurm: fairway $fairway of $pairs pairs ($tied tied in one only), fcfs $fcfs of $fcfs_pairs"
awk -v a="$fairway" -v min="$MIN_AGREEMENT" 'BEGIN { exit !(a >= min) }' ||
    fail "fairway-sim agrees with Slurm on $fairway of the pairs, below $MIN_AGREEMENT; Slurm: $(tr '\n' ' ' <"$tmp/slurm-starts.tsv")"
awk -v a="$fairway" -v f="$fcfs" -v lead="$MIN_LEAD_OVER_FCFS" 'BEGIN { exit !(a - f >= lead) }' ||
    fail "FCFS ($fcfs) agrees with Slurm almost as well as fairway ($fairway): the trace does not test the priorities"
exit 0
