#!/bin/bash
# A decrease counts only once the side that enforces it has taken it. Kueue's controller learns a
# ClusterQueue's new quota from its watch and reports the generation it has taken in the condition
# Active (observedGeneration); until then it admits by the old quota. No Kueue controller runs
# here: the test plays it (play_kueue in bridge-lib.sh writes the status a controller would) and
# makes it lag (kueue_lag_begin): the bridge lowers the ClusterQueue for Slurm's demand, and Slurm
# must not be raised while Kueue may still admit up to the old quota, which it then does.
# Sampled throughout: Slurm GPUs in use + Kubernetes GPU reservations <= Q.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

bridge_workload_begin tblag t-lag 4
kube_reaches() { [ "$(kube_used)" -ge "$1" ]; }
slurm_reaches() { [ "$(slurm_used)" -ge "$1" ]; }
quota_is() { [ "$(cq_quota)" -eq "$1" ]; }

set_kube_demand 4
wait_for 60 "Kubernetes to use all Q" kube_reaches 4 || fail "Kubernetes stuck at $(kube_used) of 4"
set_kube_demand 2
wait_for 30 "Kubernetes to give 2 back" sh -c "[ \$(cat $work/kube_used) -eq 2 ]" || fail "Kubernetes still at $(kube_used)"
await_convergence "Kubernetes at 2"
lk=$(cq_quota) ls=$(slurm_limit)  # 3 + 1: use 2, the idle GPUs split
expect_eq "$ls $lk" "1 3" "the split with Kubernetes using 2"

# Kueue lags; Slurm wants 4. The bridge lowers the ClusterQueue to Kubernetes' use (2), and may
# raise Slurm only once Kueue has taken that.
kueue_lag_begin
submit_slurm_jobs 4 20
wait_for 30 "the ClusterQueue lowered to 2" quota_is 2 || fail "quota not lowered: $(cq_quota); $(tail -n 3 "$work/log")"
sleep 5
expect_eq "$(slurm_limit)" "$ls" "Slurm's limit while Kueue has not taken the decrease"
# Kueue, still at the old quota, admits one more: 3 + Slurm's 1 = Q.
set_kube_demand 4
wait_for 30 "Kubernetes to reserve by the old quota" kube_reaches 3 || fail "Kubernetes stuck at $(kube_used) of 3"
sleep 3
expect_eq "$(slurm_limit)" "$ls" "Slurm's limit while Kubernetes holds 3 by the old quota"

# Kueue catches up and Kubernetes' demand falls to 1: Slurm gets the other 3.
kueue_lag_end
set_kube_demand 1
wait_for 60 "Slurm to use the 3 GPUs Kubernetes left" slurm_reaches 3 || fail "Slurm stuck at $(slurm_used) of 3"
await_convergence "Kueue caught up"
wait_for 120 "every Slurm job to finish" slurm_jobs_done || fail "Slurm jobs stuck: $(squeue -A "$BT_ACCOUNT")"
bridge_workload_verdict 20
note "Q=$Q: $samples samples, 0 violations; Slurm's limit stayed at $ls while Kueue lagged behind the decrease"
