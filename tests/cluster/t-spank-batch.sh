#!/bin/bash
# sbatch --preset=SITE,./user.yaml: the user's file is read at submission and carried with the job
# (it is deleted before the job starts), the batch script gets the presets' environment, and
# srun inside the job inherits the presets: per-rank GPUs and the training environment on every
# rank of both nodes. Presets compose left to right and never override what the user exported.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/spank-lib.sh"

spank_setup
wait_idle 60
spank_preset tspank-site <<'YAML'
gpu-binding: round-robin
env: {TSPANK_LAYER: site, TSPANK_SITE: "on", TSPANK_MINE: preset}
YAML

work=$(mktemp -d /tmp/t-spank-batch.XXXXXX) && chown alice "$work" || fail "mktemp failed"
trap 'spank_cleanup; rm -rf "$work"' EXIT
cat >"$work/user.yaml" <<'YAML'
gpu-binding: per-rank:2
distributed-env: true
env: {TSPANK_LAYER: user}
YAML
cat >"$work/job.sh" <<'EOF2'
#!/bin/bash
echo "BATCH LAYER=$TSPANK_LAYER SITE=$TSPANK_SITE MINE=$TSPANK_MINE RANK=${RANK-unset}"
srun bash -c 'echo "STEP HOST=$(hostname) RANK=$RANK LOCAL=$LOCAL_RANK WORLD=$WORLD_SIZE ADDR=$MASTER_ADDR CVD=$CUDA_VISIBLE_DEVICES STEPGPUS=$SLURM_STEP_GPUS LAYER=$TSPANK_LAYER MINE=$TSPANK_MINE"'
EOF2
chown alice "$work"/*; chmod 0644 "$work/user.yaml"

job=$(cd "$work" && runuser -u alice -- env SLURM_CONF="$SLURM_CONF" TSPANK_MINE=exported \
    sbatch --parsable --hold -N2 --ntasks-per-node=2 --gpus-per-node=4 -o "$work/out.txt" \
    --preset=tspank-site,./user.yaml job.sh) || fail "sbatch failed: $job"
rm -f "$work/user.yaml"
scontrol release "$job" || fail "cannot release job $job"
wait_for 120 "job $job to finish" job_finished "$job" || fail "job $job did not finish"
out=$(cat "$work/out.txt")
note "$out"
expect_eq "$(job_state "$job")" COMPLETED "state of job $job"

expect_match "$out" '^BATCH LAYER=user SITE=on MINE=exported RANK=unset$' "the batch script's environment"
expect_eq "$(printf '%s\n' "$out" | grep -c '^STEP ')" 4 "ranks of the inner srun"
for rank in 0 1 2 3; do
    line=$(printf '%s\n' "$out" | grep "^STEP .* RANK=$rank ") || fail "no output from rank $rank"
    local_rank=$(sed 's/.* LOCAL=\([0-9]*\) .*/\1/' <<<"$line")
    step_gpus=$(sed 's/.* STEPGPUS=\([0-9,]*\) .*/\1/' <<<"$line")
    want=$(echo "$step_gpus" | cut -d, -f$((2 * local_rank + 1))-$((2 * local_rank + 2)))
    expect_match "$line" " CVD=$want " "per-rank:2 GPUs of rank $rank (step GPUs $step_gpus)"
    expect_match "$line" " WORLD=4 ADDR=node[0-9]+ " "training env of rank $rank"
    expect_match "$line" " LAYER=user MINE=exported$" "preset env of rank $rank"
done

# srun alone (no sbatch) carries a user file to its own tasks too.
printf 'distributed-env: true\nenv: {TSPANK_LAYER: srun-file}\n' >"$work/srun.yaml"
chmod 0644 "$work/srun.yaml"
out=$(cd "$work" && runuser -u alice -- env SLURM_CONF="$SLURM_CONF" timeout 60 srun -N1 -n2 --preset=./srun.yaml \
    bash -c 'echo "RANK=$RANK LAYER=$TSPANK_LAYER"' | sort) || fail "srun --preset=./srun.yaml failed: $out"
note "$out"
expect_eq "$(echo $out)" "RANK=0 LAYER=srun-file RANK=1 LAYER=srun-file" "srun's user preset in its tasks"

# salloc exports the carried file to its command, so an srun there gets it too.
out=$(cd "$work" && runuser -u alice -- env SLURM_CONF="$SLURM_CONF" timeout 60 salloc -N1 --preset=./srun.yaml \
    srun -n1 bash -c 'echo "RANK=$RANK LAYER=$TSPANK_LAYER"' 2>/dev/null) || fail "salloc --preset=./srun.yaml failed: $out"
note "$out"
expect_match "$out" '^RANK=0 LAYER=srun-file$' "salloc's user preset in the step's tasks"
exit 0
