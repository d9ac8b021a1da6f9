#!/bin/bash
# A calculation pass skips its walk over the pending jobs when the walk would change nothing
# (priority/walk_skip.cpp; with walk_shortcuts, the default where the release's behaviour was
# checked, else every pass walks every job and none skips), and still sees what changes a job's
# priority without changing the job:
# a QOS priority (sacctmgr), a partition's PriorityJobFactor (scontrol update partition) and new
# usage (fair share, also after an administrator's reset). Age has no weight here, so every age factor is settled from the start.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

prio_test_setup "PriorityParameters=calc_period=0:01" PriorityWeightAge=0 PriorityWeightQOS=10000 \
    PriorityWeightPartition=10000 DebugFlags=Priority SlurmctldDebug=verbose
trap 'status=$?; scancel -u alice; sacctmgr -i -Q delete qos urgent >/dev/null 2>&1; sacctmgr -i -Q modify qos normal set Priority=0 >/dev/null 2>&1; (exit $status); prio_restore' EXIT

shortcuts=$(walk_shortcuts) || fail "slurmctld logged no walk_shortcuts setting"
note "walk_shortcuts=$shortcuts"
skipped_passes() { slurmctld_log_since_start | grep -c 'skipped the job walk'; }
full_walks() { slurmctld_log_since_start | grep -c 'priority/fairway: pass .* walked all jobs'; }
# await_settled: a pass after this call that found the priorities settled: it skipped its walk (with
# shortcuts), or walked every job (without).
await_settled() {
    local settled=skipped_passes before
    [ "$shortcuts" = yes ] || settled=full_walks
    before=$($settled)
    wait_for 30 "a pass that finds the priorities settled" eval '[ "$('$settled')" -gt '"$before"' ]'
}
factor() { sprio -h -j "$1" -o "%$2" 2>/dev/null | tr -d ' '; }

scontrol update PartitionName=debug State=DOWN || fail "cannot set partition debug down"
alice_job=$(submit alice -p debug -n1 -t 1 --wrap true) || fail "sbatch as alice failed"
bob_job=$(submit bob -p debug -n1 -t 1 --wrap true) || fail "sbatch as bob failed"
await_settled || fail "no pass found the priorities settled: $(slurmctld_log_since_start | grep 'priority/fairway: pass' | tail -3)"
note "settled: $(slurmctld_log_since_start | grep 'priority/fairway: pass' | tail -1 | sed 's/.*pass/pass/')"

# A QOS priority changes no job record.
[ "$(factor "$alice_job" Q)" = 0 ] || fail "QOS factor before: $(factor "$alice_job" Q), expected 0"
sacctmgr -i -Q modify qos normal set Priority=100 >/dev/null || fail "sacctmgr modify qos failed"
wait_for 20 "the QOS priority in sprio" eval 'greater "$(factor $alice_job Q)" 0' ||
    fail "sprio's QOS factor stayed $(factor "$alice_job" Q) after the QOS priority changed"
note "QOS factor after sacctmgr: $(factor "$alice_job" Q)"
await_settled || fail "the walks did not settle again after the QOS change"

# A partition's PriorityJobFactor: debug's normalised factor falls when gpu's rises.
part_before=$(factor "$alice_job" P)
scontrol update PartitionName=gpu PriorityJobFactor=10 || fail "scontrol update partition failed"
wait_for 20 "the partition factor in sprio" eval 'greater "'"$part_before"'" "$(factor $alice_job P)"' ||
    fail "sprio's partition factor stayed $(factor "$alice_job" P) (was $part_before)"
note "partition factor: $part_before -> $(factor "$alice_job" P)"
await_settled || fail "the walks did not settle again after the partition change"

# A job with several QOS (24.11): the schedulers set its QOS to each in turn and ask for no
# priority (its submission computed it with the highest), so the passes recompute it each time, as
# a walk over all jobs would. A change to a partition it is not in makes the next pass walk every
# job, and must change nothing of it.
if [ "$(scontrol --version | awk '{ print $2 }' | cut -d. -f1)" != 22 ]; then
    sacctmgr -i -Q add qos urgent Priority=300 >/dev/null || fail "cannot add QOS urgent"
    sacctmgr -i -Q modify user where name=alice set qos+=urgent >/dev/null || fail "cannot give alice QOS urgent"
    await_settled || fail "the walks did not settle after QOS urgent was added"
    two_qos=$(submit alice -p debug -n1 -t 1 --qos=urgent,normal --wrap true) || fail "sbatch --qos=urgent,normal failed"
    wait_for 30 "the schedulers to look at job $two_qos" eval '[ "$(squeue -h -j '"$two_qos"' -o %r)" != None ]' ||
        fail "job $two_qos still pending with no reason"
    wait_pass && wait_pass || fail "no pass after the job with two QOS"
    before=$(squeue -h -j "$two_qos" -o %Q) walks=$(full_walks)
    scontrol update PartitionName=gpu MaxTime=59 || fail "scontrol update partition gpu failed"
    wait_for 30 "a pass that walks every job" eval '[ "$(full_walks)" -gt '"$walks"' ]' ||
        fail "no pass walked every job after partition gpu changed"
    wait_pass
    [ "$(squeue -h -j "$two_qos" -o %Q)" = "$before" ] ||
        fail "job $two_qos with two QOS: priority $before before a walk over all jobs, $(squeue -h -j "$two_qos" -o %Q) after"
    note "job with two QOS: priority $before, the same after a walk over all jobs"
    scontrol update PartitionName=gpu MaxTime=UNLIMITED
    scancel "$two_qos"
    sacctmgr -i -Q delete qos urgent >/dev/null || fail "cannot delete QOS urgent"
fi

# Usage moves fair share: an administrator's reset (earlier tests left usage behind), then a job
# of alice, after which her pending job falls behind bob's.
for user_account in alice:physics bob:biology carol:physics carol:biology; do
    sacctmgr -i -Q modify user where name="${user_account%:*}" account="${user_account#*:}" set RawUsage=0 >/dev/null ||
        fail "sacctmgr RawUsage=0 failed for $user_account"
done
wait_for 30 "equal fair-share factors after the reset" eval '[ "$(factor $alice_job F)" = "$(factor $bob_job F)" ]' ||
    fail "sprio FAIRSHARE after the reset: alice $(factor "$alice_job" F), bob $(factor "$bob_job" F)"
fs_before=$(factor "$alice_job" F)
used=$(submit alice -p gpu -n1 -t 1 --wrap 'sleep 3') || fail "sbatch as alice failed"
wait_for 60 "alice's fair-share factor to fall below bob's" \
    eval 'greater "$(factor $bob_job F)" "$(factor $alice_job F)"' ||
    fail "sprio FAIRSHARE after alice's job $used: alice $(factor "$alice_job" F), bob $(factor "$bob_job" F)"
note "fair share: alice $fs_before -> $(factor "$alice_job" F), bob $(factor "$bob_job" F)"
[ "$shortcuts" = yes ] || [ "$(skipped_passes)" = 0 ] ||
    fail "with walk_shortcuts=no, $(skipped_passes) passes skipped the job walk"
undo_resets  # the tests after this one compare usage with accounting
