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

# --with-slurm=PREFIX: the release compared is the prefix's (a second Slurm installed beside
# Debian's, as scripts/slurm-release does), and PREFIX/source is the default source tree.
prefix=$work/prefix
second=$(printf '0x%06x' $(((24 << 16) + (11 << 8) + 5)))
mkdir -p "$prefix/include" "$prefix/lib" "$prefix/source/slurm" "$prefix/source/src/slurmctld"
cp -r /usr/include/slurm "$prefix/include/"
sed -i "s/^#define SLURM_VERSION_NUMBER .*/#define SLURM_VERSION_NUMBER $second/" "$prefix/include/slurm/slurm_version.h"
out=$("$FAIRWAY_SRC/configure" -q --with-slurm="$prefix" --with-slurm-source="$fake" 2>&1) &&
    fail "configure accepted a $other source tree for the Slurm $second in $prefix"
expect_match "$out" "version $other but the installed Slurm is $second" "configure's message for --with-slurm"
echo "#define SLURM_VERSION_NUMBER $second" >"$prefix/source/slurm/slurm_version.h"
touch "$prefix/source/config.h" "$prefix/source/src/slurmctld/slurmctld.h"
out=$("$FAIRWAY_SRC/configure" --with-slurm="$prefix" 2>&1) ||
    fail "configure refused $prefix with its own source tree: $(printf '%s\n' "$out" | tail -n 3)"
expect_match "$out" "Slurm source tree: +$prefix/source" "the source tree configure took for --with-slurm"
expect_match "$out" "version 24\.11\.5" "the release configure read from $prefix"
