#!/bin/bash
# The shared-quota invariant (see t-bridge-invariant.sh) under the faults that test does not inject:
# two bridges started at once (one leads, the other writes nothing); Kubernetes' use on both flavors
# (partitions debug and gpu) while the group's quota is lowered from 6 to 4 and raised back, with
# the invariant also sampled flavor by flavor (Slurm's use + what Kubernetes may hold on each
# flavor, max(use, quota), <= Q, once the lowered quota is in force and use is within it; before,
# the old one); etcd stopped and started under the apiserver, a slurmctld restart, a conflict storm (another writer
# zeroing the ClusterQueue's quota, stripping its managed-by label, and racing it with resourceVersion-conditional writes),
# the group's namespace moved to another group while Kubernetes holds 5 of its GPUs (Kueue keeps
# them in the old ClusterQueue until they finish: Slurm gets only the rest) and moved back,
# and an admin raising the ClusterQueue's quota and the account's GrpTRES by hand. After each
# fault the demand moves, and the bridge must converge (both sides read, limits adding up to Q)
# and serve the demand; the sampled invariant must never break. No Kueue controller runs here: the
# test plays Kueue (play_kueue in bridge-lib.sh writes the ClusterQueue status and pending Workloads).
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

bridge_pair
bridge_workload_begin tbfaults t-faults 6
trap bridge_pair_cleanup EXIT
kube_reaches() { [ "$(kube_used)" -ge "$1" ]; }
slurm_reaches() { [ "$(slurm_used)" -ge "$1" ]; }

submit_slurm_jobs 4 15
set_kube_demand 3
wait_for 60 "both clusters to use GPUs" both_busy || fail "no sharing: slurm=$(slurm_used) kube=$(kube_used); $(tails)"
one_leader

# Use on two flavors and a quota decrease. Kubernetes takes all 6 once Slurm's jobs end: the player
# fills the first flavor's quota, then the second's.
wait_for 60 "Slurm's jobs to end" slurm_jobs_done || fail "Slurm jobs stuck: $(squeue -A "$BT_ACCOUNT")"
set_kube_demand 6
wait_for 60 "Kubernetes to use all 6" kube_reaches 6 || fail "Kubernetes stuck at $(kube_used) of 6"
flavor_use() { kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o json | jq -c '[.status.flavorsReservation[] | .resources[0].total | tonumber]'; }
used_flavors=$(kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o json | jq '[.status.flavorsReservation[] | select((.resources[0].total | tonumber) > 0)] | length')
expect_eq "$used_flavors" 2 "flavors Kubernetes uses ($(flavor_use))"
# The quota drops to 4 (both bridges reload) while Kubernetes still wants 4 and Slurm 2 more: use
# above the new quota runs on, so the samples keep the old quota until use is within the new one.
touch "$work/sample_flavors"
sed -i 's/gpus: 6}/gpus: 4}/' "$work/bridge.yaml"
kill -HUP "$pid_a" "$pid_b"
set_kube_demand 4
submit_slurm_jobs 2 20
Q=4
await_convergence "the quota lowered to 4 (use $(flavor_use) on the flavors)"
within_quota() { [ $(($(slurm_used) + $(kube_used))) -le 4 ]; }
wait_for 60 "use within the lowered quota" within_quota || fail "use stays at slurm=$(slurm_used) kube=$(kube_used)"
lowered_from=$(wc -l <"$work/flavor_samples")
echo 4 >"$work/quota"
set_kube_demand 2
wait_for 60 "Slurm to use the 2 GPUs Kubernetes gave back" slurm_reaches 2 || fail "Slurm stuck at $(slurm_used) of 2"
await_convergence "Kubernetes giving back 2 under the lowered quota"
over=$(tail -n +"$((lowered_from + 1))" "$work/flavor_samples" | awk '$1 + $2 > $3' | head -n 3)
[ -z "$over" ] || fail "Slurm's use + what Kubernetes may hold on its flavors above the lowered quota: $over"
note "quota lowered to 4 with use on both flavors: $(($(wc -l <"$work/flavor_samples") - lowered_from)) per-flavor samples within it"
# And raised back to 6, with Kubernetes asking for more: it gets the 2 new GPUs.
wait_for 60 "Slurm's jobs to end" slurm_jobs_done || fail "Slurm jobs stuck: $(squeue -A "$BT_ACCOUNT")"
sed -i 's/gpus: 4}/gpus: 6}/' "$work/bridge.yaml"
kill -HUP "$pid_a" "$pid_b"
Q=6
echo 6 >"$work/quota"
set_kube_demand 6
await_convergence "the quota raised back to 6"
wait_for 60 "Kubernetes to use the raised quota" kube_reaches 6 || fail "Kubernetes stuck at $(kube_used) of 6"
over=$(awk '$1 + $2 > $3' "$work/flavor_samples" | head -n 3)
[ -z "$over" ] || fail "Slurm's use + what Kubernetes may hold on its flavors above the quota: $over"
rm "$work/sample_flavors"
expect_eq "$(writes_of "$flog")" 0 "writes by the standby bridge"
# The rest runs with the leader alone: a fault may move the lease, and the test reads one log.
kill -TERM "$follower"; wait "$follower" 2>/dev/null
[ "$follower" = "$pid_a" ] && pid_a= || pid_b=
bridge_pid=$leader
set_kube_demand 3
submit_slurm_jobs 4 15
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
note "the bridge's resourceVersion-conditional queue writes refused with 409 in the storm: $(grep -c 'msg="cannot apply" kind=ClusterQueue .*409' "$work/log")"

# Fault 4: the namespace moves to another group (SIGHUP) while Kubernetes holds 5 GPUs and Slurm
# asks for 4. Its LocalQueue is recreated on the other group's ClusterQueue; Kueue admits nothing
# more into this group's (the player's demand stays at its use, then drops to 0), but the 5 it
# holds stay there until they finish: Slurm gets 1 until then, then its 4. Moved back, the
# LocalQueue returns to this group's ClusterQueue.
other=${BT_ACCOUNT}b
sacctmgr -i add account "$other" Cluster="$(scontrol show config | sed -n 's/^ClusterName *= *//p')" >/dev/null || fail "cannot add account $other"
trap 'bridge_pair_cleanup; sacctmgr -i delete account "$other" >/dev/null 2>&1' EXIT
cp "$work/bridge.yaml" "$work/bridge.yaml.before-move"
sed -i "s/namespaces: \[$BT_NS\]/namespaces: []/" "$work/bridge.yaml"
echo "  - {name: $other, accounts: [$other], namespaces: [$BT_NS], gpus: 2}" >>"$work/bridge.yaml"
set_kube_demand "$(kube_used)"
submit_slurm_jobs 4 40
kill -HUP "$bridge_pid"
lq_queue() { kubectl -n "$BT_NS" get localqueue fairway -o jsonpath='{.spec.clusterQueue}' 2>/dev/null; }
wait_for 30 "the LocalQueue to move to fairway-$other" eval '[ "$(lq_queue)" = "fairway-$other" ]' ||
    fail "the LocalQueue of $BT_NS points at $(lq_queue); $(grep -i localqueue "$work/log" | tail -n 2)"
held=$(kube_used)
wait_for 30 "Slurm to get what Kubernetes does not hold" slurm_reaches $((Q - held)) ||
    fail "Slurm stuck at $(slurm_used) beside Kubernetes' $held in the old ClusterQueue"
sleep 3
[ $(($(slurm_used) + $(kube_used))) -le "$Q" ] || fail "after the move Slurm uses $(slurm_used) beside Kubernetes' $(kube_used) (Q=$Q)"
set_kube_demand 0
wait_for 90 "Slurm's 4 once Kubernetes' GPUs are released" slurm_reaches 4 || fail "Slurm stuck at $(slurm_used) of 4"
await_convergence "the namespace moved to $other"
cp "$work/bridge.yaml.before-move" "$work/bridge.yaml"
kill -HUP "$bridge_pid"
wait_for 30 "the LocalQueue to move back" eval '[ "$(lq_queue)" = "fairway-$BT_ACCOUNT" ]' ||
    fail "the LocalQueue of $BT_NS points at $(lq_queue) after moving back"
wait_for 120 "every Slurm job to finish" slurm_jobs_done || fail "Slurm jobs stuck: $(squeue -A "$BT_ACCOUNT")"
await_convergence "the namespace moved back"
note "namespace $BT_NS moved to $other with $held GPUs held in the old ClusterQueue: Slurm got $((Q - held)) beside them, then 4"

# Fault 5: an admin raises the limits by hand, with no demand left on either side (a raise with
# demand would break the invariant at once; the admin's doing, not the bridge's): the ClusterQueue's
# quota first (the watch starts a cycle at once), then the account's GrpTRES (seen at the next
# period). Each must be lowered again, logged and reported as an Event naming the queue.
await_convergence "before the admin raises"
lk=$(cq_quota) ls=$(slurm_limit)
raise=$(kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o json | jq -c --argjson q "$Q" '[.spec.resourceGroups[0].flavors[0].resources
        | to_entries[] | select(.value.name == "nvidia.com/gpu")
        | {op: "replace", path: "/spec/resourceGroups/0/flavors/0/resources/\(.key)/nominalQuota", value: ((.value.nominalQuota | tonumber) + $q)}]')
t0=$SECONDS
kubectl patch clusterqueue "fairway-$BT_ACCOUNT" --field-manager=admin --type=json -p "$raise" >/dev/null || fail "cannot raise the quota by hand"
quota_back() { [ "$(cq_quota)" -le "$lk" ]; }
wait_for 20 "the ClusterQueue's quota restored" quota_back || fail "quota left at $(cq_quota) (was $lk)"
note "ClusterQueue quota raised by hand from $lk by $Q: restored in $((SECONDS - t0)) s"
grep -q 'msg="limit raised outside the bridge; restoring" .*side=kubernetes' "$work/log" || fail "the raise was not logged"
events() { kubectl -n default get events -o json | jq -r --arg n "fairway-$BT_ACCOUNT" \
    '[.items[] | select(.involvedObject.name == $n and .reason == "LimitRaisedOutsideBridge")] | length'; }
[ "$(events)" -ge 1 ] || fail "no Event names the ClusterQueue"
t0=$SECONDS
sacctmgr -i modify account "$BT_ACCOUNT" set GrpTRES=gres/gpu=$((ls + Q)) >/dev/null || fail "cannot raise GrpTRES by hand"
slurm_back() { l=$(slurm_limit); [ -n "$l" ] && [ "$l" -ge 0 ] && [ "$l" -le "$ls" ]; }
wait_for 20 "Slurm's limit restored" slurm_back || fail "GrpTRES left at $(slurm_limit) (was $ls)"
note "GrpTRES raised by hand from $ls by $Q: restored in $((SECONDS - t0)) s"
grep -q 'msg="limit raised outside the bridge; restoring" .*side=slurm' "$work/log" || fail "the Slurm raise was not logged"
[ "$(events)" -ge 2 ] || fail "no Event for the Slurm raise"
await_convergence "the admin raises"

bridge_workload_verdict 20
note "Q=$Q: $samples samples, 0 violations, across an etcd stop/start, a slurmctld restart, a conflict storm, a namespace moved away and back, and admin raises; cycles with a side unreadable: $(unreadable_cycles)"
