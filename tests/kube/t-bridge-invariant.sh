#!/bin/bash
# The shared-quota invariant under load and faults, on the real Slurm cluster (GrpTRES enforced)
# and the real kube-apiserver: Slurm jobs of account tbridge compete with Kubernetes workloads of
# namespace t-inv for Q GPUs. No Kueue controller runs: the test plays Kueue (it reserves workloads
# only within each flavor's quota and patches status.flavorsReservation as Kueue would) and samples, at exact instants,
#     Slurm GPUs in use + Kubernetes GPU usage <= Q
# while it stops/starts the apiserver and kill -9s the bridge. Zero violations, convergence after.
# The other faults (etcd restart, slurmctld restart, conflict storm) are in t-bridge-faults.sh.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

bridge_workload_begin tbridge t-inv 6

# Slurm demand: 5 one-GPU jobs; Kubernetes demand: 4 workloads. Together 9 > Q = 6.
submit_slurm_jobs 5 25
set_kube_demand 4
wait_for 60 "both clusters to use GPUs" both_busy || fail "no sharing: slurm=$(slurm_used) kube=$(kube_used)"

# Fault 1: the apiserver goes away; the bridge must hold (no raises), then resume.
"$kube" stop-apiserver >/dev/null || fail "cannot stop the apiserver"
wait_for 30 "the bridge to notice" grep -q 'kube_ok=false' "$work/log" || fail "bridge did not notice the apiserver stop"
"$kube" start-apiserver >/dev/null || fail "cannot start the apiserver"
await_convergence "apiserver stop/start"

# Fault 2: kill -9 the bridge mid-flight and start a new one.
bridge_kill9
set_kube_demand 1   # Kubernetes demand falls while no bridge runs
bridge_start
await_convergence "bridge kill -9"

# Convergence: the Slurm jobs all get to run (their demand is served) and finish.
wait_for 150 "every Slurm job to finish" slurm_jobs_done || fail "Slurm jobs stuck: $(squeue -A "$BT_ACCOUNT")"
bridge_workload_verdict 20
note "Q=$Q: $samples samples, 0 violations, across an apiserver stop/start and a bridge kill -9"
