#!/bin/bash
# The shared-quota invariant under load and faults, on the real Slurm cluster (GrpTRES enforced)
# and the real kube-apiserver: Slurm jobs of account tbridge compete with Kubernetes workloads of
# namespace t-inv for Q GPUs (tbridge: an account of its own, so other tests' jobs do not count). The test plays Kueue (it admits workloads only within the ClusterQueue's
# quota and patches status.flavorsUsage as Kueue would) and samples, at exact instants,
#     Slurm GPUs in use + Kubernetes GPU usage <= Q
# while it stops/starts the apiserver and kill -9s the bridge. Zero violations, convergence after.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"
cluster=$FAIRWAY_SRC/tests/cluster/cluster kube=$FAIRWAY_SRC/tests/kube/kube
Q=6

work=$(mktemp -d)
bridge_pid= player_pid=
start_bridge() { "$bridge" --config "$work/bridge.yaml" >>"$work/log" 2>&1 & bridge_pid=$!; }
cleanup() {
    [ -n "$player_pid" ] && kill "$player_pid" 2>/dev/null
    [ -n "$bridge_pid" ] && kill "$bridge_pid" 2>/dev/null
    wait 2>/dev/null
    "$kube" start-apiserver >/dev/null 2>&1
    scancel -A tbridge >/dev/null 2>&1
    kubectl delete clusterqueues,resourceflavors,workloadpriorityclasses -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl delete localqueues -A -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl delete --ignore-not-found clusterrolebinding t-bridge-invariant >/dev/null 2>&1
    sacctmgr -i delete user alice account=tbridge >/dev/null 2>&1
    sacctmgr -i delete account tbridge >/dev/null 2>&1
    "$cluster" conf-reset >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

"$cluster" conf-set AccountingStorageEnforce=associations,limits >/dev/null || fail "cannot enforce limits"
eval "$("$cluster" env)"
scontrol show config | grep -q 'AccountingStorageEnforce *= *associations,limits' || fail "limits are not enforced"
sacctmgr -i add account tbridge Cluster="$(scontrol show config | sed -n 's/^ClusterName *= *//p')" >/dev/null || fail "cannot add account"
sacctmgr -i add user alice Account=tbridge >/dev/null || fail "cannot add alice to tbridge"
wait_for 30 "slurmctld to know account tbridge" sh -c "scontrol -o show assoc_mgr accounts=tbridge flags=assoc | grep -q 'UserName=alice'" ||
    fail "slurmctld does not know tbridge"
kubectl get ns t-inv >/dev/null 2>&1 || kubectl create ns t-inv >/dev/null || fail "cannot create namespace"
kubectl apply -f "$FAIRWAY_SRC/etc/kubernetes/bridge/rbac.yaml" >/dev/null || fail "cannot install RBAC"
kubectl delete --ignore-not-found clusterrolebinding t-bridge-invariant >/dev/null
kubectl create clusterrolebinding t-bridge-invariant --clusterrole=fairway-bridge --user=fairway-bridge >/dev/null || fail "cannot bind"
cat >"$work/bridge.yaml" <<YAML
kubernetes: {kubeconfig: $FAIRWAY_KUBE_BRIDGE_KUBECONFIG}
reconcile: {period_seconds: 1, stale_after_seconds: 3, write_timeout_seconds: 1}
metrics: {listen: "127.0.0.1:0"}
groups:
  - {name: tbridge, accounts: [tbridge], namespaces: [t-inv], gpus: $Q}
YAML
start_bridge

slurm_used() {  # GPUs of running jobs of tbridge, as slurmctld's association manager counts them
    scontrol -o show assoc_mgr accounts=tbridge flags=assoc | grep 'UserName= ' | tr ' ' '\n' | grep '^GrpTRES=' |
        sed -n 's/.*[=,]gres\/gpu=[^(]*(\([0-9]*\)).*/\1/p'
}
cq_quota() {
    kubectl get clusterqueue fairway-tbridge -o json 2>/dev/null |
        jq '[.spec.resourceGroups[].flavors[].resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota | tonumber] | add // 0'
}
kube_has_quota() { [ "$(cq_quota)" -gt 0 ]; }
wait_for 60 "the ClusterQueue to get a quota" kube_has_quota ||
    fail "no quota for Kubernetes: $(tail -n 5 "$work/log")"

# The Kubernetes side, played as Kueue would: admit one workload at a time while usage < quota
# (never preempting when the quota drops), finish workloads when demand falls. Every loop also
# samples Slurm's use at an instant when Kubernetes' usage is exactly known (only this loop changes it).
echo 0 >"$work/demand"
play_kueue() {
    local used=0 pending=-1 samples=0 quota flavor want s
    while :; do
        want=$(cat "$work/demand")
        if quota=$(cq_quota) && [ -n "$quota" ]; then
            if [ "$used" -gt "$want" ]; then used=$want; elif [ "$used" -lt "$want" ] && [ "$used" -lt "$quota" ]; then used=$((used + 1)); fi
            flavor=$(kubectl get clusterqueue fairway-tbridge -o jsonpath='{.spec.resourceGroups[0].flavors[0].name}')
            if [ "$pending" != $((want - used)) ] || [ "$changed" != "$used" ]; then
                kubectl patch clusterqueue fairway-tbridge --subresource=status --type=merge -p \
                    "{\"status\":{\"pendingWorkloads\":$((want - used)),\"flavorsUsage\":[{\"name\":\"$flavor\",\"resources\":[{\"name\":\"nvidia.com/gpu\",\"total\":\"$used\",\"borrowed\":\"0\"}]}]}}" \
                    >/dev/null 2>&1 && { pending=$((want - used)); changed=$used; }
            fi
        fi
        if s=$(slurm_used) && [ -n "$s" ]; then
            samples=$((samples + 1)); echo "$samples" >"$work/samples"
            [ $((s + changed)) -le $Q ] || echo "slurm=$s kube=$changed at $(date +%T.%N)" >>"$work/violations"
        fi
        echo "${changed:-0}" >"$work/kube_used"
        sleep 0.2
    done
}
changed=0
play_kueue &
player_pid=$!

# Slurm demand: 5 one-GPU jobs; Kubernetes demand: 4 workloads. Together 9 > Q = 6.
for i in 1 2 3 4 5; do
    runuser -u alice -- sbatch -A tbridge -p gpu --gres=gpu:1 -t 2 --chdir=/tmp -o /dev/null --wrap "sleep 25" >/dev/null ||
        fail "cannot submit a Slurm job"
done
echo 4 >"$work/demand"
both_busy() { [ "$(slurm_used)" -ge 1 ] && [ "$(cat "$work/kube_used")" -ge 1 ]; }
wait_for 60 "both clusters to use GPUs" both_busy || fail "no sharing: slurm=$(slurm_used) kube=$(cat "$work/kube_used")"

# Fault 1: the apiserver goes away; the bridge must hold (no raises), then resume.
"$kube" stop-apiserver >/dev/null || fail "cannot stop the apiserver"
wait_for 30 "the bridge to notice" grep -q 'kube_ok=false' "$work/log" || fail "bridge did not notice the apiserver stop"
"$kube" start-apiserver >/dev/null || fail "cannot start the apiserver"
wait_for 60 "the bridge to read Kubernetes again" sh -c "tail -n 1 '$work/log' | grep -q 'kube_ok=true'" || fail "no recovery after apiserver restart"

# Fault 2: kill -9 the bridge mid-flight and start a new one.
kill -9 "$bridge_pid"; wait "$bridge_pid" 2>/dev/null
echo 1 >"$work/demand"   # Kubernetes demand falls while no bridge runs
start_bridge

# Convergence: the Slurm jobs all get to run (their demand is served) and finish.
all_done() { [ -z "$(squeue -h -A tbridge -o %i)" ]; }
wait_for 150 "every Slurm job to finish" all_done || fail "Slurm jobs stuck: $(squeue -A tbridge)"
kill "$player_pid" 2>/dev/null; wait "$player_pid" 2>/dev/null; player_pid=

samples=$(cat "$work/samples")
[ "$samples" -ge 20 ] || fail "too few samples ($samples)"
[ -s "$work/violations" ] && fail "invariant violated: $(head -n 5 "$work/violations")"
grep -q 'msg="set GrpTRES"' "$work/log" || fail "the bridge never moved the Slurm limit"
note "Q=$Q: $samples samples, 0 violations, across an apiserver stop/start and a bridge kill -9"
