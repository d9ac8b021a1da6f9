#!/bin/bash
# srun --preset across two nodes: every rank gets its own GPUs and the torch.distributed
# environment; ordered and closest (fake sysfs) policies; an unsatisfiable policy fails the step
# with a clear message and a non-zero exit, before any task runs. MASTER_PORT is the same on every
# rank but not the one the public job and step ids alone give.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/spank-lib.sh"

# A fake sysfs: GPUs 0,1 sit on NUMA node 1 and GPUs 2,3 on node 0, whose CPUs are exactly the
# ones the tasks may use (slurmd's affinity, which task/none passes on), so `closest` must pick
# GPUs 2 and 3 where round-robin would pick 0 and 1.
make_fake_sysfs() {
    local root=$1 cpus gpu numa
    cpus=$(awk '/^Cpus_allowed_list/ { print $2 }' "/proc/$(cat "$CLUSTER_STATE/run/slurmd-node1.pid")/status")
    mkdir -p "$root/devices/system/node/node0" "$root/devices/system/node/node1"
    echo "$cpus" >"$root/devices/system/node/node0/cpulist"
    echo "" >"$root/devices/system/node/node1/cpulist"
    for gpu in 0 1 2 3; do
        numa=$((gpu < 2 ? 1 : 0))
        mkdir -p "$root/bus/pci/devices/0000:0$((gpu + 1)):00.0"
        echo 0x030200 >"$root/bus/pci/devices/0000:0$((gpu + 1)):00.0/class"
        echo "$numa" >"$root/bus/pci/devices/0000:0$((gpu + 1)):00.0/numa_node"
    done
    mkdir -p "$root/bus/pci/devices/0000:00:1f.0" && echo 0x060100 >"$root/bus/pci/devices/0000:00:1f.0/class"
    chmod -R a+rX "$root"
}

# ids_port JOB STEP FIRST SIZE: the port that the job and step ids alone gave (splitmix64 of
# JOB<<32|STEP, in 64-bit two's complement: bash's arithmetic wraps, >> is made logical by masks).
ids_port() {
    local x=$((($1 << 32) | $2)) first=$3 size=$4
    x=$(((x ^ ((x >> 30) & 0x3ffffffff)) * -4658895280553007687))  # 0xbf58476d1ce4e5b9
    x=$(((x ^ ((x >> 27) & 0x1fffffffff)) * -7723592293110705685)) # 0x94d049bb133111eb
    x=$((x ^ ((x >> 31) & 0x1ffffffff)))
    # unsigned x % size, from x>>>1 and the low bit
    echo $((first + (((((x >> 1) & 0x7fffffffffffffff) % size) * 2 + (x & 1)) % size)))
}
[ "$(ids_port 7 0 0 1000000007)" = 624564481 ] || fail "ids_port does not compute splitmix64"

# Three more steps, each with one MASTER_PORT: they may not all be the port the ids give (each
# is with a chance of 1/100 when the port is random; before the key, all were).
check_port_not_from_ids() {
    local port=$1 job=$2 step=$3 i out ports from_ids=0
    [ "$port" = "$(ids_port "$job" "$step" 31000 100)" ] && from_ids=1
    for i in 1 2 3; do
        out=$(as_user alice timeout 60 srun -N2 --ntasks-per-node=1 --gpus-per-node=1 --preset=tspank-ddp \
            bash -c "$report") || fail "srun --preset=tspank-ddp failed: $out"
        ports=$(printf '%s\n' "$out" | grep -o 'PORT=[0-9]*' | sort -u)
        expect_eq "$(echo "$ports" | wc -l)" 1 "one MASTER_PORT for the step of job $(rank_field "$out" 0 JOB)"
        [ "${ports#PORT=}" = "$(ids_port "$(rank_field "$out" 0 JOB)" "$(rank_field "$out" 0 STEP)" 31000 100)" ] &&
            from_ids=$((from_ids + 1))
    done
    [ "$from_ids" -lt 4 ] || fail "MASTER_PORT is the port job and step ids give, in all 4 steps"
    note "MASTER_PORT from ids in $from_ids of 4 steps"
}

SYSFS=$(mktemp -d /tmp/t-spank-sysfs.XXXXXX) || fail "mktemp failed"
spank_setup sysfs_root="$SYSFS" master_port_range=31000-31099
trap 'spank_cleanup; rm -rf "$SYSFS"' EXIT
make_fake_sysfs "$SYSFS"
wait_idle 60

spank_preset tspank-ddp <<'YAML'
gpu-binding: per-rank:1
distributed-env: true
env: {TSPANK_FROM_PRESET: "yes"}
YAML
spank_preset tspank-two <<'YAML'
gpu-binding: per-rank:2
YAML
spank_preset tspank-ordered <<'YAML'
gpu-binding: ordered
YAML

report='echo "HOST=$(hostname) RANK=${RANK-} LOCAL=${LOCAL_RANK-} WORLD=${WORLD_SIZE-} LWORLD=${LOCAL_WORLD_SIZE-} NODE=${NODE_RANK-} ADDR=${MASTER_ADDR-} PORT=${MASTER_PORT-} CVD=${CUDA_VISIBLE_DEVICES-} STEPGPUS=${SLURM_STEP_GPUS-} TASK=$SLURM_PROCID NODEID=$SLURM_NODEID LOCALID=$SLURM_LOCALID NODES=$SLURM_STEP_NODELIST ENV=${TSPANK_FROM_PRESET-} JOB=$SLURM_JOB_ID STEP=$SLURM_STEP_ID"'

# --- per-rank:1 with the training environment, 2 nodes x 4 ranks --------------------------------
out=$(as_user alice timeout 120 srun -N2 --ntasks-per-node=4 --gpus-per-node=4 --preset=tspank-ddp bash -c "$report") ||
    fail "srun --preset=tspank-ddp failed: $out"
note "$out"
expect_eq "$(printf '%s\n' "$out" | grep -c '^HOST=')" 8 "ranks reporting"
expect_eq "$(printf '%s\n' "$out" | awk '{print $1}' | sort -u | wc -l)" 2 "nodes used"
first_node=$(rank_field "$out" 0 HOST)
ports=$(printf '%s\n' "$out" | grep -o 'PORT=[0-9]*' | sort -u)
expect_eq "$(echo "$ports" | wc -l)" 1 "one MASTER_PORT for the whole step"
port=${ports#PORT=}
[ "$port" -ge 31000 ] && [ "$port" -le 31099 ] || fail "MASTER_PORT $port outside master_port_range=31000-31099"
check_port_not_from_ids "$port" "$(rank_field "$out" 0 JOB)" "$(rank_field "$out" 0 STEP)"
for rank in 0 1 2 3 4 5 6 7; do
    line=$(printf '%s\n' "$out" | grep " RANK=$rank ") || fail "no output from rank $rank"
    expect_eq "$(rank_field "$out" "$rank" TASK)" "$rank" "RANK of task $rank (SLURM_PROCID)"
    local_rank=$(rank_field "$out" "$rank" LOCALID)
    expect_eq "$(rank_field "$out" "$rank" LOCAL)" "$local_rank" "LOCAL_RANK of rank $rank"
    expect_eq "$(rank_field "$out" "$rank" NODE)" "$(rank_field "$out" "$rank" NODEID)" "NODE_RANK of rank $rank"
    expect_eq "$(rank_field "$out" "$rank" WORLD)" 8 "WORLD_SIZE of rank $rank"
    expect_eq "$(rank_field "$out" "$rank" LWORLD)" 4 "LOCAL_WORLD_SIZE of rank $rank"
    expect_eq "$(rank_field "$out" "$rank" ADDR)" "$first_node" "MASTER_ADDR of rank $rank (the node of rank 0)"
    # per-rank:1: local rank r sees exactly the r-th GPU of the step on its node.
    step_gpus=$(rank_field "$out" "$rank" STEPGPUS)
    expect_eq "$(rank_field "$out" "$rank" CVD)" "$(echo "$step_gpus" | cut -d, -f$((local_rank + 1)))" \
        "CUDA_VISIBLE_DEVICES of rank $rank (step GPUs $step_gpus)"
    expect_eq "$(rank_field "$out" "$rank" ENV)" yes "preset env in rank $rank"
done
expect_eq "$(printf '%s\n' "$out" | grep -o 'CVD=[0-9]*' | sort | uniq -c | awk '{print $1}' | sort -u)" 2 \
    "each GPU index used once per node"

# --- ordered: every GPU visible, own first; --gpu-bind-policy overrides the preset ---------------
out=$(as_user alice timeout 60 srun -N1 -n2 --gpus=2 --preset=tspank-ordered bash -c "$report") ||
    fail "srun --preset=tspank-ordered failed: $out"
note "$out"
gpus=$(printf '%s\n' "$out" | grep -o 'STEPGPUS=[0-9,]*' | head -n1 | cut -d= -f2)
g0=${gpus%,*} g1=${gpus#*,}
expect_eq "$(printf '%s\n' "$out" | awk '$0 ~ /LOCALID=0 / { print }' | grep -o 'CVD=[0-9,]*')" "CVD=$g0,$g1" "ordered, local rank 0"
expect_eq "$(printf '%s\n' "$out" | awk '$0 ~ /LOCALID=1 / { print }' | grep -o 'CVD=[0-9,]*')" "CVD=$g1,$g0" "ordered, local rank 1"
expect_eq "$(printf '%s\n' "$out" | grep -c 'RANK= ')" 2 "no training env without distributed-env"

# --- closest against the fake sysfs -----------------------------------------------------------
out=$(as_user alice timeout 60 srun -N1 -n2 --gpus-per-node=4 --gpu-bind-policy=closest bash -c "$report") ||
    fail "srun --gpu-bind-policy=closest failed: $out"
note "$out"
expect_eq "$(printf '%s\n' "$out" | grep -o 'CVD=[0-9,]*' | sort | tr '\n' ' ')" "CVD=2 CVD=3 " \
    "closest picks the GPUs on the tasks' NUMA node"

# --- an unsatisfiable policy fails the step before any task runs --------------------------------
out=$(as_user alice timeout 60 srun -N1 -n3 --gpus-per-node=4 --preset=tspank-two bash -c 'echo TASK-RAN' 2>&1)
status=$?
note "$out"
[ "$status" -ne 0 ] || fail "srun with per-rank:2 for 3 ranks on 4 GPUs exited 0"
expect_match "$out" "per-rank:2' needs 6 GPUs for 3 local ranks but the step has 4 GPUs on this node" "the refusal"
printf '%s\n' "$out" | grep -q TASK-RAN && fail "a task ran although its step was refused"
note "unsatisfiable policy: srun exit $status"
exit 0
