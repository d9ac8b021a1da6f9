#!/bin/bash
# Benchmark: fairway-report on a million usage records (offline input), streaming with bounded
# memory: wall, CPU and max RSS, and the RSS ratio to a 1000-record input (bounded when close to
# 1). Prints numbers; asserts nothing about time. The comparison with sacct is report-sacct.
#   tests/bench/report-offline.sh [RECORDS]   (env: FAIRWAY_SRC, FAIRWAY_BUILD)
set -u
src=${FAIRWAY_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${FAIRWAY_BUILD:-$src/_build}
report=$build/tools/fairway-report
records=${1:-1000000}
[ -x "$report" ] || { echo "report-offline: $report is not built" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

python3 "$src/tests/bench/report-gen.py" "$records" > "$tmp/big.json"
python3 "$src/tests/bench/report-gen.py" 1000 > "$tmp/small.json"

# measure FILE: prints "wall cpu maxrss_kb" for one summary run.
measure() {
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$report" --input "$1" --parsable >/dev/null || exit 1
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/time"
}
read -r big_wall big_cpu big_rss < <(measure "$tmp/big.json")
read -r small_wall small_cpu small_rss < <(measure "$tmp/small.json")
size_mb=$(du -m "$tmp/big.json" | cut -f1)
echo "fairway-report: $records records ($size_mb MB of JSON): wall ${big_wall}s, CPU ${big_cpu}s, max RSS ${big_rss} KB"
echo "fairway-report: 1000 records: wall ${small_wall}s, CPU ${small_cpu}s, max RSS ${small_rss} KB"
awk -v b="$big_rss" -v s="$small_rss" -v n="$records" \
    'BEGIN { printf "memory ratio (%d records / 1000 records): %.2f  (bounded when close to 1)\n", n, b / s }'
awk -v c="$big_cpu" -v n="$records" 'BEGIN { printf "fairway-report CPU per record: %.2f us\n", c * 1e6 / n }'

echo "(the live comparison with sacct on a million job records in slurmdbd: tests/bench/report-sacct)"
