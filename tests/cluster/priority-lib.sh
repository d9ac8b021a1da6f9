# Helpers shared by the priority/fairway cluster tests (tests/cluster/t-priority-*.sh).
# Source after tests/lib.sh and tests/cluster/testlib.sh.

STATE_FILE=$CLUSTER_STATE/ctld/fairway_priority_state

# prio_configure KEY=VALUE...: applies slurm.conf overrides (slurmctld restarts) and makes sure the
# cluster returns to its default configuration however the test ends.
prio_configure() {
    trap prio_restore EXIT
    "$CLUSTER" conf-set "$@" >/dev/null || fail "cluster conf-set $* failed"
    scontrol show config | grep -q 'PriorityType *= priority/fairway' || fail "slurmctld does not run priority/fairway"
}

# prio_test_setup KEY=VALUE...: how a priority test starts: the cluster answers and is idle, then
# prio_configure KEY=VALUE...
prio_test_setup() {
    require_cluster
    wait_idle 60
    prio_configure "$@"
}

prio_restore() {
    local status=$?
    if scontrol ping 2>/dev/null | grep -q 'is UP'; then
        scancel -u alice 2>/dev/null; scancel -u bob 2>/dev/null; scancel -u carol 2>/dev/null
        scontrol update PartitionName=debug State=UP 2>/dev/null
        "$CLUSTER" conf-reset >/dev/null 2>&1 || echo "warning: cluster conf-reset failed" >&2
    else
        # A test that stopped slurmctld: write the default configuration, then start what is down.
        "$CLUSTER" conf-reset >/dev/null 2>&1 && "$CLUSTER" start >/dev/null 2>&1 ||
            echo "warning: cluster conf-reset/start failed" >&2
    fi
    exit "$status"
}

# restore_with_daemons: for tests that stop a daemon (slurmdbd): however the test ends, every
# daemon runs again before the configuration is restored. Install with `trap restore_with_daemons EXIT`
# after prio_configure.
restore_with_daemons() {
    local status=$?
    "$CLUSTER" start >/dev/null 2>&1 || echo "warning: cluster start failed" >&2
    (exit "$status")
    prio_restore
}

# walk_shortcuts: yes or no, as priority/fairway runs in slurmctld now (PriorityParameters'
# walk_shortcuts, whose default follows the release: priority/slurm_compat.h).
walk_shortcuts() {
    slurmctld_log_since_start | grep -E 'priority/fairway: (loaded in slurmctld|reconfigured):' | tail -n 1 |
        grep -oE 'walk_shortcuts=(yes|no)' | cut -d= -f2 | grep .
}

# raw_usage USER: the user's RawUsage in sshare (its first association).
raw_usage() { sshare -a -n -P -o User,RawUsage | awk -F'|' -v u="$1" '$1 == u { print $2; exit }'; }
# fair_share USER: the user's FairShare column in sshare -l.
fair_share() { sshare -a -l -n -P -o User,FairShare | awk -F'|' -v u="$1" '$1 == u { print $2; exit }'; }
# weighted_fairshare JOB / job_priority JOB: sprio's weighted fair-share factor and priority.
weighted_fairshare() { sprio -h -j "$1" -o '%F' 2>/dev/null | tr -d ' '; }
job_priority() { sprio -h -j "$1" -o '%Y' 2>/dev/null | tr -d ' '; }

# billing_seconds: the sum of billing x elapsed seconds of sacct's AllocTRES|ElapsedRaw lines (QOS
# UsageFactor 1).
billing_seconds() { awk -F'|' '{ if (match($1, /billing=[0-9]+/)) sum += substr($1, RSTART + 8, RLENGTH - 8) * $2 } END { print sum + 0 }'; }
# job_charge JOB: billing x elapsed seconds of JOB's records in accounting;
# job_seconds JOB: their elapsed seconds.
job_charge() { sacct -n -X -P -j "$1" -o AllocTRES,ElapsedRaw | billing_seconds; }
# recorded_usage USER [SACCT_FLAGS]: billing x elapsed seconds of USER's job records of the last 30
# minutes (-D: every record of a job id, not only its newest).
recorded_usage() { sacct -n -X -P -u "$1" ${2:-} -S now-30minutes -o AllocTRES,ElapsedRaw | billing_seconds; }
job_seconds() { sacct -n -X -P -j "$1" -o ElapsedRaw | awk '{ sum += $1 } END { print sum + 0 }'; }

# greater A B: A > B as numbers.
greater() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
# close_to A B PERCENT: |A - B| <= PERCENT% of B.
close_to() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'; }

# submit USER SBATCH_ARGS...: prints the job id.
submit() {
    local user=$1; shift
    # Not the default /tmp/slurm-%j.out: another cluster on this machine (job ids start at 1 in
    # each) may have left that file behind, owned by another user, and the job would die at start.
    as_user "$user" sbatch --parsable -o /dev/null "$@" | cut -d';' -f1
}

# ctld_log_has TEXT: slurmctld's log since its latest start contains TEXT.
ctld_log_has() { slurmctld_log_since_start | grep -qF -- "$1"; }

# ran_pass: the plugin finished at least one calculation pass since slurmctld started (the state
# file is written at the end of each pass's charging step).
state_newer_than_start() { [ "$STATE_FILE" -nt "$CLUSTER_STATE/run/slurmctld.pid" ]; }

# wait_pass: waits until the plugin completes another calculation pass (it rewrites or touches the state file).
wait_pass() {
    local stamp
    touch -d '-1 second' "$STATE_FILE" 2>/dev/null
    stamp=$(stat -c %Y "$STATE_FILE" 2>/dev/null || echo 0)
    wait_for 30 "a calculation pass" eval '[ "$(stat -c %Y "$STATE_FILE" 2>/dev/null || echo 0)" -gt '"$stamp"' ]'
}

# settled_usage USER: USER's RawUsage once a whole pass leaves it unchanged (all jobs charged).
settled_usage() {
    local a b tries
    for tries in 1 2 3 4 5 6 7 8 9 10; do
        a=$(raw_usage "$1"); wait_pass || return 1; wait_pass || return 1; b=$(raw_usage "$1")
        [ "$a" = "$b" ] && { echo "$b"; return 0; }
    done
    return 1
}

# rebuild_usage [FILE...]: slurmctld stopped, the usage state (and FILEs) removed, slurmctld started:
# fairway rebuilds the usage from accounting and saves it.
rebuild_usage() {
    stop_ctld TERM
    rm -f "$STATE_FILE" "$@"
    "$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld failed"
    wait_for 30 "the usage to be rebuilt from accounting" eval 'ctld_log_has "usage rebuilt from accounting" && state_newer_than_start' ||
        fail "no rebuild logged: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
}

# undo_resets: for the tests that follow, which compare the usage with accounting: a test that reset
# RawUsage ends by dropping the reset times fairway keeps (which fairway-report reads too) and
# rebuilding the usage from accounting.
undo_resets() { rebuild_usage "$CLUSTER_STATE/ctld/fairway_priority_resets"; }

# stop_dbd: stops slurmdbd and waits until it is gone.
stop_dbd() {
    local identity
    identity=$(process_identity "$(cat "$CLUSTER_STATE/run/slurmdbd.pid")") || fail "slurmdbd is not running"
    kill -TERM "${identity%%:*}"
    wait_for 30 "slurmdbd to stop" eval "! identity_alive $identity" || fail "slurmdbd did not stop"
}
# start_dbd: slurmdbd alone (`cluster start` would also restart slurmctld if a plugin was rebuilt).
start_dbd() {
    "$SLURM_SBIN"/slurmdbd || fail "slurmdbd did not start"
    wait_for 60 "slurmdbd to answer" sacctmgr -n list cluster || fail "slurmdbd does not answer"
}

# dbd_queue_empty: slurmctld has nothing queued for slurmdbd (sdiag's DBD Agent queue size).
dbd_queue_empty() { [ "$(sdiag | awk -F: '/DBD Agent queue size/ { print $2 + 0; exit }')" = 0 ]; }

# stop_ctld SIGNAL: sends slurmctld SIGNAL and waits until it is gone.
stop_ctld() {
    local pid identity
    pid=$(slurmctld_pid)
    identity=$(process_identity "$pid") || fail "slurmctld $pid is not running"
    kill "-$1" "$pid"
    wait_for 30 "slurmctld to stop" eval "! identity_alive $identity" || fail "slurmctld $pid did not stop on SIG$1"
}
