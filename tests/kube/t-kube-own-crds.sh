#!/bin/bash
# fairway's own CRD manifests (etc/kubernetes/crds/, used where the upstream CRDs are absent) are
# accepted by the real apiserver and stay faithful to the upstream Kueue/Volcano CRDs: every field
# they define exists upstream with the same type, and sample objects are accepted, or rejected,
# by both. The own CRDs are installed under renamed groups, kinds and plurals (prefix own/Own), so they
# live beside the upstream ones without making names like `clusterqueues` ambiguous for other tests.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/common.sh"
require_kube
own_dir=$FAIRWAY_SRC/etc/kubernetes/crds
kc get crd clusterqueues.kueue.x-k8s.io -o jsonpath='{.metadata.labels.app\.kubernetes\.io/part-of}' 2>/dev/null |
    grep -q fairway && skip "the apiserver runs fairway's own CRDs, not upstream ones; nothing to compare with"

own_kueue=kueue.own-crds.fairway.test
own_volcano=volcano.own-crds.fairway.test
tmp=$(mktemp -d)
kc() { kubectl --request-timeout=30s --cache-dir "$tmp/discovery" "$@"; }   # keep renamed groups out of the shared cache
cleanup() {
    kc delete -f "$tmp/renamed.yaml" --ignore-not-found >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

note "install the own CRDs renamed (short names dropped: they would clash)"
for f in "$own_dir"/*.yaml; do echo "---"; cat "$f"; done |
    sed -E -e "s/kueue\.x-k8s\.io/$own_kueue/g" -e "s/scheduling\.volcano\.sh/$own_volcano/g" \
        -e '/^ *shortNames:/d' -e 's/^(  name: |    plural: |    singular: )/\1own/' \
        -e 's/^(    kind: |    listKind: )/\1Own/' >"$tmp/renamed.yaml"
kc apply -f "$tmp/renamed.yaml" >/dev/null || fail "the apiserver rejected the own CRDs"
kc wait --for condition=Established --timeout 60s -f "$tmp/renamed.yaml" >/dev/null ||
    fail "the own CRDs did not become Established"

note "every own schema is a faithful subset of the upstream one"
problems=""
for own_name in $(kc get -f "$tmp/renamed.yaml" -o jsonpath='{.items[*].metadata.name}'); do
    upstream_name=$(echo "${own_name#own}" | sed -e "s/$own_kueue/kueue.x-k8s.io/" -e "s/$own_volcano/scheduling.volcano.sh/")
    kc get crd "$own_name" -o json | jq '.spec.names |= (.kind |= ltrimstr("Own") | .listKind |= ltrimstr("Own")
        | .plural |= ltrimstr("own") | .singular |= ltrimstr("own"))' >"$tmp/own.json" || fail "reading $own_name"
    kc get crd "$upstream_name" -o json >"$tmp/upstream.json" || fail "upstream CRD $upstream_name is not installed"
    problems+=$("$FAIRWAY_SRC/tests/kube/crd-subset.py" "$tmp/own.json" "$tmp/upstream.json")
done
[ -z "$problems" ] || fail "own CRDs differ from upstream: $problems"

# verdict GROUP_KUEUE GROUP_VOLCANO KIND_PREFIX SAMPLE: "ok" when the apiserver accepts the sample
# (server-side dry run, nothing stored; kubectl's own validation off so the server judges) with its
# groups and kind prefix set as given, "rejected" on a validation error, else the error text.
verdict() {
    sed -e "s/@KUEUE@/$1/g" -e "s/@VOLCANO@/$2/g" -e "s/^kind: /kind: $3/" "$tmp/$4" >"$tmp/$4.in"
    if kc create --dry-run=server --validate=false -f "$tmp/$4.in" >"$tmp/$4.out" 2>&1; then echo ok
    elif grep -Eq "is invalid|Invalid value|Required value|Unsupported value" "$tmp/$4.out"; then echo rejected
    else echo "error: $(cat "$tmp/$4.out")"; fi
}
sample() { cat >"$tmp/$1"; }

sample cq-ok <<'YAML'
apiVersion: @KUEUE@/v1beta1
kind: ClusterQueue
metadata: {name: own-crds-sample}
spec:
  cohort: research
  queueingStrategy: StrictFIFO
  namespaceSelector: {matchLabels: {team: ml}}
  preemption: {withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: a100
      resources:
      - {name: cpu, nominalQuota: 64, lendingLimit: "32"}
      - {name: nvidia.com/gpu, nominalQuota: "8", borrowingLimit: 4}
YAML
sample cq-bad-strategy <<'YAML'
apiVersion: @KUEUE@/v1beta1
kind: ClusterQueue
metadata: {name: own-crds-sample}
spec: {queueingStrategy: Whenever}
YAML
sample cq-no-quota <<'YAML'
apiVersion: @KUEUE@/v1beta1
kind: ClusterQueue
metadata: {name: own-crds-sample}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu}]}]
YAML
sample lq-ok <<'YAML'
apiVersion: @KUEUE@/v1beta1
kind: LocalQueue
metadata: {name: own-crds-sample, namespace: default}
spec: {clusterQueue: research}
YAML
sample rf-ok <<'YAML'
apiVersion: @KUEUE@/v1beta1
kind: ResourceFlavor
metadata: {name: own-crds-sample}
spec: {nodeLabels: {gpu.model: a100}}
YAML
sample wpc-ok <<'YAML'
apiVersion: @KUEUE@/v1beta1
kind: WorkloadPriorityClass
metadata: {name: own-crds-sample}
value: 1000
description: urgent work
YAML
sample wpc-no-value <<'YAML'
apiVersion: @KUEUE@/v1beta1
kind: WorkloadPriorityClass
metadata: {name: own-crds-sample}
description: no value
YAML
sample vq-ok <<'YAML'
apiVersion: @VOLCANO@/v1beta1
kind: Queue
metadata: {name: own-crds-sample}
spec: {weight: 4, reclaimable: false, capability: {nvidia.com/gpu: 8}, guarantee: {resource: {cpu: "2"}}}
YAML
sample vq-bad-weight <<'YAML'
apiVersion: @VOLCANO@/v1beta1
kind: Queue
metadata: {name: own-crds-sample}
spec: {weight: 70000}
YAML

note "samples get the same verdict from both schemas"
for s in cq-ok cq-bad-strategy cq-no-quota lq-ok rf-ok wpc-ok wpc-no-value vq-ok vq-bad-weight; do
    expected=ok; case $s in *-ok) ;; *) expected=rejected ;; esac
    expect_eq "$(verdict kueue.x-k8s.io scheduling.volcano.sh "" "$s")" "$expected" "upstream CRDs on sample $s"
    expect_eq "$(verdict "$own_kueue" "$own_volcano" Own "$s")" "$expected" "own CRDs on sample $s"
done
exit 0
