#!/bin/bash
# The test cluster is real and complete: 4 idle nodes with 4 GPUs each, steps spread over all
# nodes, GPU jobs see their devices and are accounted with gres/gpu, accounts and users exist.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
require_cluster
wait_idle 60

nodes=$(sinfo -h -N -p gpu -t idle -o '%N %G' | sort -u)
note "nodes: $(echo "$nodes" | tr '\n' ';')"
expect_eq "$(echo "$nodes" | wc -l)" 4 "idle nodes in partition gpu"
expect_eq "$(echo "$nodes" | grep -Ec '^node[1-4] gpu:[a-z0-9]+:4(\(|$)')" 4 "nodes with 4 GPUs"

hosts=$(timeout 60 srun -N4 -n8 hostname) || fail "srun -N4 -n8 hostname failed"
expect_eq "$(echo "$hosts" | wc -l)" 8 "tasks of srun -N4 -n8"
expect_eq "$(echo "$hosts" | sort -u | tr '\n' ' ')" "node1 node2 node3 node4 " "hostnames seen by the tasks"

# shellcheck disable=SC2016  # the job's shell expands these
out=$(as_user alice timeout 60 srun -N1 --gpus=2 sh -c 'echo job=$SLURM_JOB_ID; echo account=$SLURM_JOB_ACCOUNT; echo cuda=$CUDA_VISIBLE_DEVICES') ||
    fail "srun --gpus=2 as alice failed: $out"
note "$out"
job=$(echo "$out" | sed -n 's/^job=//p')
expect_match "$out" '^account=physics$' "alice's default account"
expect_match "$out" '^cuda=[0-3],[0-3]$' "CUDA_VISIBLE_DEVICES of a --gpus=2 job"

wait_for 30 "accounting of job $job" job_finished "$job" || fail "job $job never finished in sacct"
tres=$(sacct -n -X -P -j "$job" -o User,AllocTRES)
note "sacct: $tres"
expect_match "$tres" '^alice\|.*gres/gpu=2' "AllocTRES of job $job"

shares=$(sshare -a -n -P -o Account,User,RawShares)
note "sshare: $(echo "$shares" | tr '\n' ' ')"
for assoc in 'physics||40' 'biology||60' 'physics|alice|' 'biology|bob|' 'physics|carol|' 'biology|carol|'; do
    echo "$shares" | grep -q "^ *$assoc" || fail "sshare lacks the association $assoc"
done
