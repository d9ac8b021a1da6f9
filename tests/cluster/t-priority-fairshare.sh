#!/bin/bash
# priority/fairway moves sshare and sprio the right way: after a heavy GPU job of alice (physics)
# and a light CPU job of bob (biology), alice's RawUsage is higher and her FairShare and pending
# job priority are lower than bob's. With a short window the usage then leaves the window and
# alice's fair-share recovers. Uses the test-only calc_period knob to pass every 2 seconds.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

WINDOW=90
prio_test_setup "PriorityParameters=window=0:$WINDOW,calc_period=0:02"

heavy=$(submit alice -p gpu -N1 --gpus=4 -c 8 -t 2 --wrap 'sleep 6') || fail "sbatch as alice failed"
light=$(submit bob -p gpu -n1 -t 2 --wrap 'sleep 6') || fail "sbatch as bob failed"
wait_for 90 "jobs $heavy and $light to finish" eval "job_finished $heavy && job_finished $light" ||
    fail "jobs did not finish: $(squeue -h -o '%i %T %r' | tr '\n' ';')"
ended=$SECONDS

usage_ordered() {
    local a b
    a=$(raw_usage alice) b=$(raw_usage bob)
    [ -n "$a" ] && [ -n "$b" ] && greater "$b" 0 && greater "$a" "$b"
}
wait_for 90 "alice's RawUsage above bob's, both charged" usage_ordered ||
    fail "sshare RawUsage: alice=$(raw_usage alice) bob=$(raw_usage bob)"
note "RawUsage after the jobs: alice=$(raw_usage alice) bob=$(raw_usage bob)"
fs_alice=$(fair_share alice) fs_bob=$(fair_share bob)
greater "$fs_bob" "$fs_alice" || fail "sshare FairShare: alice=$fs_alice should be below bob=$fs_bob"

# Pending jobs (their partition is down) get priorities from these fair-share factors.
scontrol update PartitionName=debug State=DOWN || fail "cannot set partition debug down"
pend_alice=$(submit alice -p debug -n1 -t 1 --wrap true) || fail "sbatch as alice failed"
pend_bob=$(submit bob -p debug -n1 -t 1 --wrap true) || fail "sbatch as bob failed"
wait_for 30 "sprio to list both pending jobs" eval '[ -n "$(weighted_fairshare $pend_alice)" ] && [ -n "$(weighted_fairshare $pend_bob)" ]' ||
    fail "sprio lists: $(sprio -h -l | tr '\n' ';')"
note "sprio -l: $(sprio -l | tr -s ' ' | tr '\n' ';')"
greater "$(weighted_fairshare "$pend_bob")" "$(weighted_fairshare "$pend_alice")" ||
    fail "sprio FAIRSHARE: bob's $(weighted_fairshare "$pend_bob") should exceed alice's $(weighted_fairshare "$pend_alice")"
greater "$(job_priority "$pend_bob")" "$(job_priority "$pend_alice")" ||
    fail "sprio PRIORITY: bob's $(job_priority "$pend_bob") should exceed alice's $(job_priority "$pend_alice")"
before=$(weighted_fairshare "$pend_alice")

# The window: without new usage, everything leaves it W (plus at most a bucket and a pass) after
# it was charged; the ledger keeps no trace and alice's priority recovers.
usage_gone() { [ "$(raw_usage alice)" = 0 ] && [ "$(raw_usage bob)" = 0 ]; }
wait_for $((WINDOW + 60)) "the usage to leave the ${WINDOW}s window" usage_gone ||
    fail "after the window: RawUsage alice=$(raw_usage alice) bob=$(raw_usage bob)"
note "usage left the window $((SECONDS - ended))s after the jobs ended (window ${WINDOW}s)"
wait_for 10 "alice's pending job to regain fair-share" eval 'greater "$(weighted_fairshare $pend_alice)" "$before"' ||
    fail "alice's weighted fair-share stayed at $(weighted_fairshare "$pend_alice") (was $before)"
note "alice's weighted fair-share: $before -> $(weighted_fairshare "$pend_alice")"
