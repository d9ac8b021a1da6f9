#!/bin/bash
# QOS usage under priority/fairway: `scontrol show assoc_mgr` shows each QOS's RawUsage and GrpWall
# from fairway's book. With a 1-minute half-life, the usage of QOS "steady" (no flags) halves in a
# minute, while that of QOS "budget" (Flags=NoDecay) stays whole, as under multifactor, until it
# leaves the window; its GrpWall is the job's run time. The QOS are removed and added again first:
# a revived QOS starts from zero, as under multifactor.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

HALF_LIFE=60   # Slurm takes PriorityDecayHalfLife in whole minutes
prio_test_setup "PriorityParameters=window=10:00,calc_period=0:02" PriorityDecayHalfLife=$((HALF_LIFE / 60))

remove_qos() {
    sacctmgr -i modify user where name=bob set qos-=budget,steady >/dev/null 2>&1
    sacctmgr -i delete qos budget,steady >/dev/null 2>&1
}
trap 'status=$?; scancel -u bob 2>/dev/null; remove_qos; (exit $status); prio_restore' EXIT
remove_qos
sacctmgr -i add qos budget Flags=NoDecay >/dev/null || fail "cannot add QOS budget"
sacctmgr -i add qos steady >/dev/null || fail "cannot add QOS steady"
sacctmgr -i modify user where name=bob set qos+=budget,steady >/dev/null || fail "cannot give bob the QOS"

# qos_usage QOS: UsageRaw of a QOS in `scontrol show assoc_mgr`.
qos_usage() {
    scontrol show assoc_mgr qos="$1" flags=qos | awk -F= '/^ *UsageRaw=/ { print $2; exit }'
}
# qos_wall QOS: the used GrpWall of a QOS, in seconds (scontrol prints minutes).
qos_wall() {
    scontrol show assoc_mgr qos="$1" flags=qos | grep -o 'GrpWall=[^ ]*' | head -n 1 |
        sed 's/.*(\([0-9.]*\))/\1/' | awk '{ print $1 * 60 }'
}
# settled_qos_usage QOS: the QOS's RawUsage once a whole pass leaves it unchanged.
settled_qos_usage() {
    local a b tries
    for tries in 1 2 3 4 5 6 7 8 9 10; do
        a=$(qos_usage "$1"); wait_pass || return 1; b=$(qos_usage "$1")
        [ "$a" = "$b" ] && { echo "$b"; return 0; }
    done
    return 1
}

budget=$(submit bob -p gpu -n1 -c4 -t1 --qos=budget --wrap 'sleep 10') || fail "sbatch --qos=budget failed"
steady=$(submit bob -p gpu -n1 -c4 -t1 --qos=steady --wrap 'sleep 10') || fail "sbatch --qos=steady failed"
wait_for 60 "both jobs to finish" eval 'job_finished $budget && job_finished $steady' ||
    fail "jobs: $(job_state "$budget") $(job_state "$steady")"
before=$(settled_qos_usage budget) || fail "QOS budget's RawUsage does not settle: $(qos_usage budget)"
steady_before=$(qos_usage steady)
greater "$before" 0 && greater "$steady_before" 0 || fail "QOS RawUsage: budget $before, steady $steady_before"
note "after the jobs: budget $before, steady $steady_before"

# A half-life later the decayed usage is about half; the undecayed one is unchanged.
sleep "$HALF_LIFE"
wait_pass || fail "no calculation pass"
elapsed=$(sacct -n -X -P -j "$budget" -o ElapsedRaw)
note "$HALF_LIFE s later: budget $(qos_usage budget) (GrpWall $(qos_wall budget) s, job ran $elapsed s), steady $(qos_usage steady), bob's RawUsage $(raw_usage bob)"
close_to "$(qos_usage budget)" "$before" 1 || fail "QOS budget (NoDecay) RawUsage went from $before to $(qos_usage budget)"
close_to "$(qos_wall budget)" "$elapsed" 15 || fail "QOS budget GrpWall $(qos_wall budget) s vs the job's $elapsed s"
steady_after=$(qos_usage steady)
greater "$steady_after" 0 && greater "$(awk -v s="$steady_before" 'BEGIN { print s * 0.6 }')" "$steady_after" ||
    fail "QOS steady's RawUsage went from $steady_before to $steady_after in a half-life"
