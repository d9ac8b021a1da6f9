#!/bin/bash
# The shared-quota invariant when Kubernetes' use sits on one of several flavors. The Slurm cluster
# has two GPU partitions (debug, gpu), so the group's ClusterQueue has two flavors, and Kueue enforces
# each flavor's nominalQuota on its own. No Kueue controller runs here: the test plays Kueue
# (play_kueue in bridge-lib.sh: reserve on the first flavor with room, report
# status.flavorsReservation) and samples, at exact instants,
#     Slurm GPUs in use + Kubernetes GPU reservations <= Q
# while Kubernetes' quota decreases with all its use on the first flavor, and Kubernetes then asks
# for one GPU more: a split by partition size would leave the second flavor room beyond L_k.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

[ "$(sinfo -h -o %P | grep -c .)" -ge 2 ] || fail "the cluster harness should have two GPU partitions"
bridge_workload_begin tbflav t-flavors 6
kube_reaches() { [ "$(kube_used)" -ge "$1" ]; }
slurm_reaches() { [ "$(slurm_used)" -ge "$1" ]; }
flavor_count() { kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o json | jq '.spec.resourceGroups[0].flavors | length'; }
expect_eq "$(flavor_count)" 2 "flavors in the ClusterQueue"

# Kubernetes takes all Q, then gives half back: its 3 GPUs stay on the first flavor.
set_kube_demand 6
wait_for 60 "Kubernetes to use all Q" kube_reaches 6 || fail "Kubernetes stuck at $(kube_used) of 6"
set_kube_demand 3
wait_for 30 "Kubernetes to give 3 back" sh -c "[ \$(cat $work/kube_used) -eq 3 ]" || fail "Kubernetes still at $(kube_used)"

# Slurm wants 6: Kubernetes' quota drops to its use (3), Slurm is raised to 3.
submit_slurm_jobs 6 30
wait_for 60 "Slurm to use the 3 GPUs Kubernetes left" slurm_reaches 3 || fail "Slurm stuck at $(slurm_used) of 3"
await_convergence "the decrease"
# Kubernetes now wants one GPU more; no flavor may have room for it while Slurm holds its 3.
set_kube_demand 4
sleep 6
[ "$(kube_used)" -le 3 ] || fail "Kubernetes reserved $(kube_used) GPUs while Slurm used $(slurm_used) of Q=$Q"

wait_for 120 "every Slurm job to finish" slurm_jobs_done || fail "Slurm jobs stuck: $(squeue -A "$BT_ACCOUNT")"
wait_for 60 "Kubernetes demand served after Slurm's jobs" kube_reaches 4 || fail "Kubernetes stuck at $(kube_used) of 4"
bridge_workload_verdict 20
over=$(awk '$2 > $3' "$work/flavors" | wc -l)
note "Q=$Q: $samples samples, 0 violations; $(wc -l <"$work/flavors") flavor samples, $over with a flavor's use above its quota (a quota lowered under running work)"
