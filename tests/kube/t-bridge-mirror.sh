#!/bin/bash
# fairway-bridge against the real Slurm cluster and the real kube-apiserver (upstream Kueue CRDs),
# running as the non-admin fairway-bridge user under the project's least-privilege ClusterRole:
#  - mirrors GPU partitions to ResourceFlavors and groups to ClusterQueues/LocalQueues that
#    `kubectl get clusterqueues` shows; the quota is split (Slurm GrpTRES + ClusterQueue quota = Q);
#  - steady state makes zero writes (which also proves the server pruned none of our fields);
#  - a partition created with scontrol appears as a flavor, and disappears when deleted;
#  - only labelled objects are touched: a foreign ClusterQueue survives;
#  - queues cover cpu and memory besides the GPU; a partition named gpu_A100 (not a valid object
#    name) gets a valid flavor; a resource group added by hand survives the bridge's rewrite;
#  - a namespace moved to another group (SIGHUP) gets a new LocalQueue (deleted, then created):
#    Kueue refuses any change of a LocalQueue's spec.clusterQueue (a CEL rule 1.20 does not enforce).
#  - ownership: the bridge (owner default) adopts a queue of the form before owners (no
#    fairway.io/owner label); a second bridge of owner site-b, running beside it with a config naming
#    one of the first's groups and one of its own, deletes and rewrites nothing of the first's, and
#    the first deletes nothing of the second's.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

work=$(mktemp -d)
pid= pid_b=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [ -n "$pid_b" ] && kill "$pid_b" 2>/dev/null && wait "$pid_b" 2>/dev/null
    scontrol delete PartitionName=bridgetest >/dev/null 2>&1
    scontrol delete PartitionName=gpu_A100 >/dev/null 2>&1
    kubectl delete clusterqueues,resourceflavors,workloadpriorityclasses -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl delete localqueues -A -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl delete --ignore-not-found clusterqueue t-mirror-foreign >/dev/null 2>&1
    kubectl -n fairway-system delete --ignore-not-found lease fairway-bridge-site-b >/dev/null 2>&1
    unbind_bridge t-bridge-mirror
    for a in physics biology; do sacctmgr -i modify account "$a" set GrpTRES=gres/gpu=-1 >/dev/null 2>&1; done
    rm -rf "$work"
}
trap cleanup EXIT

for ns in t-physics t-moving t-biology t-chem; do kubectl get ns "$ns" >/dev/null 2>&1 || kubectl create ns "$ns" >/dev/null || fail "cannot create namespace $ns"; done
bind_bridge t-bridge-mirror
kubectl apply --validate=false -f - >/dev/null <<'YAML' || fail "cannot create the foreign ClusterQueue"
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: t-mirror-foreign}
spec: {namespaceSelector: {}, resourceGroups: []}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: fairway-physics, labels: {app.kubernetes.io/managed-by: fairway-bridge, fairway.io/group: physics}}
spec: {namespaceSelector: {}, resourceGroups: []}
YAML

cat >"$work/bridge.yaml" <<YAML
kubernetes: {kubeconfig: $FAIRWAY_KUBE_BRIDGE_KUBECONFIG, cohort: t-mirror}
reconcile: {period_seconds: 1, stale_after_seconds: 5, write_timeout_seconds: 1}
metrics: {listen: "127.0.0.1:0"}
groups:
  - {name: physics, accounts: [physics], namespaces: [t-physics, t-moving], gpus: 8}
  - {name: biology, accounts: [biology], namespaces: [t-biology], gpus: 6}
YAML
"$bridge" --config "$work/bridge.yaml" --check-config >/dev/null || fail "configuration rejected"
"$bridge" --config "$work/bridge.yaml" >"$work/log" 2>&1 &
pid=$!

cq_quota() {  # sum of a ClusterQueue's GPU nominal quotas
    kubectl get clusterqueue "$1" -o json 2>/dev/null |
        jq '[.spec.resourceGroups[].flavors[].resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota | tonumber] | add'
}
slurm_limit() { sacctmgr -n -P list assoc account="$1" user= format=grptres | sed -n 's/.*gres\/gpu=\([0-9]*\).*/\1/p'; }
split_is() { [ "$(slurm_limit "$1")" = "$2" ] && [ "$(cq_quota "fairway-$1")" = "$3" ]; }

wait_for 60 "physics split 4+4" split_is physics 4 4 || fail "physics not split: slurm=$(slurm_limit physics) kube=$(cq_quota fairway-physics); log: $(tail -n 20 "$work/log")"
wait_for 30 "biology split 3+3" split_is biology 3 3 || fail "biology not split: slurm=$(slurm_limit biology) kube=$(cq_quota fairway-biology)"
out=$(kubectl get clusterqueues 2>&1)
expect_match "$out" "fairway-physics" "kubectl get clusterqueues"
expect_match "$out" "fairway-biology" "kubectl get clusterqueues"
expect_eq "$(kubectl get localqueue -n t-physics fairway -o jsonpath='{.spec.clusterQueue}')" "fairway-physics" "LocalQueue target"
expect_eq "$(kubectl get resourceflavor slurm-gpu -o jsonpath='{.spec.nodeLabels.fairway\.io/slurm-partition}')" "gpu" "flavor node label"
expect_eq "$(kubectl get clusterqueue fairway-physics -o jsonpath='{.spec.cohort}')" "t-mirror" "cohort"
gpu_limits='[.spec.resourceGroups[].flavors[].resources[] | select(.name == "nvidia.com/gpu") | "\(.borrowingLimit)/\(.lendingLimit)"] | join(" ")'
expect_eq "$(kubectl get clusterqueue fairway-physics -o json | jq -r "$gpu_limits")" "0/0 0/0" "no borrowing from, no lending to the cohort"
# Kueue refuses a workload requesting a resource its ClusterQueue does not cover: cpu and memory too.
expect_eq "$(kubectl get clusterqueue fairway-physics -o jsonpath='{.spec.resourceGroups[0].coveredResources}')" \
    '["nvidia.com/gpu","cpu","memory"]' "covered resources"

# Steady state: several complete cycles in a row with zero writes.
steady() { tail -n 3 "$work/log" | grep -c 'msg=cycle writes=0 ' | grep -qx 3; }
wait_for 30 "three write-free cycles" steady || fail "no steady state: $(grep 'msg=cycle' "$work/log" | tail -n 5)"

# /metrics and /healthz on the loopback port the bridge picked.
port=$(sed -n 's/.*msg=started .*metrics_port=\([0-9]*\).*/\1/p' "$work/log")
[ -n "$port" ] || fail "no metrics port logged: $(head -n 3 "$work/log")"
metrics=$(curl -fsS "http://127.0.0.1:$port/metrics") || fail "GET /metrics failed"
expect_match "$metrics" '^fairway_bridge_group_quota_gpus\{group="physics"\} 8$' "quota metric"
expect_match "$metrics" '^fairway_bridge_group_limit_gpus\{group="physics",side="kubernetes"\} 4$' "limit metric"
expect_match "$metrics" '^fairway_bridge_api_requests_total [1-9]' "API request counter"
expect_eq "$(curl -sS "http://127.0.0.1:$port/healthz")" "ok" "/healthz"
expect_match "$metrics" '^fairway_bridge_watch_events_total [1-9]' "watch events (the quota raise is a MODIFIED event)"

# Partitions are followed both ways.
scontrol create PartitionName=bridgetest Nodes=node1 State=UP PriorityTier=7 >/dev/null || fail "cannot create a partition"
wait_for 30 "flavor for the new partition" kubectl get resourceflavor slurm-bridgetest || fail "new partition not mirrored"
kubectl get workloadpriorityclass slurm-tier-7 >/dev/null 2>&1 || fail "no WorkloadPriorityClass for PriorityTier 7"
scontrol delete PartitionName=bridgetest >/dev/null || fail "cannot delete the partition"
gone() { ! kubectl get resourceflavor slurm-bridgetest >/dev/null 2>&1; }
wait_for 30 "flavor of the deleted partition to go" gone || fail "deleted partition's flavor remains"
kubectl get clusterqueue t-mirror-foreign >/dev/null 2>&1 || fail "a ClusterQueue the bridge does not own was deleted"

note "ownership: a bridge of another owner beside this one"
owner_of() { kubectl get "$@" -o jsonpath='{.metadata.labels.fairway\.io/owner}' 2>/dev/null; }
expect_eq "$(owner_of clusterqueue/fairway-physics)" default "owner of the adopted queue made before owners"
cat >"$work/site-b.yaml" <<YAML
kubernetes: {kubeconfig: $KUBECONFIG, owner: site-b, cohort: t-mirror}
reconcile: {period_seconds: 1, stale_after_seconds: 5, write_timeout_seconds: 1}
metrics: {listen: "127.0.0.1:0"}
groups:
  - {name: biology, accounts: [biology], namespaces: [t-biology], gpus: 6}
  - {name: chem, accounts: [t-chem-none], namespaces: [t-chem], gpus: 2}
YAML
bio_version=$(kubectl get clusterqueue fairway-biology -o jsonpath='{.metadata.resourceVersion}')
"$bridge" --config "$work/site-b.yaml" >"$work/log.b" 2>&1 &
pid_b=$!
site_b_queue() { [ "$(owner_of clusterqueue/fairway-chem)" = site-b ]; }
wait_for 30 "site-b's ClusterQueue" site_b_queue || fail "no queue of site-b: $(grep -v msg=cycle "$work/log.b" | tail -n 8)"
expect_eq "$(owner_of localqueue/fairway -n t-chem)" site-b "owner of site-b's LocalQueue"
sleep 3  # both bridges cycle side by side
kill -TERM "$pid_b"; wait "$pid_b" || fail "site-b's bridge exited with $?"
for object in clusterqueue/fairway-physics clusterqueue/fairway-biology resourceflavor/slurm-gpu; do
    expect_eq "$(owner_of "$object")" default "owner of $object after site-b's run"
done
expect_eq "$(kubectl -n t-physics get localqueue fairway -o jsonpath='{.spec.clusterQueue}')" fairway-physics \
    "the default bridge's LocalQueue after site-b's run"
expect_eq "$(kubectl get clusterqueue fairway-biology -o jsonpath='{.metadata.resourceVersion}')" "$bio_version" \
    "fairway-biology's version (site-b must not write the default bridge's queue of the same group)"
grep -q 'msg="object of another owner; not touched" path=[^ ]*/clusterqueues/fairway-biology owner=default' "$work/log.b" ||
    fail "site-b did not log the queue it left alone: $(grep -v msg=cycle "$work/log.b" | tail -n 5)"
grep -Eq 'msg=deleted |msg="deleted to recreate' "$work/log.b" && fail "site-b deleted: $(grep 'msg=deleted' "$work/log.b")"
# The default bridge goes on beside site-b's objects and leaves them.
sleep 2
kubectl get clusterqueue fairway-chem >/dev/null 2>&1 || fail "the default bridge deleted site-b's ClusterQueue"
kubectl -n t-chem get localqueue fairway >/dev/null 2>&1 || fail "the default bridge deleted site-b's LocalQueue"
grep -E 'msg=(applied|deleted|"deleted to recreate).*fairway-chem' "$work/log" &&
    fail "the default bridge wrote site-b's objects"

# A partition name Kubernetes does not accept as an object name gets a valid flavor, and a resource
# group an admin added to a ClusterQueue survives the bridge's forced apply (resourceGroups is an
# atomic list: an apply without it would replace the whole list).
kubectl patch clusterqueue fairway-physics --type=json -p '[{"op": "add", "path": "/spec/resourceGroups/-", "value":
    {"coveredResources": ["example.com/fpga"], "flavors": [{"name": "t-mirror-fpga", "resources": [{"name": "example.com/fpga", "nominalQuota": 2}]}]}}]' \
    >/dev/null || fail "cannot add a resource group by hand"
scontrol create PartitionName=gpu_A100 Nodes=node1 State=UP >/dev/null || fail "cannot create partition gpu_A100"
odd_flavor() { kubectl get resourceflavors -l fairway.io/slurm-partition=gpu_A100 -o jsonpath='{.items[0].metadata.name}' 2>/dev/null; }
in_queue() { kubectl get clusterqueue fairway-physics -o json | jq -e --arg f "$(odd_flavor)" '[.spec.resourceGroups[].flavors[].name] | index($f)' >/dev/null; }
wait_for 30 "a flavor for partition gpu_A100 in fairway-physics" in_queue ||
    fail "gpu_A100 not mirrored: $(grep -E 'cannot apply|refuse' "$work/log" | tail -n 3)"
expect_match "$(odd_flavor)" '^slurm-gpu-a100-[0-9a-f]{8}$' "flavor name of partition gpu_A100"
expect_eq "$(kubectl get clusterqueue fairway-physics -o jsonpath='{.spec.resourceGroups[1].flavors[0].name}')" \
    t-mirror-fpga "the admin's resource group after the bridge rewrote the queue"
scontrol delete PartitionName=gpu_A100 >/dev/null || fail "cannot delete partition gpu_A100"

# t-moving moves from physics to biology.
lq() { kubectl -n t-moving get localqueue fairway -o jsonpath="{.$1}" 2>/dev/null; }
wait_for 30 "t-moving's LocalQueue" sh -c "kubectl -n t-moving get localqueue fairway >/dev/null 2>&1" || fail "no LocalQueue in t-moving"
old_uid=$(lq metadata.uid)
sed -i -e 's/namespaces: \[t-physics, t-moving\]/namespaces: [t-physics]/' -e 's/namespaces: \[t-biology\]/namespaces: [t-biology, t-moving]/' "$work/bridge.yaml"
kill -HUP "$pid"
moved() { [ "$(lq spec.clusterQueue)" = fairway-biology ]; }
wait_for 30 "t-moving's LocalQueue to point at fairway-biology" moved || fail "LocalQueue still at $(lq spec.clusterQueue)"
[ "$(lq metadata.uid)" != "$old_uid" ] || fail "the LocalQueue was changed in place (Kueue refuses that), not recreated"
grep -q 'msg="deleted to recreate (immutable field changed)" kind=LocalQueue' "$work/log" || fail "the recreation is not logged"

kill -TERM "$pid"; wait "$pid"; status=$?; pid=
expect_eq "$status" 0 "exit status after SIGTERM"
grep -q 'msg=stopping signal=SIGTERM' "$work/log" || fail "no graceful stop logged"
grep -Eiq 'token|bearer' "$work/log" && fail "log mentions a token"
note "mirrored, split, steady, followed partitions; $(grep -c 'msg=cycle' "$work/log") cycles"
