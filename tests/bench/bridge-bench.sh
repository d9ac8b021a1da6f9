#!/bin/bash
# fairway-bridge benchmark on the real Slurm cluster and kube-apiserver (not part of the test suite):
#   tests/bench/bridge-bench.sh [PARTITIONS [NAMESPACES]]      (default 500 × 20, then 2× that)
# For each scale: cold sync (first cycle: create every object), API requests and writes per
# steady-state cycle (target: 0 writes), change-to-apply latency p50/p99 (a partition created
# with scontrol until its ResourceFlavor exists; reconcile period 1 s). Prints ratios between
# the two scales, never asserts timings. Needs the harnesses up (tests/harness up; eval env).
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/common.sh"
bridge=$FAIRWAY_BUILD/bridge/fairway-bridge
[ -x "$bridge" ] || skip "fairway-bridge not built"
[ -n "${KUBECONFIG:-}" ] && [ -n "${SLURM_CONF:-}" ] || skip "harnesses not running"
require_kubectl
base_parts=${1:-500} base_ns=${2:-20}
work=$(mktemp -d)
pid=
# Fresh namespace names per run: without a namespace controller a deleted namespace never goes away.
ns_prefix=bench$(date +%s)-

teardown_scale() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=
    for p in $(scontrol -o show partition | sed -n 's/^PartitionName=\(bb[0-9]*\) .*/\1/p'); do scontrol delete PartitionName="$p"; done
    kubectl delete resourceflavors,clusterqueues,workloadpriorityclasses -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl delete localqueues -A -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    # Namespaces stay: the test apiserver runs no namespace controller, so a deleted one never goes away.
    accounts=$(sacctmgr -n -P list account format=account | grep '^bb' | paste -sd,)
    [ -n "$accounts" ] && sacctmgr -i delete account "$accounts" >/dev/null 2>&1
}
trap 'teardown_scale; rm -rf "$work"' EXIT

metric() { curl -fsS "http://127.0.0.1:$port/metrics" | sed -n "s/^$1 //p"; }
percentile() { sort -n | awk -v p="$1" '{v[NR]=$1} END {i=int((NR-1)*p/100)+1; print v[i]}'; }

run_scale() {  # run_scale PARTITIONS NAMESPACES -> prints one result line
    local parts=$1 spaces=$2 i accounts="" started
    for i in $(seq -f %03g 1 "$spaces"); do accounts="$accounts${accounts:+,}bb$i"; done
    sacctmgr -i add account "$accounts" Cluster="$(scontrol show config | sed -n 's/^ClusterName *= *//p')" >/dev/null
    for i in $(seq -f %03g 1 "$spaces"); do kubectl create ns "$ns_prefix$i" >/dev/null 2>&1; done
    for i in $(seq -f %03g 1 "$parts"); do scontrol create PartitionName="bb$i" Nodes=node[1-4] State=UP; done
    { echo "kubernetes: {kubeconfig: $KUBECONFIG}"
      echo "reconcile: {period_seconds: 1, stale_after_seconds: 30, write_timeout_seconds: 1}"
      echo 'metrics: {listen: "127.0.0.1:0"}'
      echo "leader_election: {namespace: default}   # the admin kubeconfig; fairway-system may not exist here"
      echo "groups:"
      for i in $(seq -f %03g 1 "$spaces"); do echo "  - {name: bb$i, accounts: [bb$i], namespaces: [$ns_prefix$i], gpus: 8}"; done
    } >"$work/bridge.yaml"
    : >"$work/log"
    "$bridge" --config "$work/bridge.yaml" >"$work/log" 2>&1 &
    pid=$!
    wait_for 120 "first cycle" grep -q 'msg=cycle' "$work/log" || fail "no cycle: $(tail -n 5 "$work/log")"
    local cold_ms cold_writes
    cold_ms=$(grep -m1 'msg=cycle' "$work/log" | sed -n 's/.* ms=\([0-9]*\).*/\1/p')
    cold_writes=$(grep -m1 'msg=cycle' "$work/log" | sed -n 's/.*msg=cycle writes=\([0-9]*\) .*/\1/p')
    port=$(sed -n 's/.*metrics_port=\([0-9]*\).*/\1/p' "$work/log")
    steady() { tail -n 2 "$work/log" | grep -c 'msg=cycle writes=0 ' | grep -qx 2; }
    wait_for 120 "steady state" steady || fail "no steady state: $(grep -E 'msg=cycle|cannot' "$work/log" | tail -n 6)"
    local c0 r0 w0 c1 r1 w1
    c0=$(metric fairway_bridge_cycles_total); r0=$(metric fairway_bridge_api_requests_total); w0=$(metric fairway_bridge_writes_total)
    wait_for 60 "three more cycles" sh -c "[ \$(curl -fsS http://127.0.0.1:$port/metrics | sed -n 's/^fairway_bridge_cycles_total //p') -ge $((c0 + 3)) ]"
    c1=$(metric fairway_bridge_cycles_total); r1=$(metric fairway_bridge_api_requests_total); w1=$(metric fairway_bridge_writes_total)
    local latencies="" t0
    for i in $(seq 1 10); do
        t0=$(date +%s%N)
        scontrol create PartitionName="bbx$i" Nodes=node1 State=UP
        until kubectl get resourceflavor "slurm-bbx$i" >/dev/null 2>&1; do sleep 0.05; done
        latencies="$latencies $(( ($(date +%s%N) - t0) / 1000000 ))"
        scontrol delete PartitionName="bbx$i"
    done
    local p50 p99
    p50=$(printf '%s\n' $latencies | percentile 50); p99=$(printf '%s\n' $latencies | percentile 99)
    echo "$parts $spaces $cold_ms $cold_writes $(( (r1 - r0) / (c1 - c0) )) $(( (w1 - w0) / (c1 - c0) )) $p50 $p99" | tee -a "$work/results"
    teardown_scale
}

echo "partitions namespaces cold_ms cold_writes requests/cycle writes/cycle change_p50_ms change_p99_ms"
# Not in $(...): a failure must reach the EXIT trap, which stops the bridge.
run_scale "$base_parts" "$base_ns"
run_scale $((2 * base_parts)) $((2 * base_ns))
set -- $(sed -n 1p "$work/results"); a_cold=$3 a_req=$5 a_p50=$7
set -- $(sed -n 2p "$work/results")
echo "ratios 2x/1x: cold sync $(awk "BEGIN{printf \"%.2f\", $3/($a_cold+0.001)}"), requests/cycle $(awk "BEGIN{printf \"%.2f\", $5/($a_req+0.001)}"), change p50 $(awk "BEGIN{printf \"%.2f\", $7/($a_p50+0.001)}")"
