#!/bin/bash
# The non-admin fairway-bridge token authenticates but has no rights until RBAC grants them, and
# then exactly the rights granted — so least-privilege manifests can be tested for real.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/common.sh"
require_kube
[ -f "${FAIRWAY_KUBE_BRIDGE_KUBECONFIG:-}" ] || fail "FAIRWAY_KUBE_BRIDGE_KUBECONFIG not set"

bridge=$FAIRWAY_KUBE_BRIDGE_KUBECONFIG
role=fairway-t-kube-rbac-$$
cleanup() {
    kc delete clusterrolebinding,clusterrole "$role" --ignore-not-found >/dev/null 2>&1
    kc -n fairway-system delete rolebinding "$role" --ignore-not-found >/dev/null 2>&1
    kc -n fairway-system delete lease fairway-bridge --ignore-not-found >/dev/null 2>&1
}
trap cleanup EXIT

existing=$(kc get clusterrolebindings,rolebindings -A -o json |
           jq -r '.items[] | select(any(.subjects[]?; .kind == "User" and .name == "fairway-bridge")) | .metadata.name')
[ -z "$existing" ] || fail "fairway-bridge already has bindings (left over by another test?): $existing"

bridge_token=$(token_in "$bridge")
[ -n "$bridge_token" ] || fail "no token in $bridge"
bridge_can_list() { kubectl --kubeconfig "$bridge" --request-timeout=10s get clusterqueues >/dev/null 2>&1; }

note "without a binding: authenticated (403, not 401) and denied"
expect_eq "$(http_code "$bridge_token" GET /apis/kueue.x-k8s.io/v1beta1/clusterqueues)" 403 "bridge lists clusterqueues unbound"
out=$(kubectl --kubeconfig "$bridge" --request-timeout=10s get clusterqueues 2>&1) && fail "bridge listed clusterqueues unbound"
expect_match "$out" 'User "fairway-bridge" cannot list' "kubectl's denial names the user"

note "a ClusterRole granting get/list/watch on clusterqueues, bound to fairway-bridge"
kc create clusterrole "$role" --verb=get,list,watch --resource=clusterqueues.kueue.x-k8s.io >/dev/null || fail "creating ClusterRole"
kc create clusterrolebinding "$role" --clusterrole="$role" --user=fairway-bridge >/dev/null || fail "creating binding"
wait_for 30 "the binding to take effect" bridge_can_list || fail "bridge still cannot list clusterqueues after binding"
expect_eq "$(http_code "$bridge_token" GET /apis/kueue.x-k8s.io/v1beta1/clusterqueues)" 200 "bridge lists clusterqueues bound"
expect_eq "$(http_code "$bridge_token" GET /apis/scheduling.volcano.sh/v1beta1/queues)" 403 "bridge lists Volcano queues (not granted)"
expect_eq "$(http_code "$bridge_token" POST /apis/kueue.x-k8s.io/v1beta1/clusterqueues \
    '{"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"ClusterQueue","metadata":{"name":"'$role'"}}')" 403 "bridge creates (not granted)"

note "removing the binding takes the right away again"
kc delete clusterrolebinding "$role" >/dev/null || fail "deleting binding"
bridge_denied() { ! bridge_can_list; }
wait_for 30 "the denial to return" bridge_denied || fail "bridge can still list after the binding was removed"
note "the shipped lease Role (etc/kubernetes/bridge/rbac.yaml): get/create/update on its one Lease, in its namespace only"
kc apply -f "$FAIRWAY_SRC/etc/kubernetes/bridge/rbac.yaml" >/dev/null || fail "cannot apply the shipped RBAC"
kc -n fairway-system delete lease fairway-bridge --ignore-not-found >/dev/null || fail "cannot clear the lease"
kc -n fairway-system create rolebinding "$role" --role=fairway-bridge-lease --user=fairway-bridge >/dev/null || fail "binding the lease Role"
leases=/apis/coordination.k8s.io/v1/namespaces/fairway-system/leases
lease_body() {  # NAME NAMESPACE [RESOURCEVERSION [HOLDER]]
    printf '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"%s","namespace":"%s"%s},"spec":{"holderIdentity":"%s","leaseDurationSeconds":15}}' \
        "$1" "$2" "${3:+,\"resourceVersion\":\"$3\"}" "${4:-t-kube-rbac}"
}
lease_readable() { [ "$(http_code "$bridge_token" GET "$leases/fairway-bridge")" = 404 ]; }
wait_for 30 "the lease binding to take effect" lease_readable || fail "bridge cannot read its lease after binding"
expect_eq "$(http_code "$bridge_token" POST "$leases" "$(lease_body fairway-bridge fairway-system)")" 201 "bridge creates its lease"
expect_eq "$(http_code "$bridge_token" GET "$leases/fairway-bridge")" 200 "bridge reads its lease"
rv=$(kc -n fairway-system get lease fairway-bridge -o jsonpath='{.metadata.resourceVersion}')
expect_eq "$(http_code "$bridge_token" PUT "$leases/fairway-bridge" "$(lease_body fairway-bridge fairway-system "$rv" holder-a)")" 200 "bridge updates its lease"
expect_eq "$(http_code "$bridge_token" PUT "$leases/fairway-bridge" "$(lease_body fairway-bridge fairway-system "$rv" holder-b)")" 409 \
    "an update conditional on a stale resourceVersion"
expect_eq "$(http_code "$bridge_token" DELETE "$leases/fairway-bridge")" 403 "bridge deletes its lease (not granted)"
expect_eq "$(http_code "$bridge_token" GET "$leases")" 403 "bridge lists leases (not granted)"
kc -n fairway-system create -f - >/dev/null <<<"$(lease_body fairway-other fairway-system)" || fail "cannot create another lease"
expect_eq "$(http_code "$bridge_token" GET "$leases/fairway-other")" 403 "bridge reads another lease"
expect_eq "$(http_code "$bridge_token" PUT "$leases/fairway-other" "$(lease_body fairway-other fairway-system)")" 403 "bridge updates another lease"
kc -n fairway-system delete lease fairway-other >/dev/null
expect_eq "$(http_code "$bridge_token" POST /apis/coordination.k8s.io/v1/namespaces/default/leases "$(lease_body fairway-bridge default)")" 403 \
    "bridge creates a lease in another namespace"

note "the shipped ClusterRole: what the bridge does, nothing more (the t-bridge-* tests run under it)"
kc create clusterrolebinding "$role" --clusterrole=fairway-bridge --user=fairway-bridge >/dev/null || fail "binding the ClusterRole"
kueue=/apis/kueue.x-k8s.io/v1beta1
flavors_listable() { [ "$(http_code "$bridge_token" GET "$kueue/resourceflavors")" = 200 ]; }
wait_for 30 "the ClusterRole binding to take effect" flavors_listable || fail "bridge cannot list resourceflavors"
expect_eq "$(http_code "$bridge_token" GET "$kueue/clusterqueues/t-kube-rbac-none")" 404 "bridge reads a ClusterQueue by name"
expect_eq "$(http_code "$bridge_token" GET "$kueue/clusterqueues/t-kube-rbac-none/status")" 403 \
    "bridge reads the status subresource (not needed: status comes with the object)"
expect_eq "$(http_code "$bridge_token" GET "$kueue/resourceflavors/t-kube-rbac-none")" 403 "bridge reads a flavor by name (not needed)"
expect_eq "$(http_code "$bridge_token" GET "$kueue/localqueues?watch=true&timeoutSeconds=1")" 403 "bridge watches LocalQueues (not needed)"
expect_eq "$(http_code "$bridge_token" GET "$kueue/workloads")" 200 "bridge lists Workloads"
expect_eq "$(http_code "$bridge_token" DELETE "$kueue/namespaces/default/workloads/t-kube-rbac-none")" 403 "bridge deletes a Workload (not granted)"
exit 0
