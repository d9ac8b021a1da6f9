#!/bin/bash
# A new user's machine, for real: a pristine minimal Debian 12 root (debootstrap), the committed
# tree cloned into it, and there, as the README says: scripts/install-deps, scripts/build, the unit
# tests, a real cluster running fairway's plugins from the build tree with one `sbatch --preset`
# job; then `make deb`, `apt-get install` of the packages, the same job against the installed
# files, and `apt-get purge` leaving nothing behind. Daemons run in a network namespace of their own.
#
# FAIRWAY_FRESH_ROOT_SOURCE names another repository to clone (to try an older commit).
# Heavy downloads and builds are cached in /var/cache/fairway (FAIRWAY_CACHE) between runs.
# It builds the whole project twice (the tree, then the packages): 6 minutes with a warm cache,
# more than 20 on a new machine or a busy one.
# time-limit: 2700
. "$FAIRWAY_SRC/tests/lib.sh"

[ -z "${FAIRWAY_IN_FRESH_ROOT:-}" ] || skip "already inside a fresh root"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (scripts/install-deps installs it)"
source_repo=${FAIRWAY_FRESH_ROOT_SOURCE:-$FAIRWAY_SRC}
git -C "$source_repo" rev-parse --verify -q HEAD >/dev/null || fail "$source_repo is not a git repository with a commit"

here=$FAIRWAY_SRC/tests/install
root=$(mktemp -d /var/tmp/fairway-fresh-root.XXXXXX) || fail "mktemp failed"
trap '"$here/fresh-root" remove "$root"' EXIT

# step NAME COMMAND...: runs one step, timing it; the test fails at the first step that fails.
step() {
    local name=$1 started=$SECONDS
    shift
    "$@" || fail "$name failed (after $((SECONDS - started)) s)"
    note "$name: $((SECONDS - started)) s"
}
in_root() { "$here/fresh-root" run "$root" "$@"; }
in_root_offline() { "$here/fresh-root" run "$root" --offline "$@"; }

step "debootstrap" "$here/fresh-root" create "$root"
step "clone $(git -C "$source_repo" rev-parse --short HEAD)" git clone -q --no-local "$source_repo" "$root/root/fairway"
# The steps come from the tree under test, so that an older clone is tried the same way.
install -m 0755 "$here/in-root" "$root/usr/local/sbin/fairway-in-root"
# A throwaway root needs no fsync per file; dpkg is several times faster without it.
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/fairway-test-unsafe-io"

step "scripts/install-deps" in_root fairway-in-root deps
step "scripts/build and unit tests" in_root fairway-in-root build
step "smoke from the build tree" in_root_offline fairway-in-root smoke build
step "make deb and apt-get install" in_root fairway-in-root package
step "smoke from the installed packages" in_root_offline fairway-in-root smoke installed
step "apt-get purge" in_root fairway-in-root purge
note "total: $SECONDS s"
