# Shared helpers for integration tests (sourced by tests/*/t-*.sh).
# Tests exit 0 to pass, 77 to skip (with a reason), anything else to fail; they wait on
# conditions, never on fixed sleeps.

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
note() { echo "# $*"; }

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND until it succeeds or time runs out.
wait_for() {
    local limit=$1 what=$2; shift 2
    local deadline=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -ge "$deadline" ] && { echo "timed out after ${limit}s waiting for $what" >&2; return 1; }
        sleep 0.2
    done
}

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
# expect_match TEXT REGEX WHAT
expect_match() { printf '%s\n' "$1" | grep -Eq -- "$2" || fail "$3: '$2' not found in: $1"; }
