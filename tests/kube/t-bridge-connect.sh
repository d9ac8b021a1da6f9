#!/bin/bash
# fairway-bridge connects to the real kube-apiserver with TLS verification, as the non-admin
# fairway-bridge user under the project's least-privilege ClusterRole, and lists ClusterQueues;
# a wrong CA fails with a clear TLS error, and the token never shows up in the output.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/common.sh"
bridge=$FAIRWAY_BUILD/bridge/fairway-bridge
[ -x "$bridge" ] || fail "fairway-bridge not built"
[ -n "${KUBECONFIG:-}" ] && [ -n "${FAIRWAY_KUBE_BRIDGE_KUBECONFIG:-}" ] || fail "kube harness not running (no KUBECONFIG)"
require_kubectl
kubectl get --raw /readyz >/dev/null 2>&1 || fail "kube-apiserver not ready"

work=$(mktemp -d)
trap 'kubectl delete --ignore-not-found clusterqueue t-connect-cq >/dev/null 2>&1
      kubectl delete --ignore-not-found clusterrolebinding t-bridge-connect >/dev/null 2>&1
      rm -rf "$work"' EXIT

cat >"$work/bridge.yaml" <<YAML
kubernetes:
  kubeconfig: $FAIRWAY_KUBE_BRIDGE_KUBECONFIG
groups:
  - {name: physics, accounts: [physics], namespaces: [physics], gpus: 4}
YAML

kubectl apply -f "$FAIRWAY_SRC/etc/kubernetes/bridge/rbac.yaml" >/dev/null || fail "cannot install the bridge RBAC"
kubectl apply --validate=false -f - >/dev/null <<'YAML' || fail "cannot create a ClusterQueue"
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: t-connect-cq}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [nvidia.com/gpu], flavors: [{name: default, resources: [{name: nvidia.com/gpu, nominalQuota: 2}]}]}]
YAML

# Without a binding the non-admin user is refused: authentication and RBAC are real.
out=$("$bridge" --config "$work/bridge.yaml" --list-clusterqueues 2>&1) && fail "listed without RBAC: $out"
expect_match "$out" "HTTP 403" "refusal before the binding"

kubectl create clusterrolebinding t-bridge-connect --clusterrole=fairway-bridge --user=fairway-bridge >/dev/null ||
    fail "cannot bind the ClusterRole"
wait_for 30 "RBAC binding to take effect" "$bridge" --config "$work/bridge.yaml" --list-clusterqueues ||
    fail "cannot list with the least-privilege role: $("$bridge" --config "$work/bridge.yaml" --list-clusterqueues 2>&1)"
out=$("$bridge" --config "$work/bridge.yaml" --list-clusterqueues 2>&1)
expect_match "$out" "^t-connect-cq" "ClusterQueue listing"

# A kubeconfig trusting some other CA must fail verification, clearly, and fast.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/other.key" -out "$work/other.crt" -days 1 -subj /CN=other 2>/dev/null
cp "$FAIRWAY_KUBE_BRIDGE_KUBECONFIG" "$work/wrong.kubeconfig"
cluster=$(kubectl config view --kubeconfig "$work/wrong.kubeconfig" -o jsonpath='{.contexts[0].context.cluster}')
kubectl config unset --kubeconfig "$work/wrong.kubeconfig" "clusters.$cluster.certificate-authority-data" >/dev/null
kubectl config set-cluster --kubeconfig "$work/wrong.kubeconfig" "$cluster" --certificate-authority="$work/other.crt" >/dev/null
grep -q "certificate-authority: .*other.crt" "$work/wrong.kubeconfig" || fail "could not rewrite the kubeconfig's CA"
sed "s#kubeconfig: .*#kubeconfig: $work/wrong.kubeconfig#" "$work/bridge.yaml" >"$work/wrong.yaml"
out=$("$bridge" --config "$work/wrong.yaml" --list-clusterqueues 2>&1) && fail "connected despite a wrong CA: $out"
expect_match "$out" "SSL certificate problem" "TLS error for a wrong CA"

# Tokens never appear in output.
token=$(sed -n 's/^ *token: *//p' "$FAIRWAY_KUBE_BRIDGE_KUBECONFIG" | head -n1 | tr -d '"')
if [ -n "$token" ]; then
    all=$("$bridge" --config "$work/bridge.yaml" --list-clusterqueues 2>&1; "$bridge" --config "$work/wrong.yaml" --list-clusterqueues 2>&1)
    case $all in *"$token"*) fail "the bearer token leaked into the output" ;; esac
fi
note "listed ClusterQueues over verified TLS; wrong CA refused"
