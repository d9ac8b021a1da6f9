#!/bin/bash
# A preset's `signal` and `requeue` reach the running job: with time 1 and signal B:USR1@50 the
# batch shell gets SIGUSR1 well before its end (slurmctld checks time limits about every 30 s).
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
require_cluster

presets=$CLUSTER_STATE/presets.d
work=$(mktemp -d /tmp/t-presets-signal.XXXXXX)
chown alice "$work"
job=""
cleanup() { [ -n "$job" ] && scancel "$job" 2>/dev/null; rm -f "$presets/t-presets-signal.yaml"; rm -rf "$work"; }
trap cleanup EXIT
printf 'name: t-presets-signal\ntime: 1\nsignal: B:USR1@50\nrequeue: false\n' >"$presets/t-presets-signal.yaml"
chmod 0644 "$presets/t-presets-signal.yaml"

cat >"$work/job.sh" <<'JOB'
#!/bin/bash
trap 'echo got-usr1 >"$MARK"; exit 0' USR1
echo started >"$MARK.started"
for i in $(seq 1 600); do sleep 0.1; done
JOB
chmod 0755 "$work/job.sh"
job=$(as_user alice sbatch --parsable --preset=t-presets-signal --output=/dev/null \
      --export=ALL,MARK="$work/mark" "$work/job.sh" 2>&1) || fail "sbatch refused: $job"
expect_match "$(scontrol show job "$job")" "Requeue=0" "requeue from the preset"
wait_for 60 "the job to start" test -e "$work/mark.started" || fail "job $job did not start: $(squeue -h -j "$job" -o '%T %r')"
wait_for 75 "SIGUSR1 before the time limit" test -e "$work/mark" ||
    fail "job $job never got SIGUSR1 (state $(job_state "$job"))"
expect_eq "$(cat "$work/mark")" got-usr1 "signal marker"
