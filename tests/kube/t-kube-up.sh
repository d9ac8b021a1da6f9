#!/bin/bash
# The test apiserver is real and safe to talk to: TLS is verified against the harness CA (a wrong CA
# fails), the Kueue and Volcano CRDs are served, a ClusterQueue round-trips, its status is a real
# subresource (and patch_status fails loudly), and invalid objects are rejected with 422.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/common.sh"
require_kube

tmp=$(mktemp -d)
cq=fairway-t-kube-up-$$
vq=fairway-t-kube-up-$$
cleanup() {
    kc delete clusterqueue "$cq" --ignore-not-found --wait=false >/dev/null 2>&1
    kc delete queues.scheduling.volcano.sh "$vq" --ignore-not-found --wait=false >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT

note "the kubeconfig verifies the server certificate"
grep -q '^ *certificate-authority: ' "$KUBECONFIG" || fail "kubeconfig has no certificate-authority"
! grep -q 'insecure-skip-tls-verify' "$KUBECONFIG" || fail "kubeconfig skips TLS verification"
expect_eq "$(kc get --raw /readyz)" ok "readyz through kubectl"

note "a kubeconfig naming another CA is refused"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=not-the-harness-ca \
    -keyout "$tmp/other.key" -out "$tmp/other.crt" 2>/dev/null || fail "openssl could not make a CA"
sed "s|certificate-authority: .*|certificate-authority: $tmp/other.crt|" "$KUBECONFIG" >"$tmp/wrong-ca.kubeconfig"
if out=$(kubectl --kubeconfig "$tmp/wrong-ca.kubeconfig" --request-timeout=10s get --raw /readyz 2>&1); then
    fail "kubectl accepted the server with the wrong CA: $out"
fi
expect_match "$out" "x509|certificate" "error with the wrong CA"

note "the CRDs are served"
kc get clusterqueues >/dev/null || fail "kubectl get clusterqueues"
kc get queues.scheduling.volcano.sh >/dev/null || fail "kubectl get queues.scheduling.volcano.sh"
kc get localqueues,resourceflavors,workloadpriorityclasses -A >/dev/null || fail "kubectl get other Kueue kinds"

note "a ClusterQueue round-trips"
kc create -f - <<YAML >/dev/null || fail "creating ClusterQueue $cq"
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: $cq}
spec:
  cohort: fairway-t-kube
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: a100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8, borrowingLimit: "4", lendingLimit: 2}
YAML
expect_eq "$(kc get clusterqueue "$cq" -o jsonpath='{.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota}')" 8 "nominalQuota read back"
expect_eq "$(kc get clusterqueue "$cq" -o jsonpath='{.spec.cohort}')" fairway-t-kube "cohort read back"

note "status is a subresource: patched through /status, ignored through the main resource"
admin_token=$(token_in "$KUBECONFIG")
cq_path=/apis/kueue.x-k8s.io/v1beta1/clusterqueues/$cq
patch_status "$admin_token" "$cq_path" \
    '{"status":{"pendingWorkloads":3,"flavorsUsage":[{"name":"a100","resources":[{"name":"nvidia.com/gpu","total":"6","borrowed":"0"}]}]}}' ||
    fail "patching the status subresource"
expect_eq "$(kc get clusterqueue "$cq" -o jsonpath='{.status.pendingWorkloads}')" 3 "pendingWorkloads after status patch"
expect_eq "$(kc get clusterqueue "$cq" -o jsonpath='{.status.flavorsUsage[0].resources[0].total}')" 6 "flavorsUsage total"
kc patch clusterqueue "$cq" --type=merge -p '{"status":{"pendingWorkloads":99}}' >/dev/null || fail "patching the main resource"
expect_eq "$(kc get clusterqueue "$cq" -o jsonpath='{.status.pendingWorkloads}')" 3 "status written through the main resource"
if out=$(patch_status "$admin_token" "$cq_path-missing" '{"status":{"pendingWorkloads":1}}' 2>&1); then
    fail "a status patch of a missing ClusterQueue succeeded"
fi
expect_match "$out" "HTTP 404: .*NotFound" "a failed status patch shows the HTTP status and body"

note "a Volcano Queue round-trips"
kc create -f - <<YAML >/dev/null || fail "creating Volcano Queue $vq"
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: $vq}
spec: {weight: 3, reclaimable: true, capability: {nvidia.com/gpu: 16}, deserved: {nvidia.com/gpu: "8"}}
YAML
expect_eq "$(kc get queues.scheduling.volcano.sh "$vq" -o jsonpath='{.spec.weight}')" 3 "Volcano weight read back"

note "invalid objects are rejected with 422"
bad_cq='{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"'$cq'-bad"},"spec":{"queueingStrategy":"Sometimes"}}'
expect_eq "$(http_code "$admin_token" POST /apis/kueue.x-k8s.io/v1beta1/clusterqueues "$bad_cq")" 422 "ClusterQueue with unknown queueingStrategy"
bad_quota='{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"'$cq'-bad"},"spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"x","resources":[{"name":"cpu","nominalQuota":"lots"}]}]}]}}'
expect_eq "$(http_code "$admin_token" POST /apis/kueue.x-k8s.io/v1beta1/clusterqueues "$bad_quota")" 422 "ClusterQueue with a non-quantity quota"
bad_vq='{"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"Queue","metadata":{"name":"'$vq'-bad"},"spec":{"weight":0}}'
expect_eq "$(http_code "$admin_token" POST /apis/scheduling.volcano.sh/v1beta1/queues "$bad_vq")" 422 "Volcano Queue with weight 0"
if out=$(printf '%s' "$bad_cq" | kc create -f - 2>&1); then fail "kubectl created an invalid ClusterQueue"; fi
expect_match "$out" "queueingStrategy" "kubectl's error names the invalid field"
exit 0
