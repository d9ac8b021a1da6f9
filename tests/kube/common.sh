# shellcheck shell=bash
# Helpers shared by the tests/kube/t-*.sh smoke tests (sourced after tests/lib.sh).

# require_kubectl: fails the test unless `kubectl` is 1.20, the client matching the test apiserver.
# A newer kubectl (a site's own package) would hide flags 1.20 lacks; Debian 12's comes from
# `tests/kube/kube build`, and `tests/kube/kube env` puts it first on PATH.
require_kubectl() {
    local found info version
    found=$(command -v kubectl) || fail "kubectl not found (eval \"\$(tests/harness env)\" puts Debian's 1.20 first on PATH)"
    info=$(kubectl version --client -o json) || fail "cannot ask $found for its version"
    version=$(jq -r .clientVersion.gitVersion <<<"$info")
    case $version in
        v1.20.*) ;;
        *) fail "kubectl at $found is $version, not Debian 12's 1.20 (tests/kube/kube build; eval \"\$(tests/harness env)\")" ;;
    esac
}

# require_kube: fails the test unless the kube harness is up (tests/kube/kube start; eval "$(tests/kube/kube env)").
require_kube() {
    [ -f "${KUBECONFIG:-}" ] || fail "kube harness not running (KUBECONFIG unset or missing)"
    [ -f "${FAIRWAY_KUBE_CA:-}" ] || fail "FAIRWAY_KUBE_CA not set (eval \"\$(tests/kube/kube env)\")"
    [ -n "${FAIRWAY_KUBE_SERVER:-}" ] || fail "FAIRWAY_KUBE_SERVER not set"
    require_kubectl
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

# patch_status TOKEN PATH JSON: merge-patches the status subresource of the object at PATH, TLS
# verified against the harness CA. kubectl 1.20 cannot (`patch --subresource` is 1.24+), so this
# goes to the API itself. Any answer but 2xx, or none, prints the HTTP status and body (on one
# line: the apiserver pretty-prints for curl) and fails.
patch_status() {
    local token=$1 path=$2 patch=$3 out code
    out=$(curl -sS --max-time 30 --cacert "$FAIRWAY_KUBE_CA" -H "Authorization: Bearer $token" -X PATCH \
               -H 'Content-Type: application/merge-patch+json' --data-binary "$patch" -w '\n%{http_code}' \
               "$FAIRWAY_KUBE_SERVER$path/status" 2>&1)
    code=${out##*$'\n'}
    case $code in 2??) return 0 ;; esac
    echo "PATCH $path/status: HTTP $code: $(tr -s '\n ' '  ' <<<"${out%$'\n'*}")" >&2
    return 1
}
