#!/bin/bash
# What srun resolved travels to slurmstepd (SLURM_SPANK_FAIRWAY_STEP_PRESETS), which then reads no
# preset file. The user controls that text, so the step uses it only for its own preset list and
# only when the site's env policy accepts every name in it; otherwise it resolves the list itself
# (the YAML module). A forged resolution can only do what the user could do with plain options.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/spank-lib.sh"

spank_setup
wait_idle 60
spank_preset tspank-carry <<'YAML'
env: {TSPANK_CARRY: site}
YAML

b64() { printf '%s' "$1" | base64 -w0; }
# forged LIST NAME=VALUE...: a step resolution for LIST that sets the given variables.
forged() {
    local text="fw1,L:$(b64 "$1"),P:$(b64 "$1"):defaults" pair
    shift
    for pair in "$@"; do text+=",E:$(b64 "${pair%%=*}"):$(b64 "${pair#*=}")"; done
    echo "$text"
}
report='echo "CARRY=${TSPANK_CARRY-unset} LD=${LD_PRELOAD-unset} CARRIED=${SLURM_SPANK_FAIRWAY_STEP_PRESETS:+yes}"'

# step_with STEP_PRESETS: a one-task step of the list job_submit would have recorded for a batch
# job (its applied presets, inherited by srun steps inside), carrying STEP_PRESETS. srun names no
# preset, so it leaves the carried text as it is.
step_with() {
    as_user alice env SLURM_SPANK_FAIRWAY_APPLIED_PRESETS=tspank-carry SLURM_SPANK_FAIRWAY_STEP_PRESETS="$1" \
        timeout 60 srun -N1 -n1 bash -c "$report" 2>&1
}

out=$(as_user alice timeout 60 srun -N2 -n2 --preset=tspank-carry bash -c "$report" 2>&1) || fail "srun --preset: $out"
note "$out"
expect_eq "$(grep -c '^CARRY=site LD=unset CARRIED=yes$' <<<"$out")" 2 "srun --preset carries its resolution to both nodes"

out=$(step_with "$(forged tspank-carry TSPANK_CARRY=carried)") || fail "srun with a carried resolution: $out"
expect_eq "$out" "CARRY=carried LD=unset CARRIED=yes" "the step applies the carried resolution, not the files"

out=$(step_with "$(forged tspank-carry TSPANK_CARRY=carried LD_PRELOAD=/nonexistent/fairway-forged.so)") ||
    fail "srun with a forged LD_PRELOAD: $out"
expect_eq "$out" "CARRY=site LD=unset CARRIED=yes" "a name the site refuses: the step resolves the list itself"

out=$(step_with "$(forged tspank-other TSPANK_CARRY=carried)") || fail "srun with another list's resolution: $out"
expect_eq "$out" "CARRY=site LD=unset CARRIED=yes" "a resolution of another list is ignored"

out=$(step_with "fw1,L:!!!,P") || fail "srun with a malformed resolution: $out"
expect_eq "$out" "CARRY=site LD=unset CARRIED=yes" "a malformed resolution is ignored"

# srun --preset resolves the list itself outside a job; inside one (salloc here) it passes on the
# resolution its job's client made of the same list, without reading preset files again.
carried=$(forged tspank-carry TSPANK_CARRY=carried)
out=$(as_user alice env SLURM_SPANK_FAIRWAY_STEP_PRESETS="$carried" timeout 60 srun -N1 -n1 --preset=tspank-carry \
    bash -c "$report" 2>&1) || fail "srun --preset with a resolution in its environment: $out"
expect_eq "$out" "CARRY=site LD=unset CARRIED=yes" "srun outside a job resolves its list"
out=$(as_user alice timeout 60 salloc -N1 -n1 --preset=tspank-carry env SLURM_SPANK_FAIRWAY_STEP_PRESETS="$carried" \
    srun -n1 --preset=tspank-carry bash -c "$report" 2>/dev/null) || fail "srun --preset inside salloc: $out"
expect_eq "$out" "CARRY=carried LD=unset CARRIED=yes" "srun inside a job reuses the job's resolution of its list"
out=$(as_user alice timeout 60 salloc -N1 -n1 --preset=tspank-carry env SLURM_SPANK_FAIRWAY_STEP_PRESETS="$carried" \
    srun -n1 --preset=tspank-other bash -c "$report" 2>&1)
expect_match "$out" "unknown preset 'tspank-other'" "srun inside a job checks a list of its own"
exit 0
