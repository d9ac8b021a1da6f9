#!/bin/bash
# explain JOBID on the real cluster: a pending job's factors come from slurmctld (like sprio -l), and
# the fair-share priority fairway-report computes from accounting matches slurmctld's within 1%.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/report/live-lib.sh"
wait_idle 120

# A job that runs on node1 keeps an exclusive 4-node job pending (Resources).
blocker=$(as_user bob sbatch --parsable -A biology -w node1 -n1 --mem=4G -o /dev/null --wrap 'sleep 60') || fail "sbatch blocker failed"
pending=$(as_user alice sbatch --parsable -A physics -N4 --exclusive --mem=4G -o /dev/null --wrap 'true') || fail "sbatch failed"
trap 'scancel "$blocker" "$pending" 2>/dev/null' EXIT
has_factors() { sprio -h -j "$pending" -o '%i' | grep -q "$pending"; }
wait_for 90 "job $pending in sprio" has_factors || fail "job $pending never got priority factors: $(squeue -j "$pending")"

out=$("$report" explain "$pending") || fail "explain $pending failed: $out"
note "$out"
expect_match "$out" "^Job $pending of user alice in account physics \(partition gpu\)" "explain JOBID header"
ctld=$(sed -n 's/.*partition gpu: .*fairshare \([0-9.]*\),.*/\1/p' <<<"$out")
ours=$(sed -n 's/.*PriorityWeightFairshare .* = \([0-9]*\)$/\1/p' <<<"$out")
[ -n "$ctld" ] && [ -n "$ours" ] || fail "explain printed no fair-share priority: $out"
awk -v a="$ctld" -v b="$ours" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01 * (a > b ? a : b) + 1) }' ||
    fail "slurmctld's fair-share priority $ctld and fairway-report's $ours differ by more than 1%"
note "fair-share priority: slurmctld $ctld, fairway-report $ours"
