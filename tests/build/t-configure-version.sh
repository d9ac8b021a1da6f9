#!/bin/bash
# configure refuses a Slurm source tree of another release than the installed one, naming both
# versions: slurmctld would refuse the plugins at start (the loader demands an exact match).
. "$FAIRWAY_SRC/tests/lib.sh"
installed=$(awk '/^#define SLURM_VERSION_NUMBER /{print $3}' /usr/include/slurm/slurm_version.h)
[ -n "$installed" ] || fail "no installed Slurm headers"
other=$(printf '0x%06x' $((installed - 1)))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fake=$work/slurm-src
mkdir -p "$fake/slurm" "$fake/src/slurmctld" "$work/build"
echo "#define SLURM_VERSION_NUMBER $other" >"$fake/slurm/slurm_version.h"
touch "$fake/config.h" "$fake/src/slurmctld/slurmctld.h"
cd "$work/build" || fail "no build dir"
out=$("$FAIRWAY_SRC/configure" -q --with-slurm-source="$fake" 2>&1) &&
    fail "configure accepted a source tree of version $other for the installed $installed"
expect_match "$out" "version $other but the installed Slurm is $(printf '0x%06x' $((installed)))" "configure's message"
out=$("$FAIRWAY_SRC/configure" -q --with-slurm-source="$work/missing" 2>&1) &&
    fail "configure accepted a missing source tree"
expect_match "$out" "no such directory" "configure's message for a missing tree"
