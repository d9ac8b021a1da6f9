#!/bin/bash
# The shared-quota invariant (see t-bridge-invariant.sh) under the faults that test does not inject:
# etcd stopped and started under the apiserver, a slurmctld restart, and a conflict storm (another writer
# zeroing the ClusterQueue's quota, stripping its managed-by label, and racing it with resourceVersion-conditional writes). After each
# fault the demand moves, and the bridge must converge (both sides read, limits adding up to Q)
# and serve the demand; the sampled invariant must never break.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

bridge_workload_begin tbfaults t-faults 6
kube_reaches() { [ "$(kube_used)" -ge "$1" ]; }
slurm_reaches() { [ "$(slurm_used)" -ge "$1" ]; }

submit_slurm_jobs 4 15
set_kube_demand 3
wait_for 60 "both clusters to use GPUs" both_busy || fail "no sharing: slurm=$(slurm_used) kube=$(kube_used)"

# Fault 1: etcd goes away under the apiserver, long enough for the bridge to fail a read, and comes
# back while Kubernetes' demand rises to 5: it gets them once Slurm's jobs end.
"$kube" stop-etcd >/dev/null || fail "cannot stop etcd"
wait_for 60 "the bridge to notice" grep -q 'kube_ok=false' "$work/log" || fail "bridge did not notice the etcd stop"
set_kube_demand 5
"$kube" start-etcd >/dev/null || fail "cannot start etcd"
await_convergence "etcd stop/start"
wait_for 90 "Kubernetes demand served after the etcd stop/start" kube_reaches 5 || fail "Kubernetes stuck at $(kube_used) of 5"

# Fault 2: slurmctld restarts while Slurm's demand rises (4 jobs) and Kubernetes' falls to 2.
submit_slurm_jobs 4 40
set_kube_demand 2
"$cluster" restart-ctld >/dev/null || fail "cannot restart slurmctld"
await_convergence "slurmctld restart"
wait_for 90 "Slurm demand served after the slurmctld restart" slurm_reaches 4 || fail "Slurm stuck at $(slurm_used) of 4"

# Fault 3: a conflict storm while Kubernetes wants 5 again and 2 more Slurm jobs queue.
set_kube_demand 5
submit_slurm_jobs 2 10
applied_before=$(grep -c 'msg=applied kind=ClusterQueue' "$work/log")
conflict_storm 15
note "storm: quota writer $(cat "$work/storm.zero"); conditional writer $(cat "$work/storm.rv")"
await_convergence "conflict storm"
grep -q 'zeroed=[1-9].* unlabelled=[1-9]' "$work/storm.zero" || fail "the storm never changed the quota and label: $(cat "$work/storm.zero")"
[ "$(grep -c 'msg=applied kind=ClusterQueue' "$work/log")" -gt "$applied_before" ] || fail "the bridge never took its quota back"

wait_for 120 "every Slurm job to finish" slurm_jobs_done || fail "Slurm jobs stuck: $(squeue -A "$BT_ACCOUNT")"
wait_for 60 "Kubernetes demand served after the storm" kube_reaches 5 || fail "Kubernetes stuck at $(kube_used) of 5"
bridge_workload_verdict 20
note "Q=$Q: $samples samples, 0 violations, across an etcd stop/start, a slurmctld restart and a conflict storm; cycles with a side unreadable: $(unreadable_cycles)"
