#!/bin/bash
# The fault hooks the bridge's tests rely on really restart the daemons, and data survives:
# an object created before restarting etcd and the apiserver is still there afterwards.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/common.sh"
require_kube
kube=$FAIRWAY_SRC/tests/kube/kube
flavor=fairway-t-kube-restart-$$
trap 'kc delete resourceflavor "$flavor" --ignore-not-found >/dev/null 2>&1' EXIT
pid_of() { cat "$FAIRWAY_KUBE_STATE/run/$1.pid"; }

kc create -f - >/dev/null <<YAML || fail "creating ResourceFlavor"
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: $flavor}
spec: {nodeLabels: {gpu.model: h100}}
YAML

note "restart-etcd"
before=$(pid_of etcd)
"$kube" restart-etcd || fail "restart-etcd"
[ "$(pid_of etcd)" != "$before" ] || fail "etcd pid unchanged after restart-etcd"
expect_eq "$(kc get resourceflavor "$flavor" -o jsonpath='{.spec.nodeLabels.gpu\.model}')" h100 "flavor after etcd restart"

note "stop-apiserver refuses connections; start-apiserver serves again"
"$kube" stop-apiserver || fail "stop-apiserver"
kc get --raw /readyz >/dev/null 2>&1 && fail "apiserver still answers after stop-apiserver"
"$kube" status >/dev/null && fail "status reports ready while the apiserver is stopped"
"$kube" start-apiserver || fail "start-apiserver"
expect_eq "$(kc get --raw /readyz)" ok "readyz after start-apiserver"

note "restart-apiserver"
before=$(pid_of apiserver)
"$kube" restart-apiserver || fail "restart-apiserver"
[ "$(pid_of apiserver)" != "$before" ] || fail "apiserver pid unchanged after restart-apiserver"
expect_eq "$(kc get resourceflavor "$flavor" -o jsonpath='{.spec.nodeLabels.gpu\.model}')" h100 "flavor after apiserver restart"
"$kube" status >/dev/null || fail "status after the restarts"
exit 0
