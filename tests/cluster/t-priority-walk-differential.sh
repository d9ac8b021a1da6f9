#!/bin/bash
# The passes' shortcuts (priority/walk_skip.cpp) change no priority: after a random run of job
# submissions (one partition or two), updates, holds and releases, jobs that start and end,
# cancellations and association and QOS changes, passes with walk_shortcuts=yes leave every pending
# job with the priorities, per partition, that passes walking every job (walk_shortcuts=no) give.
# Both modes run on the release the cluster runs, whatever its default. No decay (half-life 0;
# Slurm then wants a PriorityUsageResetPeriod, a yearly one) and a one-minute PriorityMaxAge make
# the priorities stop moving once the run is over, so the two snapshots may be compared exactly. FAIRWAY_SEED=N replays a run (the seed is printed).
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

SEED=${FAIRWAY_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
RANDOM=$SEED
note "seed $SEED (FAIRWAY_SEED=$SEED replays this run)"
STEPS=${FAIRWAY_DIFFERENTIAL_STEPS:-60}
USERS=(alice bob carol)

settings="calc_period=0:01,window=14-0"
prio_test_setup "PriorityParameters=$settings,walk_shortcuts=yes" PriorityDecayHalfLife=0 PriorityUsageResetPeriod=YEARLY \
    PriorityMaxAge=1 PriorityWeightAge=1000 PriorityWeightFairshare=10000 PriorityWeightQOS=1000 PriorityWeightPartition=1000 \
    PriorityWeightJobSize=1000 DebugFlags=Priority SlurmctldDebug=verbose \
    "PartitionName=down1 Nodes=node[1-4] MaxTime=30 State=DOWN PriorityJobFactor=1" \
    "PartitionName=down2 Nodes=node[1-4] MaxTime=30 State=DOWN PriorityJobFactor=5"
log=$(mktemp /tmp/t-priority-walk-differential.XXXXXX)
restore() {
    local status=$? user
    rm -f "$log"
    sacctmgr -i -Q modify qos normal set Priority=0 >/dev/null 2>&1
    for user in "${USERS[@]}"; do sacctmgr -i -Q modify user "$user" set Fairshare=1 >/dev/null 2>&1; done
    (exit "$status")
    prio_restore
}
trap restore EXIT
[ "$(walk_shortcuts)" = yes ] || fail "slurmctld does not run with walk_shortcuts=yes"

# shellcheck disable=SC2054  # down1,down2: a job for both partitions
PARTITIONS=(down1 down2 down1,down2)
pending=()   # jobs submitted to the down partitions: they pend until the end
# pick ITEM...: sets `picked` to one of the items. Every draw from RANDOM happens in this shell
# (a subshell reseeds it), so that a seed replays the same run.
pick() { picked=${*:1 + RANDOM % $#:1}; }

op_submit() {
    local job user partition tasks nice
    pick "${USERS[@]}"; user=$picked
    pick "${PARTITIONS[@]}"; partition=$picked
    tasks=$((1 + RANDOM % 4)) nice=$((RANDOM % 20))
    job=$(submit "$user" -p "$partition" -n "$tasks" -t 5 --nice="$nice" --wrap true) || fail "sbatch failed"
    pending+=("$job")
    echo "submit $job $user $partition -n $tasks --nice=$nice"
}
op_update() {
    [ ${#pending[@]} -gt 0 ] || return 0
    local job
    pick "${pending[@]}"; job=$picked
    pick "${PARTITIONS[@]}"
    pick "Nice=$((RANDOM % 50))" "TimeLimit=$((1 + RANDOM % 20))" "NumTasks=$((1 + RANDOM % 4))" "Partition=$picked"
    scontrol update JobId="$job" "$picked" 2>/dev/null
    echo "update $job $picked"
}
op_hold() {
    [ ${#pending[@]} -gt 0 ] || return 0
    local job
    pick "${pending[@]}"; job=$picked
    pick hold release release
    scontrol "$picked" "$job" 2>/dev/null
    echo "$picked $job"
}
op_start() {
    local job user tasks seconds
    pick "${USERS[@]}"; user=$picked
    tasks=$((1 + RANDOM % 8)) seconds=$((1 + RANDOM % 4))
    job=$(submit "$user" -p gpu -n "$tasks" -t 1 --wrap "sleep $seconds") || fail "sbatch to gpu failed"
    echo "start $job $user -n $tasks for ${seconds}s"
}
op_cancel() {
    [ ${#pending[@]} -gt 0 ] || return 0
    local job
    pick "${pending[@]}"; job=$picked
    scancel "$job"
    mapfile -t pending < <(printf '%s\n' "${pending[@]}" | grep -vx "$job")
    echo "cancel $job"
}
op_association() {
    local user share
    pick "${USERS[@]}"; user=$picked
    share=$((1 + RANDOM % 9))
    if ((RANDOM % 2)); then
        sacctmgr -i -Q modify user "$user" set Fairshare="$share" >/dev/null || fail "sacctmgr modify user failed"
        echo "fairshare $user $share"
    else
        sacctmgr -i -Q modify qos normal set Priority="$share" >/dev/null || fail "sacctmgr modify qos failed"
        echo "qos-priority $share"
    fi
}

ops=(op_submit op_submit op_submit op_update op_update op_hold op_start op_start op_cancel op_association)
for ((step = 0; step < STEPS; step++)); do
    pick "${ops[@]}"
    "$picked" >>"$log"
    sleep "0.$((RANDOM % 5))"
done
note "$STEPS operations: $(awk '{ n[$1]++ } END { for (o in n) printf "%s %d, ", o, n[o] }' "$log")"
last_op=$SECONDS

# The run is over once no job runs and every pending job's age reached PriorityMaxAge.
wait_for 120 "the started jobs to end" eval '[ -z "$(squeue -h -t R,CG -o %i)" ]' ||
    fail "jobs still running: $(squeue -h -t R,CG -o '%i %T' | tr '\n' ' ')"
while [ $((SECONDS - last_op)) -lt 70 ]; do sleep 1; done
# priorities: every pending job's priority in each of its partitions (squeue -P lists one line per
# partition), and sprio's factors.
priorities() {
    squeue -h -P -t PD -o '%i %P %Q' | sort
    sprio -h -o '%i %r %Y %A %F %J %P %Q %N' | sort
}
# stable_priorities: the priorities once two passes in a row leave them unchanged.
stable_priorities() {
    local a b
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        a=$(priorities); wait_pass && wait_pass || return 1; b=$(priorities)
        [ "$a" = "$b" ] && { echo "$b"; return 0; }
    done
    return 1
}
shortcut=$(stable_priorities) || fail "the priorities kept moving with walk_shortcuts=yes"
narrowed=$(slurmctld_log_since_start | grep -cE 'priority/fairway: pass .*(skipped the job walk|walked the jobs due by age)')
[ "$narrowed" -gt 0 ] || fail "no pass took a shortcut: the comparison would prove nothing"
note "with walk_shortcuts=yes: $narrowed passes skipped or narrowed their walk; $(echo "$shortcut" | wc -l) lines of priorities"

"$CLUSTER" conf-set "PriorityParameters=$settings,walk_shortcuts=no" >/dev/null || fail "conf-set walk_shortcuts=no failed"
[ "$(walk_shortcuts)" = no ] || fail "slurmctld does not run with walk_shortcuts=no"
plain=$(stable_priorities) || fail "the priorities kept moving with walk_shortcuts=no"
[ "$(slurmctld_log_since_start | grep -cE 'skipped the job walk|walked the jobs due by age')" = 0 ] ||
    fail "a pass took a shortcut with walk_shortcuts=no"
[ -n "$plain" ] || fail "no pending job to compare"
[ "$shortcut" = "$plain" ] || fail "seed $SEED: priorities differ (< walk_shortcuts=yes, > no): $(diff <(echo "$shortcut") <(echo "$plain") | grep '^[<>]' | head -n 12 | tr '\n' ';') operations: $(tr '\n' ';' <"$log")"
note "walk_shortcuts=no gives the same $(echo "$plain" | wc -l) lines"
