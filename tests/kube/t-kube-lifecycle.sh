#!/bin/bash
# A second, private harness instance (own state dir and ports, fairway's own CRDs): start is
# idempotent, status tells the truth, and stop (twice) leaves no process behind.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/common.sh"
kube=$FAIRWAY_SRC/tests/kube/kube
[ -x "${FAIRWAY_CACHE:-/var/cache/fairway}/kube-apiserver-1.20.2/kube-apiserver" ] ||
    fail "kube-apiserver not built yet (tests/kube/kube build)"

export FAIRWAY_KUBE_STATE FAIRWAY_KUBE_PORT=16445 FAIRWAY_ETCD_PORT=23792 FAIRWAY_ETCD_PEER_PORT=23802 FAIRWAY_KUBE_CRDS=own
FAIRWAY_KUBE_STATE=$(mktemp -d /var/tmp/fairway-kube-lifecycle.XXXXXX)
state_pids() {
    local p
    for p in /proc/[0-9]*; do
        tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -F -- "$FAIRWAY_KUBE_STATE/" >/dev/null && echo "${p#/proc/}"
    done
    return 0
}
trap '"$kube" stop >/dev/null 2>&1; rm -rf "$FAIRWAY_KUBE_STATE"' EXIT

note "start, then start again"
"$kube" start || fail "first start"
pids=$(cat "$FAIRWAY_KUBE_STATE"/run/*.pid)
"$kube" start || fail "second start"
expect_eq "$(cat "$FAIRWAY_KUBE_STATE"/run/*.pid)" "$pids" "daemon pids after a second start"
"$kube" status >/dev/null || fail "status after start"

note "the own CRDs are installed and served"
eval "$("$kube" env)"
require_kubectl
expect_eq "$(kubectl get crd clusterqueues.kueue.x-k8s.io -o jsonpath='{.metadata.labels.app\.kubernetes\.io/part-of}')" \
    fairway "origin of the ClusterQueue CRD"
kubectl get clusterqueues,resourceflavors,workloadpriorityclasses,cohorts,queues.scheduling.volcano.sh >/dev/null 2>&1 ||
    fail "the own CRDs are not served"

note "stop, then stop again"
"$kube" stop || fail "first stop"
"$kube" stop || fail "second stop"
"$kube" status >/dev/null && fail "status claims the stopped harness runs"
expect_eq "$(state_pids)" "" "processes still using $FAIRWAY_KUBE_STATE"
exit 0
