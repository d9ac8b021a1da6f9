#!/bin/bash
# Flavors per GPU type (kubernetes.flavors: gpu_types) on the real cluster: nodes 1-2 carry 4 a100
# each, nodes 3-4 4 h100 each, and partitions gpu and debug both hold all four nodes. A group of
# 32 GPUs without demand gets 16 on Kubernetes:
#  - its ClusterQueue has one flavor per type, gpu-a100 and gpu-h100, whose quotas are exactly what
#    the nodes carry (8 and 8: each node counted once, not once per partition);
#  - partitions a100 and h100 added over the same nodes add no flavor and move no quota;
#  - each type's ResourceFlavor selects its nodes by label (fairway.io/gpu-type, or gpu_types' labels).
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    for p in a100 h100; do scontrol delete PartitionName=$p >/dev/null 2>&1; done
    kubectl delete clusterqueues,resourceflavors,workloadpriorityclasses -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl delete localqueues -A -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    unbind_bridge t-bridge-types
    sacctmgr -i modify account physics set GrpTRES=gres/gpu=-1 >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

kubectl get ns t-types >/dev/null 2>&1 || kubectl create ns t-types >/dev/null || fail "cannot create namespace t-types"
bind_bridge t-bridge-types
cat >"$work/bridge.yaml" <<YAML
kubernetes: {kubeconfig: $FAIRWAY_KUBE_BRIDGE_KUBECONFIG, flavors: gpu_types}
gpu_types:
  h100: {node_labels: {nvidia.com/gpu.product: NVIDIA-H100}}
reconcile: {period_seconds: 1, stale_after_seconds: 5, write_timeout_seconds: 1}
metrics: {listen: "127.0.0.1:0"}
groups:
  - {name: physics, accounts: [physics], namespaces: [t-types], gpus: 32}
YAML
"$bridge" --config "$work/bridge.yaml" >"$work/log" 2>&1 &
pid=$!

# "flavor=quota ..." of the group's ClusterQueue, by flavor name.
quotas() {
    kubectl get clusterqueue fairway-physics -o json 2>/dev/null |
        jq -r '[.spec.resourceGroups[].flavors[] | "\(.name)=\(.resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota)"] | sort | join(" ")'
}
quotas_are() { [ "$(quotas)" = "$1" ]; }
wait_for 60 "a quota per GPU type" quotas_are "gpu-a100=8 gpu-h100=8" ||
    fail "quotas: '$(quotas)'; log: $(grep -v msg=cycle "$work/log" | tail -n 5)"
flavors() { kubectl get resourceflavors -l app.kubernetes.io/managed-by=fairway-bridge -o jsonpath='{.items[*].metadata.name}'; }
expect_eq "$(flavors)" "gpu-a100 gpu-h100" "ResourceFlavors"
expect_eq "$(kubectl get resourceflavor gpu-a100 -o jsonpath='{.spec.nodeLabels}')" '{"fairway.io/gpu-type":"a100"}' "a100's node labels"
expect_eq "$(kubectl get resourceflavor gpu-h100 -o jsonpath='{.spec.nodeLabels}')" '{"nvidia.com/gpu.product":"NVIDIA-H100"}' \
    "h100's node labels (from gpu_types)"

note "partitions a100 and h100 over the same nodes"
scontrol create PartitionName=a100 Nodes=node[1-2] State=UP >/dev/null || fail "cannot create partition a100"
scontrol create PartitionName=h100 Nodes=node[3-4] State=UP PriorityTier=3 >/dev/null || fail "cannot create partition h100"
tier() { kubectl get workloadpriorityclass slurm-tier-3 >/dev/null 2>&1; }
wait_for 30 "the new partition's priority tier" tier || fail "partition h100 not seen"
sleep 2  # more cycles with the new partitions
expect_eq "$(quotas)" "gpu-a100=8 gpu-h100=8" "quotas with overlapping partitions"
expect_eq "$(flavors)" "gpu-a100 gpu-h100" "ResourceFlavors with overlapping partitions"
steady() { tail -n 3 "$work/log" | grep -c 'msg=cycle writes=0 ' | grep -qx 3; }
wait_for 30 "three write-free cycles" steady || fail "no steady state: $(grep 'msg=cycle' "$work/log" | tail -n 5)"
note "a flavor per GPU type, 8 a100 + 8 h100 for 16 GPUs on four partitions; $(grep -c 'msg=cycle' "$work/log") cycles"
