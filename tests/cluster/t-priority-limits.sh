#!/bin/bash
# Under priority/fairway, GrpTRESMins limits of associations and QOS hold, as a rolling budget over
# the window: alice's association may use 5 CPU-minutes, bob's QOS "capped" as well. Two 4-CPU jobs
# of each use more; the next job of each pends with AssocGrpCPUMinutesLimit / QOSGrpCPUMinutesLimit
# and sshare's GrpTRESRaw and `scontrol show assoc_mgr` show the used minutes. The used minutes are
# rebuilt from accounting when the state file is lost. Resetting the QOS's RawUsage lets bob's job
# run at once; alice's runs once her usage leaves the 90 s window.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

WINDOW=90
LIMIT_MINUTES=5
prio_test_setup "PriorityParameters=window=0:$WINDOW,calc_period=0:02" \
    AccountingStorageEnforce=associations,limits,qos

clear_limits() {
    sacctmgr -i modify user where name=alice account=physics set GrpTRESMins=cpu=-1 >/dev/null 2>&1
    sacctmgr -i modify user where name=bob set qos-=capped >/dev/null 2>&1
    sacctmgr -i delete qos capped >/dev/null 2>&1
}
trap 'status=$?; scancel -u alice -u bob 2>/dev/null; clear_limits; (exit $status); prio_restore' EXIT
clear_limits
sacctmgr -i modify user where name=alice account=physics set GrpTRESMins=cpu=$LIMIT_MINUTES >/dev/null ||
    fail "cannot set alice's GrpTRESMins"
sacctmgr -i add qos capped GrpTRESMins=cpu=$LIMIT_MINUTES >/dev/null || fail "cannot add QOS capped"
sacctmgr -i modify user where name=bob set qos+=capped >/dev/null || fail "cannot give bob QOS capped"
wait_for 30 "slurmctld to see the limits" eval \
    'scontrol show assoc_mgr users=alice flags=assoc | grep -q "GrpTRESMins=cpu=$LIMIT_MINUTES(" &&
     scontrol show assoc_mgr qos=capped flags=qos | grep -q "GrpTRESMins=cpu=$LIMIT_MINUTES("' ||
    fail "limits not in assoc_mgr: $(scontrol show assoc_mgr users=alice flags=assoc | grep -o 'GrpTRESMins=[^ ]*')"

# cpu_minutes USER: sshare's GrpTRESRaw cpu minutes of USER's association.
cpu_minutes() {
    sshare -n -P -A physics,biology -u "$1" -o User,GrpTRESRaw |
        awk -F'|' -v u="$1" '$1 == u { if (match($2, /cpu=[0-9]+/)) print substr($2, RSTART + 4, RLENGTH - 4); exit }'
}
# qos_cpu_minutes QOS: the used CPU minutes `scontrol show assoc_mgr` shows for a QOS.
qos_cpu_minutes() {
    scontrol show assoc_mgr qos="$1" flags=qos | grep -o "GrpTRESMins=cpu=[0-9]*([0-9]*)" | head -n 1 |
        sed 's/.*(\([0-9]*\))/\1/'
}
reason() { squeue -h -j "$1" -o %r; }
state() { squeue -h -j "$1" -o %T; }

# Each job asks for 4 CPU-minutes (at most the limit, else Slurm refuses it at submission) and
# uses 4 CPUs x 45 s; two use 6 CPU-minutes, above the limit of 5.
for i in 1 2; do
    submit alice -p gpu -n1 -c4 -t1 --wrap 'sleep 45' >/dev/null || fail "sbatch as alice failed"
    submit bob -p gpu -n1 -c4 -t1 --qos=capped --wrap 'sleep 45' >/dev/null || fail "sbatch as bob failed"
done
wait_for 60 "four jobs to run" eval '[ "$(squeue -h -t R -u alice,bob | wc -l)" = 4 ]' ||
    fail "not all four jobs run: $(squeue -h -o '%i %u %T %r' | tr '\n' ';')"
started=$SECONDS
wait_for 90 "alice and QOS capped to reach $LIMIT_MINUTES CPU-minutes" eval \
    '[ "$(cpu_minutes alice)" -ge $LIMIT_MINUTES ] && [ "$(qos_cpu_minutes capped)" -ge $LIMIT_MINUTES ]' 2>/dev/null ||
    fail "used CPU minutes: alice $(cpu_minutes alice), QOS capped $(qos_cpu_minutes capped)"
note "after $((SECONDS - started)) s of running: alice $(cpu_minutes alice) CPU-min, QOS capped $(qos_cpu_minutes capped) CPU-min"

held_alice=$(submit alice -p gpu -n1 -c1 -t1 --wrap true) || fail "sbatch as alice failed"
held_bob=$(submit bob -p gpu -n1 -c1 -t1 --qos=capped --wrap true) || fail "sbatch as bob failed"
wait_for 30 "the new jobs to pend on their CPU-minute limits" eval \
    '[ "$(reason $held_alice)" = AssocGrpCPUMinutesLimit ] && [ "$(reason $held_bob)" = QOSGrpCPUMinutesLimit ]' ||
    fail "pending reasons: alice's job $held_alice $(state "$held_alice") $(reason "$held_alice"), bob's job $held_bob $(state "$held_bob") $(reason "$held_bob")"
note "alice's job: $(reason "$held_alice"); bob's job: $(reason "$held_bob")"
note "assoc_mgr, alice: $(scontrol show assoc_mgr users=alice flags=assoc |
    awk '/UserName=alice/ { mine = 1 } mine && match($0, /GrpTRESMins=[^ ]*/) { print substr($0, RSTART, RLENGTH); exit }')"

# The state file is lost: the used minutes come back from accounting and the jobs stay held.
at_loss=$(cpu_minutes alice)
stop_ctld TERM
rm -f "$STATE_FILE"
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld failed"
wait_for 30 "the usage to be rebuilt from accounting" eval 'ctld_log_has "usage rebuilt from accounting" && state_newer_than_start' ||
    fail "no rebuild logged: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
rebuilt=$(cpu_minutes alice)
[ -n "$rebuilt" ] && [ "$rebuilt" -ge $LIMIT_MINUTES ] || fail "after the rebuild alice has $rebuilt CPU-minutes (had $at_loss)"
[ "$(qos_cpu_minutes capped)" -ge $LIMIT_MINUTES ] || fail "after the rebuild QOS capped has $(qos_cpu_minutes capped) CPU-minutes"
[ "$(state "$held_alice")" = PENDING ] && [ "$(state "$held_bob")" = PENDING ] ||
    fail "after the rebuild the held jobs are $(state "$held_alice") and $(state "$held_bob")"
note "rebuilt from accounting: alice $rebuilt CPU-min (was $at_loss), QOS capped $(qos_cpu_minutes capped)"

# An administrator resets the QOS's usage: fairway forgets it and bob's job runs at once, while
# alice's stays held.
sacctmgr -i modify qos capped set RawUsage=0 >/dev/null || fail "sacctmgr modify qos set RawUsage=0 failed"
wait_for 30 "bob's held job to run after the QOS reset" eval 'job_finished $held_bob' ||
    fail "bob's job is $(state "$held_bob") $(reason "$held_bob") after the reset; QOS capped $(qos_cpu_minutes capped) CPU-min"
wait_for 10 "fairway to forget the QOS's usage" ctld_log_has "RawUsage of QOS" || fail "the QOS reset was not logged"
wait_for 10 "QOS capped's used minutes to stay 0" eval '[ "$(qos_cpu_minutes capped)" = 0 ]' ||
    fail "QOS capped shows $(qos_cpu_minutes capped) CPU-min after the reset"
[ "$(state "$held_alice")" = PENDING ] || fail "alice's job is $(state "$held_alice") before her usage left the window"
note "QOS reset: bob's job ran $((SECONDS - started)) s after the first jobs started; alice's still pends"

# The window: alice's usage leaves it and her held job runs.
wait_for $((WINDOW + 90)) "alice's held job to run once her usage leaves the window" eval 'job_finished $held_alice' ||
    fail "alice's job: $(state "$held_alice") $(reason "$held_alice"); alice $(cpu_minutes alice) CPU-min"
note "alice's held job ran $((SECONDS - started)) s after the first jobs started (window ${WINDOW}s)"
# Her job ran once 1 CPU-minute had left the window; the jobs' last seconds leave it about 40 s later.
wait_for 60 "the used minutes to fall to 0" eval '[ "$(cpu_minutes alice)" = 0 ]' ||
    fail "alice still has $(cpu_minutes alice) CPU-minutes after the window"
