#!/bin/bash
# An account-default preset (presets.conf account_defaults) reaches the steps of jobs that plain
# srun and salloc create, not only batch jobs: every rank gets the preset's environment, its GPU
# binding and the training environment. A user of another account gets nothing, and a job that
# names a preset gets that one instead of its account's default. A batch job carries job_submit's
# record and resolution of the default in its environment (an empty record when none applies).
# srun resolves the default once and carries it (SLURM_SPANK_FAIRWAY_STEP_PRESETS, for the
# account), so that no slurmstepd loads the YAML module for it (and srun only where it sees a
# presets.conf); a slurmstepd ignores what was carried for another account and looks its own
# account's default up.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/spank-lib.sh"

spank_setup
wait_idle 60
spank_preset tspank-acct <<'YAML'
gpu-binding: per-rank:2
distributed-env: true
env: {TSPANK_ACCT: physics-default}
YAML
spank_preset tspank-named <<'YAML'
env: {TSPANK_ACCT: named}
YAML
spank_presets_conf <<'CONF'
account_defaults:
  physics: tspank-acct
CONF

report='echo "HOST=$(hostname) RANK=${RANK-unset} LOCAL=${LOCAL_RANK-unset} WORLD=${WORLD_SIZE-unset} CVD=$CUDA_VISIBLE_DEVICES STEPGPUS=$SLURM_STEP_GPUS ACCT=${TSPANK_ACCT-unset}"'

# check_ranks OUTPUT WHAT: 4 ranks on 2 nodes, each with the default's env and 2 of the node's GPUs.
check_ranks() {
    expect_eq "$(printf '%s\n' "$1" | grep -c '^HOST=')" 4 "ranks of $2"
    for rank in 0 1 2 3; do
        local line local_rank step_gpus want
        line=$(printf '%s\n' "$1" | grep " RANK=$rank ") || fail "$2: no output from rank $rank"
        local_rank=$(sed 's/.* LOCAL=\([0-9]*\) .*/\1/' <<<"$line")
        step_gpus=$(sed 's/.* STEPGPUS=\([0-9,]*\) .*/\1/' <<<"$line")
        want=$(echo "$step_gpus" | cut -d, -f$((2 * local_rank + 1))-$((2 * local_rank + 2)))
        expect_match "$line" " WORLD=4 CVD=$want " "$2: per-rank:2 GPUs and training env of rank $rank"
        expect_match "$line" " ACCT=physics-default$" "$2: the account default's env on rank $rank"
    done
}

out=$(as_user alice timeout 60 srun -N2 --ntasks-per-node=2 --gpus-per-node=4 bash -c "$report" 2>&1) ||
    fail "srun as alice failed: $out"
note "$out"
check_ranks "$out" "plain srun (alice, physics)"

out=$(as_user alice timeout 60 salloc -N2 --ntasks-per-node=2 --gpus-per-node=4 \
    srun bash -c "$report" 2>/dev/null) || fail "salloc as alice failed: $out"
note "$out"
check_ranks "$out" "srun inside salloc (alice, physics)"

out=$(as_user bob timeout 60 srun -N1 -n1 --gpus-per-node=1 bash -c "$report" 2>&1) || fail "srun as bob failed: $out"
expect_match "$out" ' RANK=unset .* ACCT=unset$' "bob's account (biology) has no default"

# fairway_objects PID: the fairway shared objects process PID has mapped, on one line.
fairway_objects() { grep -o 'spank_fairway[a-z_]*\.so' "/proc/$1/maps" | sort -u | tr '\n' ' '; }

# srun_below PID: the srun that process PID started (through runuser, env and timeout).
srun_below() {
    local pid=$1
    while [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != srun ]; do pid=$(pgrep -P "$pid" | head -n 1); done
    echo "$pid"
}

# stepd_step USER [VAR=VALUE...]: the reports of a one-rank-per-node step on two nodes as USER (in
# the given environment), for each node "STEPD <fairway objects>": what that rank's slurmstepd
# (the task's parent) has mapped while the rank waits for the test to look, and the same for srun
# ("SRUN <fairway objects>").
stepd_step() {
    local user=$1 out=$SPANK_TMP/stepd.out looked=$SPANK_TMP/looked pid srun_pid
    shift
    rm -f "$out" "$looked"
    as_user "$user" env "$@" timeout 60 srun -N2 --ntasks-per-node=1 --gpus-per-node=4 bash -c \
        "$report; echo STEPD=\$PPID; for i in \$(seq 300); do [ -e $looked ] && break; sleep 0.1; done" >"$out" 2>&1 &
    srun_pid=$!
    wait_for 60 "both ranks of $user's step" awk '/^STEPD=/ { n++ } END { exit n < 2 }' "$out"
    for pid in $(sed -n 's/^STEPD=//p' "$out"); do echo "STEPD $(fairway_objects "$pid")"; done
    echo "SRUN $(fairway_objects "$(srun_below "$srun_pid")")"
    touch "$looked"
    wait "$srun_pid" || fail "srun as $user failed: $(cat "$out")"
    grep -v '^STEPD=' "$out"
}
in_no_stepd="STEPD spank_fairway.so $"
in_srun="SRUN spank_fairway.so spank_fairway_yaml.so $"

# srun resolved the default (or that there is none) once: no slurmstepd loads the YAML module.
out=$(stepd_step alice)
note "$out"
expect_eq "$(grep -c "^$in_no_stepd" <<<"$out")" 2 "alice's step: both slurmstepd without the YAML module"
expect_match "$out" "^$in_srun" "alice's step: srun loaded the YAML module"
expect_eq "$(grep -c ' RANK=[01] .* ACCT=physics-default$' <<<"$out")" 2 "alice's step: the default's env"
out=$(stepd_step bob)
expect_eq "$(grep -c "^$in_no_stepd" <<<"$out")" 2 "bob's step (no default): both slurmstepd without the YAML module"
expect_match "$out" "^$in_srun" "bob's step: srun loaded the YAML module"
expect_eq "$(grep -c ' RANK=unset .* ACCT=unset$' <<<"$out")" 2 "bob's step: nothing applied"

# What travels is the user's to forge. srun leaves an inherited value alone when it sees no
# presets.conf (FAIRWAY_PRESETS_CONF steers only the client); slurmstepd, which reads slurmd's
# presets.conf, uses the value only for the job's own account: one for another account, even of
# the very list, is ignored, and the step resolves alice's default itself.
b64() { printf '%s' "$1" | base64 -w0; }
forged_default() { echo "fw1,L:$(b64 tspank-acct),A:$(b64 "$1"),P:$(b64 tspank-acct):defaults,E:$(b64 TSPANK_ACCT):$(b64 forged)"; }
out=$(stepd_step alice FAIRWAY_PRESETS_CONF=/nonexistent SLURM_SPANK_FAIRWAY_STEP_PRESETS="$(forged_default physics)")
expect_eq "$(grep -c ' ACCT=forged$' <<<"$out")" 2 "a value carried for alice's account is what her steps apply"
expect_match "$out" "^SRUN spank_fairway.so $" "srun that sees no presets.conf loads no YAML module"
out=$(stepd_step alice FAIRWAY_PRESETS_CONF=/nonexistent SLURM_SPANK_FAIRWAY_STEP_PRESETS="$(forged_default biology)")
note "$out"
expect_eq "$(grep -c ' RANK=[01] .* ACCT=physics-default$' <<<"$out")" 2 "a value carried for another account is ignored"
expect_eq "$(grep -c '^STEPD spank_fairway.so spank_fairway_yaml.so $' <<<"$out")" 2 \
    "a step that looks its default up loads the YAML module"

out=$(as_user alice timeout 60 srun -N1 -n1 --preset=tspank-named bash -c "$report" 2>&1) ||
    fail "srun --preset as alice failed: $out"
expect_match "$out" ' RANK=unset .* ACCT=named$' "a named preset replaces the account default"

# batch_job USER: the output of a batch job that reports its record and runs a two-rank srun.
batch_job() {
    local out=$SPANK_TMP/batch-$1.out job
    touch "$out" && chown "$1" "$out" || fail "cannot create $out"
    job=$(as_user "$1" sbatch --parsable -N2 --ntasks-per-node=1 --gpus-per-node=4 -o "$out" --wrap \
        'echo "BATCH RECORD=[${SLURM_SPANK_FAIRWAY_APPLIED_PRESETS-unset}] RESOLVED=${SLURM_SPANK_FAIRWAY_STEP_PRESETS:+yes}"
         srun bash -c "echo STEP RANK=\${RANK-unset} ACCT=\${TSPANK_ACCT-unset}"') || fail "sbatch as $1 failed: $job"
    wait_for 120 "job $job to finish" job_finished "$job" || fail "job $job did not finish"
    sort "$out"
}
out=$(batch_job alice)
note "$out"
expect_eq "$(echo $out)" "BATCH RECORD=[tspank-acct] RESOLVED=yes STEP RANK=0 ACCT=physics-default STEP RANK=1 ACCT=physics-default" \
    "a batch job of alice (physics)"
out=$(batch_job bob)
expect_eq "$(echo $out)" "BATCH RECORD=[] RESOLVED= STEP RANK=unset ACCT=unset STEP RANK=unset ACCT=unset" \
    "a batch job of bob (biology, no default)"
exit 0
