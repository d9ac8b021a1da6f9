#!/bin/bash
# One active bridge: two fairway-bridge daemons started at once against the same clusters elect
# one leader through the coordination.k8s.io/v1 Lease fairway-system/fairway-bridge (lease 4 s,
# renew deadline 3 s, retry 1 s), while Slurm jobs and Kubernetes workloads compete for Q GPUs
# and the test samples "Slurm GPUs in use + Kubernetes GPU usage <= Q" (bridge-lib.sh):
#  - exactly one bridge writes (writes counted per bridge from its cycle lines);
#  - the apiserver away past the renew deadline: the leader's fence closes (fairway_bridge_leader 0)
#    while it goes on reading; afterwards exactly one bridge holds the lease and may write;
#  - kill -9 of the leader: the other takes over within lease duration + retry period, and its new
#    term fences off the dead one's late writes (its own fairway.io/term mark on the queue);
#  - --once beside a leading daemon writes nothing and exits 3 naming the holder; --once --dry-run
#    runs beside it; after the leader stops (it releases the lease) --once leads and writes.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/kube/bridge-lib.sh"

lease_duration=4 retry_period=1
bridge_pair
bridge_workload_begin tlease t-lease 6
trap bridge_pair_cleanup EXIT

# fairway_bridge_leader of the bridge whose log is $1: 1 while it holds the lease and may write.
leader_gauge() {
    curl -s "http://127.0.0.1:$(sed -n 's/.*msg=started .*metrics_port=\([0-9]*\).*/\1/p' "$1" | head -n 1)/metrics" |
        sed -n 's/^fairway_bridge_leader //p'
}
gauge_is() { [ "$(leader_gauge "$1")" = "$2" ]; }

# Demand on both sides that the split must follow, so the leader keeps writing.
submit_slurm_jobs 4 30
set_kube_demand 3
wait_for 60 "both clusters to use GPUs" both_busy || fail "no sharing: slurm=$(slurm_used) kube=$(kube_used); $(tails)"
set_kube_demand 1
sleep 5

one_leader

note "--once beside the leading daemon"
out=$("$bridge" --config "$work/bridge.yaml" --once 2>&1); rc=$?
expect_eq "$rc" 3 "--once exit status while another bridge leads"
expect_match "$out" "held by .*_$leader" "--once names the holder"
case $out in *'msg=applied'* | *'msg="set GrpTRES"'* | *'msg=cycle'*) fail "--once ran a cycle beside the leader: $out" ;; esac
out=$("$bridge" --config "$work/bridge.yaml" --once --dry-run 2>&1) || fail "--once --dry-run failed beside the leader: $out"
expect_match "$out" "leader election skipped\" holder=[^ ]*_$leader( |$)" "--dry-run names the holder"

note "the apiserver away for longer than the renew deadline (3 s): the leader's fence closes"
llog=$(log_of "$leader")
wait_for 10 "the leader's gauge" gauge_is "$llog" 1 || fail "leader gauge $(leader_gauge "$llog"), not 1"
"$kube" stop-apiserver >/dev/null || fail "cannot stop the apiserver"
wait_for 30 "the leader's fence to close" gauge_is "$llog" 0 || fail "the leader still claims to write: $(tail -n 3 "$llog")"
grep -q 'msg=cycle .*kube_ok=false' "$llog" || fail "the fenced leader stopped reading"
"$kube" start-apiserver >/dev/null || fail "cannot start the apiserver"
# Either bridge may hold the lease now (the standby may find it expired): exactly one does.
wait_for 30 "a leader again" sh -c "[ -n \"\$(kubectl -n fairway-system get lease fairway-bridge -o jsonpath='{.spec.holderIdentity}')\" ]" ||
    fail "nobody holds the lease after the outage"
h=$(holder); leader=${h##*_}
[ "$leader" = "$pid_a" ] && follower=$pid_b || follower=$pid_a
flog=$(log_of "$follower")
wait_for 30 "the holder's fence to open" gauge_is "$(log_of "$leader")" 1 || fail "the holder $h cannot write after the outage"
note "after the outage $h leads (fence open), the other's gauge is $(leader_gauge "$flog")"

note "kill -9 of the leader"
set_kube_demand 3   # the split must move again, so the new leader has something to write
taken=$(acquired "$flog")
term_mark() { kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o jsonpath='{.metadata.annotations.fairway\.io/term}'; }
# (none when this term found the queue moving on its own, or created it: then it needed no fence)
term_before=$(term_mark)
note "the leader's fence mark before the kill: '${term_before}'"
t0=$(date +%s.%N)
kill -9 "$leader"; wait "$leader" 2>/dev/null
[ "$leader" = "$pid_a" ] && pid_a= || pid_b=
took_over() { [ "$(acquired "$flog")" -gt "$taken" ]; }
wait_for 30 "the standby to take over" took_over || fail "no takeover: $(tail -n 3 "$flog")"
takeover=$(awk -v now="$(date +%s.%N)" -v t0="$t0" 'BEGIN { printf "%.2f", now - t0 }')
note "takeover after $takeover s (lease $lease_duration s + retry $retry_period s)"
awk -v t="$takeover" -v limit="$((lease_duration + retry_period))" 'BEGIN { exit !(t <= limit + 0.5) }' ||
    fail "takeover took $takeover s"
expect_match "$(holder)" "_$follower\$" "the Lease names the new leader"
fenced() { [ "$(term_mark)" != "$term_before" ]; }
wait_for 30 "the new term's fence mark on the queue" fenced || fail "the new term did not fence the queue: $(grep 'term fence' "$flog" | tail -n 2)"
wait_for 30 "the new leader to write" sh -c "[ \$(awk '/msg=cycle /{for(i=1;i<=NF;i++) if (\$i ~ /^writes=[1-9]/) n++} END{print n+0}' '$flog') -gt 0 ]" ||
    fail "the new leader never wrote"

note "the leader stops cleanly (releases the lease); --once then leads at once"
kill -TERM "$follower"; wait "$follower" 2>/dev/null
[ "$follower" = "$pid_a" ] && pid_a= || pid_b=
grep -q 'msg="lease released"' "$flog" || fail "the stopping leader did not release the lease"
"$bridge" --config "$work/bridge.yaml" --once >"$work/once.log" 2>&1 || fail "--once after release: $(tail -n 3 "$work/once.log")"
grep -q 'msg="lease acquired"' "$work/once.log" || fail "--once did not take the released lease"
grep -q 'msg="lease released"' "$work/once.log" || fail "--once did not release the lease"

rm -f "$work/log"; cat "$work/log.a" "$work/log.b" "$work/once.log" >"$work/log"
wa=$(writes_of "$work/log.a") wb=$(writes_of "$work/log.b")
bridge_workload_verdict 20
note "Q=$Q: $samples samples, 0 violations; writes a=$wa b=$wb; takeover $takeover s"
