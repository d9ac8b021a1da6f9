#!/bin/bash
# fairway-report's offline mode against expectations derived outside fairway: Slurm 22.05's own
# fair-share tests (test24.1 classic, test24.4 Fair Tree, window=infinite), and a windowed case
# worked by hand. Also checks the stored Slurm expectations still match Slurm's test files.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
report=$FAIRWAY_BUILD/tools/fairway-report
golden=$FAIRWAY_SRC/tests/report/golden
[ -x "$report" ] || fail "fairway-report is not built at $report"

# Every expected line must begin exactly one output line (leading tree indentation removed).
check_slurm_case() {  # check_slurm_case NAME
    local out expected matched=0 wanted=0 line
    out=$("$report" --input "$golden/$1.json" --parsable --noheader) || fail "$1: fairway-report failed"
    out=$(printf '%s\n' "$out" | sed 's/^ *//')
    while IFS= read -r expected; do
        case $expected in '#'*|'') continue ;; esac
        wanted=$((wanted + 1))
        if printf '%s\n' "$out" | awk -v e="$expected" 'index($0, e) == 1 { n++ } END { exit n == 1 ? 0 : 1 }'; then
            matched=$((matched + 1))
        else
            echo "$1: no output line starts with: $expected" >&2
        fi
    done < "$golden/$1.expected"
    [ "$matched" = "$wanted" ] || { printf '%s\n' "$out" >&2; fail "$1: $matched of $wanted Slurm lines matched"; }
    note "$1: all $wanted of Slurm's expected lines reproduced"
}

# The stored expectations are Slurm's: re-derive them where the exact-release source is at hand.
check_against_slurm_source() {  # check_against_slurm_source NAME COLUMNS
    local dir=${SLURM_SOURCE_DIR:-/var/cache/fairway/slurm-src-22.05.8-4+deb12u3/slurm-wlm-22.05.8}
    local file=$dir/testsuite/expect/$1
    [ -f "$file" ] || { note "$1: Slurm source not at $dir; using the stored expectations"; return; }
    diff <(grep -E '^\s*"[A-Za-z0-9]+\|' "$file" | sed -E 's/^\s*"([^"]*)".*/\1/' |
           awk -F'|' -v n="$2" '{ o=""; for (i=1; i<=n && i<NF; i++) o=o $i "|"; print o }') \
         <(grep -v '^#' "$golden/$1.expected") >&2 || fail "$1.expected differs from Slurm's $file"
}

check_against_slurm_source test24.1 8
check_against_slurm_source test24.4 9
check_slurm_case test24.1
check_slurm_case test24.4

out=$("$report" --input "$golden/window-decay.json" --parsable) || fail "window-decay: fairway-report failed"
diff <(printf '%s\n' "$out") <(grep -v '^#' "$golden/window-decay.expected") >&2 || fail "window-decay differs"

# The JSON form carries the same numbers.
json=$("$report" --input "$golden/window-decay.json" --json) || fail "--json failed"
expect_eq "$(jq -r '.associations[] | select(.user == "u2") | .fair_share' <<<"$json")" "0.5" "u2 fair_share in JSON"
expect_eq "$(jq -r '.associations[] | select(.user == "u1") | .raw_usage' <<<"$json")" "50" "u1 raw_usage in JSON"
expect_eq "$(jq -r '.associations[0].level_fs' <<<"$json")" "null" "root level_fs in JSON"
expect_eq "$(jq -r '.associations[] | select(.user == "u1") | .gpu_hours' <<<"$json")" "2" "u1 gpu_hours in JSON"
note "window-decay: matches the hand-worked table"
