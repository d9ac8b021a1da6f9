#!/bin/bash
# The cores the plugins, fairway-bridge, fairway-report and fairway-sim share (libfairway/fairshare,
# common, sim, quota, presets) pass the checks .clang-tidy chooses, run by Debian 12's clang-tidy-14
# (scripts/install-deps installs it). Limited to them to keep the test near a minute on two cores
# (binding/ is left out for that); the adapters (priority/, spank/, jobsubmit/, bridge/) compile
# only against Slurm's headers of one release.
. "$FAIRWAY_SRC/tests/lib.sh"
tidy=$(command -v clang-tidy-14) || fail "clang-tidy-14 is not installed (scripts/install-deps installs it)"
cd "$FAIRWAY_SRC" || fail "no source tree"
[ -f .clang-tidy ] || fail "no .clang-tidy at the top of the tree"
flags=(-std=c++20 -I"$FAIRWAY_SRC/libfairway" -I"$FAIRWAY_SRC")
# check FILE...: clang-tidy on each file, two at a time; prints the findings, fails on any.
check() {
    printf '%s\0' "$@" |
        xargs -0 -n 4 -P 2 bash -c '"$0" --quiet "$@" -- '"${flags[*]}" "$tidy" 2>/dev/null |
        grep -E '(warning|error):' && return 1
    return 0
}

# The check itself must be able to fail: a probe with a value named against the house style and a
# use after a move is reported.
probe=$(mktemp -d -p "$FAIRWAY_SRC/libfairway")
trap 'rm -rf "$probe"' EXIT
cat >"$probe/probe.cpp" <<'CPP'
#include <string>
#include <utility>
enum class Colour { kRed, green };
std::size_t f(std::string s) {
    std::string t = std::move(s);
    return s.size() + t.size();
}
CPP
findings=$(check "$probe/probe.cpp") && fail "clang-tidy accepted the probe file"
expect_match "$findings" "invalid case style for scoped enum constant 'kRed'" "the probe's naming finding"
expect_match "$findings" "'s' used after it was moved" "the probe's use after move"
rm -rf "$probe"

mapfile -t files < <(git ls-files 'libfairway/fairshare/*.cpp' 'libfairway/common/*.cpp' 'libfairway/sim/*.cpp' \
    'libfairway/quota/*.cpp' 'libfairway/presets/*.cpp')
[ "${#files[@]}" -gt 40 ] || fail "found only ${#files[@]} C++ files"
findings=$(check "${files[@]}") || fail "clang-tidy findings (see .clang-tidy):
$(printf '%s\n' "$findings" | sort -u | head -n 40)"
note "${#files[@]} files pass clang-tidy's checks"
