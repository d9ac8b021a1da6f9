#!/bin/bash
# Kubernetes GPU time counts in Slurm's fair-share: fairway-bridge meters a Kueue Workload's quota
# reservation (4 GPUs from QuotaReserved to Finished) and writes usage records into slurmctld's
# spool (StateSaveLocation/fairway_usage); priority/fairway charges them to the association the
# namespace maps to. The account's sshare RawUsage must rise by GPUs x seconds x the GPU billing
# weight (8), exactly once although the bridge is killed with -9 while the Workload runs. Slurm's
# standing orders Kubernetes: each namespace's LocalQueue carries its association's weight, computed
# here from sshare's figures, alice's (charged) below bob's (idle), and a steady state writes
# nothing. A reload that keeps records for less than the plugin's window is warned of.
# No Kueue controller runs here: the test writes the Workload's status conditions as Kueue would
# (QuotaReserved when it admits, Finished when the job ends), with their transition times.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

bridge_workload_begin tbusage t-usage 8
# A pass every 2 s (the test-only calc_period knob), so a record is charged within 2 s of its write.
"$cluster" conf-set PriorityParameters=calc_period=0:02 >/dev/null || fail "cannot set calc_period"
SPOOL=$FAIRWAY_CLUSTER_STATE/ctld/fairway_usage
# The bridge restarted with metering on: records every 2 s, alice's association for the namespace,
# and a second namespace of the group for bob, who runs nothing.
kill "$bridge_pid"; wait "$bridge_pid" 2>/dev/null
sacctmgr -i add user bob Account=tbusage >/dev/null || fail "cannot add bob to tbusage"
kubectl get ns t-usage-idle >/dev/null 2>&1 || kubectl create ns t-usage-idle >/dev/null || fail "cannot create t-usage-idle"
sed -i 's/namespaces: \[t-usage\]/namespaces: [t-usage, t-usage-idle]/' "$work/bridge.yaml"
SOURCE=usage$$  # a source of its own: the plugin remembers each source's last sequence
cat >>"$work/bridge.yaml" <<YAML
usage:
  spool: $SPOOL
  source: $SOURCE
  record_seconds: 2
  gpu_billing: 8
  associations: {t-usage: tbusage/alice, t-usage-idle: tbusage/bob}
YAML
bridge_start

greater() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 > b + 0) }'; }
# close_to A B PERCENT: |A - B| <= PERCENT% of B.
close_to() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'; }
raw() { sshare -A tbusage -u alice -n -P -o Account,User,RawUsage | awk -F'|' '$2 == "alice" { print $3; exit }'; }
base=$(raw); base=${base:-0}
token=$(token_in "$KUBECONFIG")
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
condition() { echo "{\"type\":\"$1\",\"status\":\"True\",\"reason\":\"$1\",\"message\":\"test\",\"lastTransitionTime\":\"$(iso "$2")\"}"; }

kubectl apply -f - >/dev/null <<YAML || fail "cannot create the Workload"
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: train, namespace: t-usage}
spec:
  queueName: fairway
  podSets:
  - {name: workers, count: 2, template: {spec: {restartPolicy: Never, containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "2"}}}]}}}
YAML
reserved=$(( $(date +%s) - 120 ))
patch_status "$token" /apis/kueue.x-k8s.io/v1beta1/namespaces/t-usage/workloads/train \
    "{\"status\":{\"conditions\":[$(condition QuotaReserved "$reserved")]}}" || fail "cannot reserve quota"

wait_for 30 "the held reservation to be charged" eval 'greater "$(raw)" "$(awk -v b=$base "BEGIN { print b + 4 * 8 * 100 }")"' ||
    fail "RawUsage $(raw) (was $base); bridge log: $(grep -i usage "$work/log" | tail -n 3)"
note "charged while held: RawUsage $(raw); records: $(ls "$SPOOL" | grep -c "^$SOURCE-")"

# kill -9 of the bridge while the reservation holds; the restarted bridge continues from its records.
bridge_kill9
sleep 3
bridge_start
wait_for 30 "the restarted bridge to read its spool" grep -q 'msg="usage spool read"' "$work/log" || fail "no spool read"
sleep 3
ended=$(date +%s)
patch_status "$token" /apis/kueue.x-k8s.io/v1beta1/namespaces/t-usage/workloads/train \
    "{\"status\":{\"conditions\":[$(condition QuotaReserved "$reserved"),$(condition Finished "$ended")]}}" ||
    fail "cannot finish the Workload"
want=$(awk -v b="$base" -v s=$((ended - reserved)) 'BEGIN { print b + 4 * 8 * s }')
wait_for 30 "RawUsage to reach 4 GPUs x $((ended - reserved)) s x 8" eval 'close_to "$(raw)" "$want" 0.1' ||
    fail "RawUsage $(raw), expected $want; records: $(cat "$SPOOL"/$SOURCE-*.usage | grep charge= | tr '\n' ';')"
sleep 6
close_to "$(raw)" "$want" 0.1 || fail "charged more than once: RawUsage $(raw), expected $want"
gpu_seconds=$(cat "$SPOOL"/$SOURCE-*.usage | awk '/^charge=/ { s += $4 * ($3 - $2) } END { print s }')
[ "$gpu_seconds" -eq $((4 * (ended - reserved))) ] || fail "the records hold $gpu_seconds GPU-seconds, expected $((4 * (ended - reserved)))"
note "4 GPUs x $((ended - reserved)) s: records hold $gpu_seconds GPU-seconds in $(ls "$SPOOL" | grep -c "^$SOURCE-") records; RawUsage $base -> $(raw) (expected $want)"

# The standing (standing_weight in bridge-lib.sh), from sshare's figures for the namespace's association.
expected_weight() { echo "$(standing_weight tbusage "$1")m"; }
published_weight() { kubectl -n "$1" get localqueue fairway -o jsonpath='{.spec.fairSharing.weight}'; }
weights_agree() { [ "$(published_weight t-usage)" = "$(expected_weight alice)" ] && [ "$(published_weight t-usage-idle)" = "$(expected_weight bob)" ]; }
wait_for 20 "the LocalQueues to carry alice's and bob's standing" weights_agree ||
    fail "LocalQueue weights t-usage $(published_weight t-usage) (alice: $(expected_weight alice)), t-usage-idle $(published_weight t-usage-idle) (bob: $(expected_weight bob))"
expect_eq "$(published_weight t-usage-idle)" 1000m "the weight of bob, who used nothing"
alice_weight=$(published_weight t-usage)
[ "${alice_weight%m}" -lt 1000 ] ||
    fail "alice's namespace weighs $(published_weight t-usage) after her charge; sshare: $(sshare -A tbusage -u alice -n -P -o User,NormShares,EffectvUsage | tr '\n' ';')"
expect_eq "$(kubectl get clusterqueue fairway-tbusage -o jsonpath='{.spec.admissionScope.admissionMode}')" \
    UsageBasedAdmissionFairSharing "the ClusterQueue's admission mode"
# Steady state: no write in 5 cycles, unless alice's decaying usage crossed a step meanwhile (then once more).
steady_writes() {
    local from before
    from=$(($(wc -l <"$work/log") + 1)) before=$(published_weight t-usage)
    sleep 5
    [ "$(published_weight t-usage)" = "$before" ] || return 2
    writes_of <(tail -n +"$from" "$work/log")
}
writes=$(steady_writes) || writes=$(steady_writes)
expect_eq "$writes" 0 "writes in 5 steady cycles with weights published"
note "standing: alice $(published_weight t-usage) ($(sshare -A tbusage -u alice -n -P -o NormShares,EffectvUsage | tail -n 1)), bob $(published_weight t-usage-idle); 0 writes in 5 steady cycles"

# Records kept for less than the plugin's window (14 days here, and a bucket): a rebuild would miss
# Kubernetes usage that the window still counts. Kept 30 days (the default), the bridge said
# nothing of it; a reload to keep_days 1 is warned of, with the days needed.
grep -q "kept too briefly" "$work/log" && fail "warned with usage.keep_days 30: $(grep 'kept too briefly' "$work/log")"
echo "  keep_days: 1" >>"$work/bridge.yaml"
kill -HUP "$bridge_pid"
wait_for 15 "the warning on usage.keep_days" grep -q 'kept too briefly.*usage.keep_days (1) is shorter.*keep at least 15 days' "$work/log" ||
    fail "no warning for keep_days 1: $(grep -i 'reload\|keep' "$work/log" | tail -n 3)"
note "$(grep -o 'usage.keep_days (1) is shorter[^"]*' "$work/log" | head -n 1)"
kubectl -n t-usage delete workload train >/dev/null
rm -f "$SPOOL"/$SOURCE-*.usage
