#!/bin/bash
# fairway-bridge with the Volcano backend, through a kubeconfig that embeds its CA
# (certificate-authority-data): --dry-run writes nothing; then the group's Queue appears with a GPU
# capability that, with the Slurm GrpTRES, adds up to the quota; SIGHUP with a broken file keeps
# the old configuration running, SIGHUP with a good one applies it.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

work=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
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
metrics: {listen: "127.0.0.1:0"}
groups:
  - {name: biology, accounts: [biology], namespaces: [t-biology], gpus: $1}
YAML
}
write_config 6

"$bridge" --config "$work/bridge.yaml" --once --dry-run >"$work/dry.log" 2>&1 || fail "dry run failed: $(tail -n 5 "$work/dry.log")"
grep -q 'dry-run: would apply' "$work/dry.log" || fail "dry run announced nothing"
kubectl get queues.scheduling.volcano.sh fairway-biology >/dev/null 2>&1 && fail "dry run created a Queue"

"$bridge" --config "$work/bridge.yaml" >"$work/log" 2>&1 &
pid=$!
capability() { kubectl get queues.scheduling.volcano.sh fairway-biology -o jsonpath='{.spec.capability.nvidia\.com/gpu}' 2>/dev/null; }
slurm_limit() { sacctmgr -n -P list assoc account=biology user= format=grptres | sed -n 's/.*gres\/gpu=\([0-9]*\).*/\1/p'; }
split_is() { [ "$(slurm_limit)" = "$1" ] && [ "$(capability)" = "$2" ]; }
wait_for 60 "biology split 3+3 on Volcano" split_is 3 3 || fail "no split: slurm=$(slurm_limit) volcano=$(capability); $(tail -n 5 "$work/log")"
expect_eq "$(kubectl get queues.scheduling.volcano.sh fairway-biology -o jsonpath='{.metadata.labels.app\.kubernetes\.io/managed-by}')" \
    "fairway-bridge" "Queue label"

echo "groups: [{name: biology, accounts: [biology], gpus: lots}]" >"$work/bridge.yaml"
kill -HUP "$pid"
wait_for 20 "the broken file to be rejected" grep -q 'configuration rejected' "$work/log" || fail "bad config not reported"
grep 'configuration rejected' "$work/log" | grep -q 'gpus' || fail "rejection does not name the key"
kill -0 "$pid" 2>/dev/null || fail "the bridge died on a bad reload"
write_config 10
kill -HUP "$pid"
wait_for 60 "the new quota split 5+5" split_is 5 5 || fail "reload not applied: slurm=$(slurm_limit) volcano=$(capability)"
note "volcano queue mirrored and split; reload kept the old config on error and applied the new one"
