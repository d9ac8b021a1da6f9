#!/bin/bash
# Kubernetes' demand is counted in GPUs, from pending Kueue Workloads: an idle group (Q=8) is split
# 4+4; one pending Workload of 2 pods x 4 GPUs (a gang) must move all 8 GPUs to Kubernetes. Counted
# as one pending workload it would weigh 1 GPU, and the idle split would leave it 4.
# No Kueue controller runs here: the Workload is created as Kueue's job integration would create it
# and nobody reserves quota for it (it stays pending); the ClusterQueue status is written by the
# test's Kueue player (play_kueue in bridge-lib.sh). The Workload CRD is fairway's own stand-in
# (etc/kubernetes/crds/kueue-workload.yaml, installed by tests/kube/kube): upstream's needs 1.21+.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

bridge_workload_begin tbdemand t-demand 8
quota_is() { [ "$(cq_quota)" -eq "$1" ]; }
await_convergence "start"
expect_eq "$(slurm_limit) $(cq_quota)" "4 4" "the idle split"

kubectl apply -f - >/dev/null <<YAML || fail "cannot create the Workload"
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: gang, namespace: $BT_NS}
spec:
  queueName: fairway
  podSets:
  - name: workers
    count: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: train
          image: trainer
          resources: {requests: {cpu: "1", nvidia.com/gpu: "4"}}
YAML
wait_for 30 "all 8 GPUs to Kubernetes" quota_is 8 || fail "Kubernetes quota $(cq_quota), Slurm limit $(slurm_limit): demand not counted in GPUs"
expect_eq "$(slurm_limit)" 0 "Slurm's limit while an 8-GPU gang waits"

# The Workload removed: the idle split comes back.
kubectl -n "$BT_NS" delete workload gang >/dev/null || fail "cannot delete the Workload"
wait_for 30 "the idle split again" quota_is 4 || fail "Kubernetes quota stuck at $(cq_quota)"
await_convergence "the Workload gone"
bridge_workload_verdict 3
note "Q=$Q: an 8-GPU gang moved the split from 4+4 to 0+8 and back; $samples samples, 0 violations"
