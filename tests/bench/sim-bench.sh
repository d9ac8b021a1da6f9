#!/bin/bash
# fairway-sim throughput and memory: the KTH SP2 trace (28,475 jobs) under fairway W=14-0 H=7-0,
# then a synthetic trace of 1,000,000 jobs (sim-synthetic.awk) under FCFS and under fairway, and its
# first 100,000 jobs, to show that memory does not grow with the trace. Prints fairway-sim's own
# --timing line per run (jobs per second, peak RSS from VmHWM). Not a pass/fail test.
#   tests/bench/sim-bench.sh [KTH.swf]     (default /work/shared/traces/KTH-SP2-1996-2.1-cln.swf)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${FAIRWAY_BUILD:-$src/_build}
sim=$build/tools/fairway-sim
kth=${1:-/work/shared/traces/KTH-SP2-1996-2.1-cln.swf}
fairway=fairway:window=14-0,half_life=7-0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

run() {   # LABEL ARGS...: one replay, its timing line
    local label=$1; shift
    printf '%-52s ' "$label"
    "$sim" "$@" --quiet --timing --json 2>&1 >/dev/null | sed 's/^fairway-sim: //'
}

if [ -r "$kth" ]; then
    run "KTH-SP2, $fairway" "$kth" --policy "$fairway"
    run "KTH-SP2, the 5 default policies" "$kth"
else
    echo "KTH-SP2 trace not found at $kth: skipped"
fi
awk -v JOBS=1000000 -f "$src/tests/bench/sim-synthetic.awk" >"$tmp/synthetic.swf"
run "synthetic 100k, fcfs" "$tmp/synthetic.swf" --policy fcfs --max-jobs 100000
run "synthetic 1M, fcfs" "$tmp/synthetic.swf" --policy fcfs
run "synthetic 100k, $fairway" "$tmp/synthetic.swf" --policy "$fairway" --max-jobs 100000
run "synthetic 1M, $fairway" "$tmp/synthetic.swf" --policy "$fairway"
