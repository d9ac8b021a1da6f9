#!/bin/bash
# Every C and C++ file in the tree is formatted as .clang-format says, by Debian 12's clang-format 14
# (other releases format some constructs differently, so the suite pins the one install-deps installs).
. "$FAIRWAY_SRC/tests/lib.sh"
format=$(command -v clang-format-14) || fail "clang-format-14 is not installed (scripts/install-deps installs it)"
cd "$FAIRWAY_SRC" || fail "no source tree"
[ -f .clang-format ] || fail "no .clang-format at the top of the tree"

# The check itself must be able to fail: an unformatted file in the tree's style is reported.
probe=$(mktemp --suffix=.cpp -p "$FAIRWAY_SRC")
trap 'rm -f "$probe"' EXIT
printf 'int  f( int x ){return x;}\n' >"$probe"
"$format" --dry-run -Werror "$probe" >/dev/null 2>&1 && fail "clang-format accepted an unformatted probe file"
rm -f "$probe"

mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp')
[ "${#files[@]}" -gt 100 ] || fail "found only ${#files[@]} C/C++ files"
report=$("$format" --dry-run -Werror "${files[@]}" 2>&1) ||
    fail "unformatted (run: clang-format-14 -i FILE):
$(printf '%s\n' "$report" | grep -E '^[^ ].*error:' | cut -d: -f1 | sort -u)"
note "${#files[@]} files formatted"
