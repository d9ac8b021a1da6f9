#!/bin/bash
# priority/fairway keeps usage across slurmctld restarts: a clean restart and a kill -9 in the
# middle of a running job recover it from the state file (the running job is charged exactly once);
# a corrupt state file, or one of an earlier fairway, is logged and the usage is rebuilt from
# slurmdbd's accounting. Finally
# sshare's own load of the plugin (classic fair-share, PriorityFlags=NO_FAIR_TREE) computes FairShare.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

prio_test_setup "PriorityParameters=window=30:00,calc_period=0:02"

usage_matches_accounting() {
    local have want
    have=$(raw_usage alice) want=$(recorded_usage alice)
    [ -n "$have" ] && greater "$want" 0 && close_to "$have" "$want" "$1"
}
restarted_with() { ctld_log_has "$1" && state_newer_than_start; }

first=$(submit alice -p gpu -N1 --gpus=2 -t 2 --wrap 'sleep 4') || fail "sbatch as alice failed"
wait_for 60 "job $first to finish" job_finished "$first" || fail "job $first did not finish"
wait_for 30 "alice's usage to match accounting" usage_matches_accounting 5 ||
    fail "alice's RawUsage $(raw_usage alice) vs accounting $(recorded_usage alice)"
before=$(settled_usage alice) || fail "alice's RawUsage does not settle: $(raw_usage alice)"
note "alice's RawUsage after one job: $before (accounting: $(recorded_usage alice))"

# 1. A clean restart: the state file written at shutdown is read back.
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld failed"
wait_for 30 "the restarted slurmctld to recover usage" restarted_with "recovered the usage of" ||
    fail "no recovery logged: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
wait_for 10 "alice's usage to be back" eval 'close_to "$(raw_usage alice)" "$before" 1' ||
    fail "after a restart alice's RawUsage is $(raw_usage alice), was $before"

# 2. kill -9 while a job runs: usage up to the last pass is on disk (sshare shows only saved
# usage: each pass saves before it publishes), the rest is charged after the restart, once.
running=$(submit alice -p gpu -N1 --gpus=2 -t 2 --wrap 'sleep 12') || fail "sbatch as alice failed"
wait_for 30 "job $running to run" eval '[ "$(squeue -h -j $running -o %T)" = RUNNING ]' || fail "job $running did not start"
wait_for 30 "a pass to charge the running job" eval 'greater "$(raw_usage alice)" "$before"' ||
    fail "the running job was never charged"
at_kill=$(raw_usage alice)
started=$(squeue -h -j "$running" -o %S)
stop_ctld KILL
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld after kill -9 failed"
wait_for 30 "the killed slurmctld's usage to be recovered" restarted_with "recovered the usage of" ||
    fail "no recovery logged after kill -9: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
wait_for 10 "the usage charged before the kill" eval '! greater "$at_kill" "$(raw_usage alice)"' ||
    fail "after kill -9 alice's RawUsage is $(raw_usage alice), below the $at_kill charged before it"
wait_for 60 "job $running to finish" job_finished "$running" || fail "job $running did not finish"
# slurmctld itself may lose the job's latest state to kill -9 and start the job again or fail it;
# accounting then records only the last run, so the comparison holds when the job ran once.
if [ "$(job_state "$running")" = COMPLETED ] && [ "$(sacct -n -X -j "$running" -o Start | tr -d ' ')" = "$started" ]; then
    wait_for 30 "alice's usage to match accounting after kill -9" usage_matches_accounting 5 ||
        fail "after kill -9 alice's RawUsage $(raw_usage alice) vs accounting $(recorded_usage alice)"
fi
before=$(settled_usage alice) || fail "alice's RawUsage does not settle: $(raw_usage alice)"
note "after kill -9: RawUsage $before (at the kill $at_kill), accounting $(recorded_usage alice), job $(job_state "$running")"

# 3. A corrupt state file, and one of an earlier fairway that kept fair-share usage only (a bare
# ledger, "FWLG" format version 1, here empty): each is logged, and the usage rebuilt from accounting.
corrupt_state() { head -c 300 /dev/urandom >"$STATE_FILE"; }
earlier_fairway_state() {
    python3 - "$STATE_FILE" <<'PY'
import struct, sys, zlib
body = b"FWLG" + struct.pack("<HHqqqqqI", 1, 0, 14 * 86400, 7 * 86400, 12096, 1700000000, 1700000000, 0)
open(sys.argv[1], "wb").write(body + struct.pack("<I", zlib.crc32(body)))
PY
}
for damage in corrupt_state:"is unusable" earlier_fairway_state:"holds fair-share usage only"; do
    stop_ctld TERM
    ${damage%%:*} || fail "cannot write the state file ($damage)"
    "$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld after ${damage%%:*} failed"
    wait_for 30 "the usage to be rebuilt from accounting" restarted_with "usage rebuilt from accounting" ||
        fail "no rebuild logged after ${damage%%:*}: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
    ctld_log_has "${damage#*:}" || fail "${damage%%:*}: '${damage#*:}' was not logged"
    wait_for 10 "alice's rebuilt usage" usage_matches_accounting 5 ||
        fail "rebuilt RawUsage $(raw_usage alice) vs accounting $(recorded_usage alice) (was $before)"
    note "${damage%%:*}: rebuilt from accounting, RawUsage $(raw_usage alice) (was $before)"
done

# 4. Classic fair-share: sshare loads the plugin itself to compute FairShare.
"$CLUSTER" conf-set PriorityFlags=NO_FAIR_TREE >/dev/null || fail "cluster conf-set PriorityFlags failed"
wait_for 30 "a pass in classic mode" state_newer_than_start || fail "no calculation pass after the restart"
out=$(sshare -a -l -n -P -o Account,User,EffectvUsage,FairShare 2>&1) || fail "sshare failed: $out"
grep -qi error <<<"$out" && fail "sshare reported an error: $out"
fs_alice=$(awk -F'|' '$2 == "alice" { print $4 }' <<<"$out")
fs_carol=$(awk -F'|' '$1 ~ /physics/ && $2 == "carol" { print $4 }' <<<"$out")
note "classic sshare: $(tr '\n' ';' <<<"$out")"
[ -n "$fs_alice" ] && [ -n "$fs_carol" ] || fail "sshare printed no classic FairShare"
greater "$fs_carol" "$fs_alice" && greater "$fs_alice" 0 ||
    fail "classic FairShare: alice $fs_alice should be above 0 and below carol (no usage) $fs_carol"

# 5. An administrator's `sacctmgr modify user ... set RawUsage=0` makes fairway forget that usage.
sacctmgr -i modify user where name=alice account=physics set RawUsage=0 >/dev/null || fail "sacctmgr set RawUsage=0 failed"
wait_for 30 "fairway to forget alice's usage" ctld_log_has "was reset; forgetting its usage" ||
    fail "the RawUsage reset was not taken over: $(slurmctld_log_since_start | grep fairway | tail -n 3 | tr '\n' ';')"
wait_pass || fail "no pass after the reset"
[ "$(raw_usage alice)" = 0 ] || fail "alice's RawUsage is $(raw_usage alice) after the reset"
undo_resets
