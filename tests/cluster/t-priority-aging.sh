#!/bin/bash
# While only time goes by, a calculation pass recomputes just the jobs whose integer priority aging
# has changed (fairshare/age_calendar.h), and every job's priority still follows its age exactly;
# sprio's factors add up to the priority slurmctld stores; an updated job is recomputed as
# slurmctld asks for its priority, and the passes stay narrowed.
# Age is the only weighted factor: PriorityWeightAge=60 over PriorityMaxAge=10 minutes is 0.1 a
# second, so each job's priority steps once every 10 s, and with a pass a second about a tenth of
# the jobs are due in each. Backfill runs every second (the cluster's bf_interval), marking its
# own changes, which must not make the passes walk all jobs. With walk_shortcuts=no (the default
# where the release's behaviour was not checked) every pass walks all jobs instead, and the
# priorities follow age just the same.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

WEIGHT=60 MAX_AGE_S=600 JOBS=10
prio_test_setup "PriorityParameters=calc_period=0:01" PriorityWeightAge=$WEIGHT PriorityMaxAge=10 \
    PriorityWeightFairshare=0 DebugFlags=Priority SlurmctldDebug=verbose
scontrol update PartitionName=debug State=DOWN || fail "cannot set partition debug down"

passes() { slurmctld_log_since_start | grep -c "priority/fairway: pass .* $1"; }
due_walks() { passes 'walked the jobs due by age'; }
full_walks() { passes 'walked all jobs'; }
shortcuts=$(walk_shortcuts) || fail "slurmctld logged no walk_shortcuts setting"
note "walk_shortcuts=$shortcuts"
# The walks the passes make while only time goes by: those of the jobs due (with shortcuts), or of all jobs.
if [ "$shortcuts" = yes ]; then
    usual_walks() { due_walks; }
    other_walks() { full_walks; }
    usual="walked only the jobs due"
else
    usual_walks() { full_walks; }
    other_walks() { due_walks; }
    usual="walked all jobs"
fi

# Jobs submitted over about 5 s, so that their steps fall in different passes.
jobs=()
for ((i = 0; i < JOBS; i++)); do
    jobs+=("$(submit "$([ $((i % 2)) = 0 ] && echo alice || echo bob)" -p debug -n1 -t 1 --wrap true)") ||
        fail "sbatch failed"
    sleep 0.5
done
# The scheduler sets a job's accrue time when it first looks at it (Slurm stamps no change then).
accrue_time() { scontrol show job "$1" | grep -o 'AccrueTime=[^ ]*' | cut -d= -f2; }
declare -A accrue nice
for job in "${jobs[@]}"; do
    wait_for 30 "job $job's accrue time" eval '[ "$(accrue_time '"$job"')" != Unknown ]' ||
        fail "job $job has no accrue time: $(scontrol show job "$job" | head -n 8 | tr '\n' ' ')"
    accrue[$job]=$(date -d "$(accrue_time "$job")" +%s)
done
wait_for 30 "a pass that $usual" eval '[ "$(usual_walks)" -gt 0 ]' ||
    fail "no pass $usual: $(slurmctld_log_since_start | grep 'priority/fairway: pass' | tail -3)"

# expected_range JOB FROM TO [NICE]: the priorities the formula gives between the two times.
expected_range() {
    awk -v w=$WEIGHT -v m=$MAX_AGE_S -v a="${accrue[$1]}" -v f="$2" -v t="$3" -v n="${4:-0}" 'function p(x) {
            x = int(w * (x - a) / m - n); return x < 1 ? 1 : x }
        BEGIN { print p(f), p(t) }'
}

# check_priorities: every job's stored priority is what the formula gives at a time between the
# last passes before the query (up to 3 s before it, for a slow pass) and the query's end.
check_priorities() {
    local before after job prio lo hi
    before=$(date +%s)
    declare -A stored
    while read -r job prio; do stored[$job]=$prio; done < <(squeue -h -p debug -t PD -o '%i %Q')
    after=$(date +%s)
    for job in "${jobs[@]}"; do
        read -r lo hi < <(expected_range "$job" $((before - 3)) "$after" "${nice[$job]:-0}")
        prio=${stored[$job]:-none}
        [ "$prio" != none ] && [ "$prio" -ge "$lo" ] && [ "$prio" -le "$hi" ] ||
            fail "job $job (accrued $((before - accrue[$job])) s ago) has priority $prio, expected $lo..$hi"
    done
}

# sprio_matches_squeue: sprio's sum of the factors is each job's stored priority (a pass between
# the two queries may move one: retried).
sprio_matches_squeue() {
    [ "$(sprio -h -p debug -o '%.10i %.10Y' | awk '{ print $1, $2 }' | sort)" = \
      "$(squeue -h -p debug -t PD -o '%.10i %.10Q' | awk '{ print $1, $2 }' | sort)" ]
}

due_before=$(due_walks) full_before=$(full_walks)
for ((round = 0; round < 12; round++)); do
    check_priorities
    wait_for 10 "sprio's sums to match squeue's priorities" sprio_matches_squeue ||
        fail "sprio and squeue disagree: $(diff <(sprio -h -p debug -o '%.10i %.10Y') <(squeue -h -p debug -t PD -o '%.10i %.10Q') | head -n 6 | tr '\n' ' ')"
    sleep 3
done
due=$(($(due_walks) - due_before)) full=$(($(full_walks) - full_before))
note "over $((round * 3)) s: $due passes walked only the jobs due, $full walked all jobs"
note "$(slurmctld_log_since_start | grep 'priority/fairway: pass' | tail -n 1 | sed 's/.*pass/pass/')"
if [ "$shortcuts" = yes ]; then
    [ "$due" -ge $((2 * full)) ] && [ "$due" -ge 10 ] ||
        fail "too few passes walked only the jobs due ($due, and $full walked all jobs)"
else
    [ "$due" = 0 ] && [ "$full" -ge 10 ] || fail "without shortcuts $due passes walked only the jobs due, $full all jobs"
fi
last_priorities=$(squeue -h -p debug -t PD -o '%i %Q' | sort)
sleep 12
[ "$(squeue -h -p debug -t PD -o '%i %Q' | sort)" != "$last_priorities" ] || fail "no priority grew in 12 s"

# A change of a job (nice -100, as an operator may set) is recomputed as slurmctld asks for its
# priority: right at once, and the passes after it still walk as before (only the jobs due, with shortcuts).
other_before=$(other_walks) usual_before=$(usual_walks)
scontrol update JobId="${jobs[0]}" Nice=-100 || fail "scontrol update Nice failed"
prio=$(squeue -h -j "${jobs[0]}" -o %Q) now=$(date +%s)
nice[${jobs[0]}]=-100
read -r lo hi < <(expected_range "${jobs[0]}" $((now - 3)) "$now" -100)
[ "$prio" -ge "$lo" ] && [ "$prio" -le "$hi" ] || fail "job ${jobs[0]} with nice -100 has priority $prio, expected $lo..$hi"
wait_for 10 "two passes that $usual after the update" eval '[ "$(usual_walks)" -ge '"$((usual_before + 2))"' ]' ||
    fail "the passes after the update did not walk as before ($usual)"
[ "$(other_walks)" = "$other_before" ] ||
    fail "a pass after the update did not walk as before: $(slurmctld_log_since_start | grep 'priority/fairway: pass' | tail -n 1)"
check_priorities
note "nice -100: job ${jobs[0]} at $prio at once; the passes still $usual"
