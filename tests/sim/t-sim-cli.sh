#!/bin/bash
# fairway-sim on a shipped trace: the table, the JSON (byte-identical from run to run), the plots,
# a tree of its own, and errors naming file, line and field. No daemons.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
sim=$FAIRWAY_BUILD/tools/fairway-sim
here=$FAIRWAY_SRC/tests/sim
[ -x "$sim" ] || fail "fairway-sim is not built at $sim"
command -v jq >/dev/null || skip "jq is not installed"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
windows=(--share-window 1-0 --share-step 2:00:00)

# The table: every default policy, the accounts, the jobs the trace skips and cuts.
out=$("$sim" "$here/small.swf" "${windows[@]}") || fail "fairway-sim failed: $out"
expect_match "$out" 'small\.swf: 120 of 121 jobs replayed, 1 skipped \(no_processor_count\), 14 killed at their limit' "trace line"
expect_match "$out" 'cluster: 8 nodes x 4 cores; 4 users in 3 accounts; heaviest user u1' "cluster line"
for policy in 'fcfs' 'multifactor H=7-0' 'fairway W=14-0 H=7-0' 'fairway W=7-0 H=0-0' 'reset=monthly H=0-0'; do
    expect_match "$out" "^$policy " "summary row for $policy"
done
expect_match "$out" 'mean wait by account \(hours\)' "wait table"
expect_match "$out" 'delivered / entitled share by account' "share table"

# JSON: the same figures, byte for byte the same on a second run.
"$sim" "$here/small.swf" "${windows[@]}" --json >"$tmp/a.json" || fail "--json failed"
"$sim" "$here/small.swf" "${windows[@]}" --json >"$tmp/b.json" || fail "--json failed"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "two runs of the same trace differ"
expect_eq "$(jq '.trace.jobs_replayed' "$tmp/a.json")" 120 "jobs replayed"
expect_eq "$(jq '.policies | length' "$tmp/a.json")" 5 "policies"
expect_eq "$(jq '[.policies[].overall.jobs] | unique' -c "$tmp/a.json")" '[120]' "every policy runs every job"
expect_eq "$(jq '[.policies[].utilization.cores] | unique | length' "$tmp/a.json")" 1 "same work, same utilization"
expect_eq "$(jq '[.policies[].utilization.cores | . > 0 and . <= 1] | all' "$tmp/a.json")" true "utilization in (0, 1]"
# u1 floods the queue at time 0: FCFS makes u2 wait behind all of it, fair-share does not.
fcfs=$(jq '.policies[0].users.u2.wait_s.mean' "$tmp/a.json")
fairway=$(jq '.policies[2].users.u2.wait_s.mean' "$tmp/a.json")
jq -e --argjson f "$fcfs" --argjson w "$fairway" -n '$w < $f / 4' >/dev/null ||
    fail "u2 should wait far less under fairway ($fairway s) than under FCFS ($fcfs s)"
expect_eq "$(jq '.policies[0] | has("recovery")' "$tmp/a.json")" false "FCFS has no fair-share factor"
expect_eq "$(jq '.policies[2].recovery.stretches > 0' "$tmp/a.json")" true "u1's factor falls under fairway"
expect_eq "$(jq '.policies[2].shares.series.g1 | length > 10' "$tmp/a.json")" true "share series"
expect_eq "$(jq '[.policies[].shares.jain_mean | . > 0 and . <= 1] | all' "$tmp/a.json")" true "Jain in (0, 1]"

# One policy, a tree of its own: u1 and u2 share "science" (3 shares) against g3 (1 share).
"$sim" "$here/small.swf" --policy fairway:window=2-0,half_life=0 --tree "$here/tree.json" --json \
    "${windows[@]}" >"$tmp/tree.json" || fail "--tree failed"
expect_eq "$(jq -c '[.policies[].name]' "$tmp/tree.json")" '["fairway W=2-0 H=0-0"]' "--policy"
expect_eq "$(jq -c '.policies[0].shares.entities | keys' "$tmp/tree.json")" '["g3","science"]' "top-level accounts"
expect_eq "$(jq '.policies[0].shares.series.science[0][2]' "$tmp/tree.json")" 0.75 "science is entitled to 3/4"

# --starts: a line per job and policy; under FCFS jobs start in submission order.
"$sim" "$here/small.swf" --policy fcfs --policy fairway:window=2-0,half_life=0 --starts "$tmp/starts.tsv" \
    "${windows[@]}" >/dev/null || fail "--starts failed"
expect_eq "$(awk -F'\t' '$1 == "fcfs"' "$tmp/starts.tsv" | wc -l)" 120 "FCFS starts"
expect_eq "$(awk -F'\t' '$1 == "fairway W=2-0 H=0-0" && $4 >= $3 && $5 ~ /^(main|backfill)$/' "$tmp/starts.tsv" | wc -l)" 120 "fairway starts"
expect_eq "$(awk -F'\t' '$1 == "fcfs" && $5 == "main" { if ($3 < last) bad++; last = $3 } END { print bad + 0 }' "$tmp/starts.tsv")" 0 \
    "FCFS's main pass starts jobs in submission order"

# Plots: an SVG with every policy's panel, and its PNG when rsvg-convert is there.
"$sim" "$here/small.swf" "${windows[@]}" --svg "$tmp/sim.svg" >/dev/null || fail "--svg failed"
svg=$(cat "$tmp/sim.svg")
expect_match "$svg" '^<svg ' "SVG header"
expect_match "$svg" 'Mean wait by account under each policy' "wait panel"
expect_match "$svg" 'Delivered \(solid\) vs entitled \(dashed\) share: fairway W=14-0 H=7-0' "share panel"
[ "$(grep -c '<polyline' "$tmp/sim.svg")" -ge 10 ] || fail "the share panels have no lines"
if command -v rsvg-convert >/dev/null; then
    "$sim" "$here/small.swf" --svg "$tmp/sim.svg" --png "$tmp/sim.png" >/dev/null || fail "--png failed"
    expect_eq "$(head -c 8 "$tmp/sim.png" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "PNG signature"
else
    note "rsvg-convert not installed: PNG not checked"
fi

# No progress bar when stderr is not a terminal.
err=$("$sim" "$here/small.swf" 2>&1 >/dev/null) || fail "fairway-sim failed"
expect_eq "$err" "" "stderr off a terminal"

# Errors name the file, the line and the field; a bad command line exits 2.
err=$("$sim" "$here/bad-field.swf" 2>&1); rc=$?
expect_eq "$rc" 1 "exit status for a bad trace"
expect_match "$err" "bad-field\.swf:3: key 'run_time': expected an integer, found '1O0'" "bad field"
err=$("$sim" "$here/unsorted.swf" 2>&1); rc=$?
expect_eq "$rc" 1 "exit status for an unsorted trace"
expect_match "$err" "unsorted\.swf:3: key 'submit_time': the job is submitted before the one above it" "unsorted"
printf '{"now": "2026-01-01T00:00:00Z", "associations": [{"account": "g1", "parent": "root"}, {"account": "g1", "user": "u1"}]}' >"$tmp/partial.json"
err=$("$sim" "$here/small.swf" --tree "$tmp/partial.json" 2>&1); rc=$?
expect_eq "$rc" 1 "exit status for a user missing from the tree"
expect_match "$err" "small\.swf:[0-9]+: key 'user_id': u[234] has no association in" "user missing from the tree"
err=$("$sim" "$here/small.swf" --policy lottery 2>&1); rc=$?
expect_eq "$rc" 2 "exit status for a bad policy"
expect_match "$err" "unknown policy 'lottery'" "bad policy"
# --accounting (the site's jobs from slurmdbd: tests/sim/t-sim-vs-slurm.sh) needs a period and the cluster.
err=$("$sim" --accounting 2026-11-01..2026-12-01 2>&1); rc=$?
expect_eq "$rc" 2 "exit status for --accounting without the cluster"
expect_match "$err" "--accounting needs the cluster: --nodes and --cores-per-node" "--accounting without the cluster"
err=$("$sim" --accounting 2026-12-01..2026-11-01 --nodes 4 --cores-per-node 16 2>&1); rc=$?
expect_eq "$rc" 2 "exit status for an empty period"
expect_match "$err" "'2026-12-01..2026-11-01' ends before it starts" "empty period"
err=$("$sim" "$here/small.swf" --accounting 2026-11-01 --nodes 4 --cores-per-node 16 2>&1); rc=$?
expect_eq "$rc" 2 "exit status for a trace and --accounting"
expect_match "$err" "a trace file or --accounting, not both" "trace and --accounting"
exit 0
