#!/bin/bash
# fairway-bridge with the Volcano backend, through a kubeconfig that embeds its CA
# (certificate-authority-data): --dry-run writes nothing and has the apiserver judge each object
# (dryRun=All; a group name Kubernetes refuses is a configuration error first); then the group's Queue appears with a GPU
# capability that, with the Slurm GrpTRES, adds up to the quota; SIGHUP with a broken file keeps
# the old configuration running, SIGHUP with a good one applies it, but raises nothing while the
# Queue's status.allocated is missing (use unknown); a SIGHUP that adds a usage section meters a
# running PodGroup into usage records. No Volcano scheduler runs here: the test writes the Queue
# and PodGroup status it would (patch_status, kubectl patch).
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    kubectl -n t-biology delete podgroups.scheduling.volcano.sh gang --ignore-not-found >/dev/null 2>&1
    kubectl delete queues.scheduling.volcano.sh -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    unbind_bridge t-bridge-volcano
    sacctmgr -i modify account biology set GrpTRES=gres/gpu=-1 >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT

kubectl config view --kubeconfig "$FAIRWAY_KUBE_BRIDGE_KUBECONFIG" --flatten --minify >"$work/embedded.kubeconfig" ||
    fail "cannot flatten the kubeconfig"
grep -q 'certificate-authority-data:' "$work/embedded.kubeconfig" || fail "kubeconfig has no embedded CA"
bind_bridge t-bridge-volcano
write_config() {
    cat >"$work/bridge.yaml" <<YAML
kubernetes: {kubeconfig: $work/embedded.kubeconfig, backend: volcano}
reconcile: {period_seconds: 1, stale_after_seconds: 5, write_timeout_seconds: 1}
leader_election: {lease_duration_seconds: 4, renew_deadline_seconds: 3, retry_period_seconds: 1}
metrics: {listen: "127.0.0.1:0"}
groups:
  - {name: biology, accounts: [biology], namespaces: [t-biology], gpus: $1}
YAML
}
write_config 6

"$bridge" --config "$work/bridge.yaml" --once --dry-run >"$work/dry.log" 2>&1 || fail "dry run failed: $(tail -n 5 "$work/dry.log")"
grep -q 'msg="dry-run: would apply" .*result="HTTP 20[01]"' "$work/dry.log" || fail "dry run did not ask the apiserver: $(grep dry-run "$work/dry.log" | head -n 3)"
kubectl get queues.scheduling.volcano.sh fairway-biology >/dev/null 2>&1 && fail "dry run created a Queue"
# A group name Kubernetes would refuse as a Queue name is refused by the configuration already,
# naming the key, before anything is sent.
sed 's/name: biology,/name: Bio_Logy,/' "$work/bridge.yaml" >"$work/bad-name.yaml"
"$bridge" --config "$work/bad-name.yaml" --once --dry-run >"$work/dry-bad.log" 2>&1 &&
    fail "a group name Kubernetes refuses was accepted: $(tail -n 3 "$work/dry-bad.log")"
grep -q 'groups\[0\]\.name' "$work/dry-bad.log" || fail "the refusal does not name the key: $(tail -n 3 "$work/dry-bad.log")"

"$bridge" --config "$work/bridge.yaml" >"$work/log" 2>&1 &
pid=$!
capability() { kubectl get queues.scheduling.volcano.sh fairway-biology -o jsonpath='{.spec.capability.nvidia\.com/gpu}' 2>/dev/null; }
slurm_limit() { sacctmgr -n -P list assoc account=biology user= format=grptres | sed -n 's/.*gres\/gpu=\([0-9]*\).*/\1/p'; }
split_is() { [ "$(slurm_limit)" = "$1" ] && [ "$(capability)" = "$2" ]; }
# The Queue appears without status.allocated (no Volcano scheduler runs here): its use is unknown,
# never zero, so the bridge counts the Queue as unread and raises nothing on it.
unknown_logged() { [ "$(grep -c 'msg="queue use unknown (no status.allocated); not counted as read"' "$work/log")" -ge "$1" ]; }
wait_for 60 "the Queue's use reported unknown" unknown_logged 1 || fail "unknown use not reported: $(tail -n 5 "$work/log")"
sleep 4
expect_eq "$(capability)" 0 "the Queue's capability while its use is unknown"
# The test writes the status Volcano's scheduler would: nothing allocated.
token=$(token_in "$KUBECONFIG") queue_path=/apis/scheduling.volcano.sh/v1beta1/queues/fairway-biology
patch_status "$token" "$queue_path" '{"status":{"allocated":{"nvidia.com/gpu":"0"}}}' || fail "cannot write the Queue status"
wait_for 60 "biology split 3+3 on Volcano" split_is 3 3 || fail "no split: slurm=$(slurm_limit) volcano=$(capability); $(tail -n 5 "$work/log")"
expect_eq "$(kubectl get queues.scheduling.volcano.sh fairway-biology -o jsonpath='{.metadata.labels.app\.kubernetes\.io/managed-by}')" \
    "fairway-bridge" "Queue label"

echo "groups: [{name: biology, accounts: [biology], gpus: lots}]" >"$work/bridge.yaml"
kill -HUP "$pid"
wait_for 20 "the broken file to be rejected" grep -q 'configuration rejected' "$work/log" || fail "bad config not reported"
grep 'configuration rejected' "$work/log" | grep -q 'gpus' || fail "rejection does not name the key"
kill -0 "$pid" 2>/dev/null || fail "the bridge died on a bad reload"
# status.allocated gone again: the new quota raises nothing until it is back.
patch_status "$token" "$queue_path" '{"status":{"allocated":null}}' || fail "cannot clear the Queue status"
wait_for 30 "the Queue's use reported unknown again" unknown_logged 2 || fail "unknown use not reported again"
sleep 6  # longer than stale_after (5 s): the last reading of the Queue is stale, like any failed read
write_config 10
kill -HUP "$pid"
sleep 5
expect_eq "$(slurm_limit) $(capability)" "3 3" "limits while the Queue's use is unknown"
patch_status "$token" "$queue_path" '{"status":{"allocated":{"nvidia.com/gpu":"0"}}}' || fail "cannot write the Queue status"
wait_for 60 "the new quota split 5+5" split_is 5 5 || fail "reload not applied: slurm=$(slurm_limit) volcano=$(capability)"
# Demand in GPUs: a pending PodGroup of the Queue asking for 10 GPUs (minResources) takes them all.
kubectl get ns t-biology >/dev/null 2>&1 || kubectl create ns t-biology >/dev/null || fail "cannot create t-biology"
kubectl apply -f - >/dev/null <<YAML || fail "cannot create the PodGroup"
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: gang, namespace: t-biology}
spec: {queue: fairway-biology, minMember: 2, minResources: {nvidia.com/gpu: "10"}}
YAML
wait_for 60 "the 10 GPUs to Volcano" split_is 0 10 || fail "demand not counted in GPUs: slurm=$(slurm_limit) volcano=$(capability)"

# Slurm's standing: the Queue weighs what biology's association does (standing_weight, from sshare).
queue_weight() { kubectl get queues.scheduling.volcano.sh fairway-biology -o jsonpath='{.spec.weight}'; }
wait_for 20 "the Queue to carry biology's standing" eval '[ "$(queue_weight)" = "$(standing_weight biology)" ]' ||
    fail "Queue weight $(queue_weight), biology's standing $(standing_weight biology): $(sshare -A biology -n -P -o Account,User,NormShares,EffectvUsage | head -n 2 | tr '\n' ';')"

# Metering, turned on by a SIGHUP that adds a usage section. The spool is the test's own: the
# plugin does not read it (t-bridge-usage.sh shows the plugin charging the same records). The gang
# runs as Volcano's scheduler shows it: phase Running with condition Scheduled at its start (the
# Queue's status.allocated holding its 10 GPUs), then phase Completed, which Volcano stamps with no
# time. It must be charged 10 GPUs from its Scheduled time to the last record that saw it running
# (at most a record period, 2 s, and a cycle short), once, although the bridge is killed with -9 mid-run.
write_config 10
echo "usage: {spool: $work/spool, source: volcano, record_seconds: 2, gpu_billing: 8}" >>"$work/bridge.yaml"
kill -HUP "$pid"
usage_reloaded() { grep 'msg="configuration reloaded"' "$work/log" | grep -q "usage=$work/spool"; }
wait_for 20 "the usage section to be reloaded" usage_reloaded ||
    fail "usage not turned on by the reload: $(grep reload "$work/log" | tail -n 2)"
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
set_phase() {  # PHASE: the PodGroup's status as Volcano writes it (no status subresource)
    kubectl -n t-biology patch podgroups.scheduling.volcano.sh gang --type merge -p "{\"status\":{\"phase\":\"$1\",
        \"conditions\":[{\"type\":\"Scheduled\",\"status\":\"True\",\"reason\":\"tasks in gang are ready to be scheduled\",
        \"lastTransitionTime\":\"$(iso "$started")\"}]}}" >/dev/null
}
started=$(($(date +%s) - 60))
set_phase Running || fail "cannot mark the PodGroup running"
patch_status "$token" "$queue_path" '{"status":{"allocated":{"nvidia.com/gpu":"10"}}}' || fail "cannot write the Queue status"
charges() { cat "$work"/spool/volcano-*.usage 2>/dev/null | grep '^charge='; }
gpu_seconds() { charges | awk '{ s += $4 * ($3 - $2) } END { print s + 0 }'; }
charged() { [ "$(charges | wc -l)" -ge 1 ]; }
wait_for 30 "the running PodGroup to be charged" charged ||
    fail "no usage record: $(grep -i usage "$work/log" | tail -n 3)"
first=$(charges | sort -k2n | head -n 1)
expect_eq "$(awk '{ print $1, $2, $4, $5 }' <<<"$first")" "charge=biology $started 10 80" "the first charge (association, start, GPUs, billing/s)"
kill -9 "$pid"; wait "$pid" 2>/dev/null
sleep 3
"$bridge" --config "$work/bridge.yaml" >>"$work/log" 2>&1 &
pid=$!
leading_again() { [ "$(grep -c 'msg="lease acquired"' "$work/log")" -ge 2 ]; }  # once the killed one's lease ran out
wait_for 30 "the restarted bridge to lead" leading_again || fail "the restarted bridge does not lead: $(tail -n 3 "$work/log")"
sleep 3
set_phase Completed || fail "cannot mark the PodGroup completed"
ended=$(date +%s)
sleep 6
got=$(gpu_seconds) want=$((10 * (ended - started)))
[ "$got" -le "$want" ] && [ "$got" -ge $((want - 10 * 4)) ] ||
    fail "the records hold $got GPU-seconds for a 10-GPU run of $((ended - started)) s (want $want, at most 40 short): $(charges | tr '\n' ';')"
kubectl -n t-biology delete podgroup gang >/dev/null
note "volcano queue mirrored and split; unknown use held the raise; reload kept the old config on error and applied the new one; a 10-GPU PodGroup took all 10; Queue weight $(queue_weight) (biology's standing); its run metered after a reload turned usage on: $got of $want GPU-seconds in $(ls "$work/spool" | grep -c '^volcano-') records across a kill -9"
