#!/bin/bash
# explain, forecast and plot on offline input, against values derived by hand or from Slurm's
# test24.4 expectations, and real SVG/PNG files.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
report=$FAIRWAY_BUILD/tools/fairway-report
golden=$FAIRWAY_SRC/tests/report/golden
[ -x "$report" ] || fail "fairway-report is not built at $report"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# explain: uDA2's factor is Slurm's 0.380952 (test24.4); 13 of the 21 users there have a higher
# one, so it ranks 14th; among uDA1 ("parent": ranked first), uDA2 and uDA3 it is 2nd by LevelFS.
out=$("$report" explain uDA2 --input "$golden/test24.4.json") || fail "explain failed: $out"
expect_match "$out" 'User uDA2 in account aDA \(root/aD/aDA\)' "explain header"
expect_match "$out" 'Fair-share factor 0\.380952: rank 14 of 21 user associations' "explain rank"
expect_match "$out" 'Among its 3 sibling\(s\): rank 2 by LevelFS' "explain peers"
expect_match "$out" 'PriorityWeightFairshare 10000 x 0\.380952 = 3810' "explain priority"
json=$("$report" explain uDA2 --input "$golden/test24.4.json" --json) || fail "explain --json failed"
expect_eq "$(jq -r '.[0].rank' <<<"$json")" 14 "explain --json rank"

# forecast: classic, one user whose only record (no decay) ends at 00:00 in a 1-day window with
# 864 s buckets (W/100). By the ledger's contract the bucket leaves at 00:00 + 864 s + 1 day; from
# then the user has no usage and the factor is 2^0 = 1.
out=$("$report" forecast u1 --level 0.9 --input "$golden/recovery.json") || fail "forecast failed: $out"
expect_match "$out" 'u1 \(account A\): factor 0\.500000 now; reaches 0\.900000 at 2026-03-11T00:14:24Z' "forecast"
json=$("$report" forecast A --level 0.9 --input "$golden/recovery.json" --json) || fail "forecast --json failed"
expect_eq "$(jq -r '.[0].seconds_from_now' <<<"$json")" 65664 "forecast seconds from now"
out=$("$report" forecast u1 --level 0.4 --input "$golden/recovery.json") || fail "forecast failed"
expect_match "$out" 'already at or above 0\.400000' "forecast already reached"

# plot: an SVG naming every top-level account, and a real PNG.
"$report" plot --svg "$tmp/r.svg" --png "$tmp/r.png" --input "$golden/test24.4.json" >/dev/null || fail "plot failed"
for account in aA aB aC aD aE aF aG; do grep -q ">$account<" "$tmp/r.svg" || fail "plot: no $account in the SVG"; done
grep -q '<polyline' "$tmp/r.svg" || fail "plot: no factor curves"
expect_eq "$(head -c 8 "$tmp/r.png" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "PNG signature"
note "explain, forecast and plot agree with the derived values"
