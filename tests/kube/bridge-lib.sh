# Shared prologue of the fairway-bridge integration tests: the built daemon and both real harnesses.
# Source after tests/lib.sh. A missing harness is a failure, not a skip: CI must not pass silently.
bridge=$FAIRWAY_BUILD/bridge/fairway-bridge
[ -x "$bridge" ] || fail "fairway-bridge not built at $bridge"
[ -n "${KUBECONFIG:-}" ] && [ -n "${FAIRWAY_KUBE_BRIDGE_KUBECONFIG:-}" ] || fail "kube harness not running (tests/harness env)"
[ -n "${SLURM_CONF:-}" ] || fail "Slurm cluster harness not running (tests/harness env)"
kubectl get --raw /readyz >/dev/null 2>&1 || fail "kube-apiserver not ready"
scontrol ping >/dev/null 2>&1 || fail "slurmctld not answering"
