# shellcheck shell=bash
# Helpers shared by the tests/kube/t-*.sh smoke tests (sourced after tests/lib.sh).

# require_kube: fails the test unless the kube harness is up (tests/kube/kube start; eval "$(tests/kube/kube env)").
require_kube() {
    [ -f "${KUBECONFIG:-}" ] || fail "kube harness not running (KUBECONFIG unset or missing)"
    [ -f "${FAIRWAY_KUBE_CA:-}" ] || fail "FAIRWAY_KUBE_CA not set (eval \"\$(tests/kube/kube env)\")"
    [ -n "${FAIRWAY_KUBE_SERVER:-}" ] || fail "FAIRWAY_KUBE_SERVER not set"
    command -v kubectl >/dev/null || fail "kubectl not installed"
}

kc() { kubectl --request-timeout=30s "$@"; }

# token_in KUBECONFIG: the bearer token a kubeconfig carries.
token_in() { kubectl --kubeconfig "$1" config view --raw -o jsonpath='{.users[0].user.token}'; }

# http_code TOKEN METHOD PATH [JSON]: the HTTP status the apiserver answers, TLS verified against the harness CA.
http_code() {
    local token=$1 method=$2 path=$3 body=${4:-}
    local args=(-sS -o /dev/null -w '%{http_code}' --max-time 30 --cacert "$FAIRWAY_KUBE_CA"
                -H "Authorization: Bearer $token" -X "$method")
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "$body")
    curl "${args[@]}" "$FAIRWAY_KUBE_SERVER$path"
}
