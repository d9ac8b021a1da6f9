#!/bin/bash
# The client side of the SPANK plugin: sbatch, salloc and srun list --preset; an unknown preset
# is refused before submission with the available presets and the nearest match; a malformed user
# preset file names file, line and key; a bad --gpu-bind-policy and a bad plugstack.conf argument
# are refused naming what is wrong. Refused submissions leave no job behind.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/spank-lib.sh"

spank_setup
wait_idle 60
spank_preset tspank-alpha <<'YAML'
gpu-binding: round-robin
YAML
spank_preset tspank-bravo <<'YAML'
env: {TSPANK_B: "1"}
YAML

for cmd in sbatch salloc srun; do
    help=$($cmd --help 2>&1)
    expect_match "$help" '--preset=NAME\[,NAME\.\.\.\]' "$cmd --help lists --preset"
    expect_match "$help" '--gpu-bind-policy=POLICY' "$cmd --help lists --gpu-bind-policy"
done

# Every refused submission carries this job name, so no job of that name may ever exist.
name=tspank-refused-$$

# refused COMMAND...: the command must fail; prints its output.
refused() {
    local out
    out=$(as_user alice timeout 60 "$@" 2>&1) && fail "'$*' succeeded: $out"
    printf '%s\n' "$out"
}

out=$(refused sbatch -J "$name" --preset=tspank-alpah --wrap true)
note "$out"
expect_match "$out" "unknown preset 'tspank-alpah'" "sbatch names the unknown preset"
expect_match "$out" "did you mean 'tspank-alpha'" "sbatch suggests the nearest preset"
expect_match "$out" "available: .*tspank-alpha, tspank-bravo" "sbatch lists the available presets"

out=$(refused srun -J "$name" -N1 --preset=tspank-bravo,tspank-charlie true)
expect_match "$out" "unknown preset 'tspank-charlie'" "srun names the unknown preset"
out=$(refused salloc -J "$name" -N1 --preset=tspank-zulu true)
expect_match "$out" "unknown preset 'tspank-zulu'" "salloc names the unknown preset"

dir=$(mktemp -d /tmp/t-spank-user.XXXXXX) && chown alice "$dir" || fail "mktemp failed"
trap 'spank_cleanup; rm -rf "$dir"' EXIT
printf 'env: {A: "1"}\ngpu-binding: per-rank:x\n' >"$dir/bad.yaml"
chmod 0644 "$dir/bad.yaml"
out=$(refused sbatch -J "$name" --preset="$dir/bad.yaml" --wrap true)
note "$out"
expect_match "$out" "$dir/bad.yaml:2: key 'gpu-binding'" "malformed user preset: file:line: key"

head -c 40000 /dev/zero | tr '\0' 'x' | sed 's/^/env: {BIG: "/; s/$/"}/' >"$dir/big.yaml"
chmod 0644 "$dir/big.yaml"
out=$(refused sbatch -J "$name" --preset="$dir/big.yaml" --wrap true)
note "$(printf '%s\n' "$out" | head -n 1)"
expect_match "$out" "big.yaml" "an oversized user preset is refused naming the file"

printf 'env: {LD_PRELOAD: /tmp/evil.so}\n' >"$dir/preload.yaml"
chmod 0644 "$dir/preload.yaml"
out=$(refused srun -J "$name" -N1 --preset="$dir/preload.yaml" true)
expect_match "$out" "preload.yaml:1: key 'env.LD_PRELOAD'" \
    "a user preset setting LD_PRELOAD is refused naming file, line and name"

out=$(refused srun -J "$name" -N1 --gpu-bind-policy=nearest true)
expect_match "$out" "--gpu-bind-policy=nearest: .*accepted: none, per-rank:N, round-robin, closest, ordered" \
    "a bad --gpu-bind-policy lists the accepted policies"

expect_eq "$(squeue -h -a -n "$name" -o %i)$(sacct -n -X -a -S now-1hours --name="$name" -o JobID)" "" \
    "jobs created by refused submissions"

# An unknown plugstack.conf argument is an error naming it (and, the plugin being required, stops sbatch).
echo "required $SPANK_SO presets_dir=$SPANK_PRESETS_DIR colour=blue" >"$SPANK_PLUGSTACK"
out=$(refused sbatch --wrap true)
expect_match "$out" "key 'colour': unknown argument 'colour=blue'" "an unknown plugin argument is named"
exit 0
