#!/bin/bash
# priority/fairway charges usage records from its spool (StateSaveLocation/fairway_usage), as
# fairway-bridge writes them for Kubernetes GPU time: this test writes the records itself, in the
# bridge's format and atomically (temporary file, rename), as root. It checks that
#   - alice's sshare RawUsage rises by the records' billing-seconds (to the half-life's decay of
#     their minutes of age: 7 days, under 0.2 %), and
#     her pending job falls behind bob's in sprio;
#   - each record is charged once: over later passes, across a kill -9 of slurmctld right after a
#     record arrives, and after a rebuild from accounting (corrupt state file), which cannot see
#     Kubernetes usage and charges the records still in the spool again into the new ledger;
#   - fairway-report reads the same records: RawUsage as sshare's at the same pass, Kubernetes
#     GPU-hours and the Kubernetes part of the RawUsage apart;
#   - a missing spool is no error;
#   - Kubernetes usage leaves the window W as Slurm's does: a charge 5 s inside its edge is gone
#     once its bucket (W/100) has left;
#   - forged and malformed records (writable by others, owned by a user, ends before it starts, in
#     the future, unknown association, absurd GPU count) are refused with a log line naming the
#     record and moved to refused/, and charge nothing.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"

prio_test_setup "PriorityParameters=window=30:00,calc_period=0:02"
SPOOL=$CLUSTER_STATE/ctld/fairway_usage
SOURCE=test$$
rm -rf "$SPOOL"
# 0. No spool (a cluster without fairway-bridge): the passes read nothing and log nothing of it.
wait_pass && wait_pass || fail "no passes"
ctld_log_has "usage spool $SPOOL not read" && fail "a missing spool was logged: $(slurmctld_log_since_start | grep -m1 'usage spool')"
install -d -m 0700 -o slurm -g slurm "$SPOOL" || fail "cannot make the spool"
cleanup_spool() { local s=$?; rm -rf "$SPOOL"; (exit $s); prio_restore; }
trap cleanup_spool EXIT

seq_name() { printf '%s-%020d.usage' "$1" "$2"; }
# put_record SEQ CHARGE...: writes record SEQ of $SOURCE atomically, as the bridge does when it
# runs as root (owner root, mode 0644: slurmctld, running as SlurmUser, must read it).
put_record() {
    local seq=$1 file; shift
    file=$SPOOL/$(seq_name "$SOURCE" "$seq")
    { echo "fairway-usage 1"; echo "source=$SOURCE"; echo "sequence=$seq"
      for c in "$@"; do echo "charge=$c"; done; } >"$file.tmp" && chmod 0644 "$file.tmp" && mv "$file.tmp" "$file" ||
        fail "cannot write record $seq"
}
now=$(date +%s)
# near A B: |A - B| <= 0.2 % of 9600, the smallest record charged (a second charge would add 100 %).
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 20) }'; }
ago() { echo $((now - $1)); }
# charged_once WHEN: alice's RawUsage reaches $want and stays there over two more passes: the
# records were charged, once.
charged_once() {
    wait_for 30 "alice's RawUsage to reach $want $1" eval 'near "$(raw_usage alice)" "$want"' ||
        fail "$1: alice's RawUsage $(raw_usage alice), expected $want"
    wait_pass && wait_pass || fail "no passes"
    near "$(raw_usage alice)" "$want" || fail "$1: charged twice? RawUsage $(raw_usage alice), expected $want"
}

base=$(settled_usage alice) || fail "alice's RawUsage does not settle: $(raw_usage alice)"
bob_base=$(raw_usage bob)

# 1. 2 GPUs for 600 s at billing 16 per second (GRES/gpu=8.0): 9600 billing-seconds.
put_record 1 "physics/alice $(ago 700) $(ago 100) 2 16 team-a/w1/uid1@$(ago 700)"
want=$(awk -v b="$base" 'BEGIN { print b + 9600 }')
charged_once "after record 1 ($base + 9600)"
note "one record of 1200 GPU-seconds (billing 16/s): RawUsage $base -> $(raw_usage alice)"

# fairway-report on the controller host reads the same spool with the plugin's checks, parser and
# rule: every association's RawUsage, EffectvUsage and FairShare are sshare's, alice's 1200
# Kubernetes GPU-seconds show apart (KubeGPUHours, beside the Slurm GPUHours), and explain tells
# the Kubernetes part of her RawUsage.
. "$FAIRWAY_SRC/tests/report/live-lib.sh"
agree_within 10 >/dev/null || fail "fairway-report differs from sshare with Kubernetes usage"
ours=$("$report" --parsable --noheader) || fail "fairway-report failed"
expect_eq "$(field "$ours" physics alice 11)" "0.33" "alice's KubeGPUHours in fairway-report"
kube_part=$("$report" explain alice | sed -n 's/.*RawUsage from Slurm [0-9]* ([0-9]*%), from Kubernetes \([0-9]*\) .*/\1/p' | head -n 1)
near "$kube_part" 9600 || fail "explain's Kubernetes part of alice's RawUsage: '$kube_part', expected 9600: $("$report" explain alice)"
note "fairway-report: alice RawUsage $(field "$ours" physics alice 5) (sshare $(raw_usage alice)), KubeGPUHours $(field "$ours" physics alice 11), from Kubernetes $kube_part"

# 2. kill -9 of slurmctld right after a record arrives: charged once, whether the killed slurmctld
# had charged and saved it, charged it only in memory, or not read it yet.
put_record 2 "physics/alice $(ago 100) $(ago 40) 4 32 team-a/w2/uid2@$(ago 100)"
stop_ctld KILL
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld after kill -9 failed"
want=$(awk -v w="$want" 'BEGIN { print w + 60 * 32 }')
charged_once "after kill -9"
note "kill -9 right after record 2: RawUsage $(raw_usage alice), expected $want"

# 3. Forged and malformed records: refused, named in the log, moved aside; nothing charged.
put_record 3 "physics/alice $(ago 60) $(ago 30) 1 8 f/w/u@1"; chmod 0666 "$SPOOL/$(seq_name "$SOURCE" 3)"
put_record 4 "physics/alice $(ago 60) $(ago 30) 1 8 f/w/u@1"; chown alice "$SPOOL/$(seq_name "$SOURCE" 4)"
put_record 5 "physics/alice $(ago 30) $(ago 60) 1 8 f/w/u@1"
put_record 6 "physics/alice $(ago 60) $((now + 3600)) 1 8 f/w/u@1"
put_record 7 "physics/mallory $(ago 60) $(ago 30) 1 8 f/w/u@1"
put_record 8 "physics/alice $(ago 60) $(ago 30) 99999999 8 f/w/u@1"
printf 'fairway-usage 1\nsource=%s\nsequence=9\ncharge=physics/alice 1 2' "$SOURCE" >"$SPOOL/$(seq_name "$SOURCE" 9)"
refused_logged() { for s in 3 4 5 6 8 9; do ctld_log_has "usage record $(seq_name "$SOURCE" "$s") refused" || return 1; done
                   ctld_log_has "usage record $(seq_name "$SOURCE" 7) line 4 refused: no association physics/mallory"; }
wait_for 30 "the forged and malformed records to be refused" refused_logged ||
    fail "not all refused: $(slurmctld_log_since_start | grep 'usage record' | tr '\n' ';')"
for s in 3 4 5 6 8 9; do [ -f "$SPOOL/refused/$(seq_name "$SOURCE" "$s")" ] || fail "record $s not moved to refused/"; done
wait_pass || fail "no pass"
near "$(raw_usage alice)" "$want" || fail "a refused record was charged: RawUsage $(raw_usage alice), expected $want"
note "refused: $(slurmctld_log_since_start | grep -o 'usage record [^ ]* \(line [0-9]* \)\?refused: [^(]*' | sed 's/.*-0*//' | tr '\n' ';')"

# 4. The state file lost: the rebuild from accounting cannot see Kubernetes usage; the spool's
# records are charged again into the rebuilt ledger, once.
want=$(raw_usage alice)
stop_ctld TERM
head -c 300 /dev/urandom >"$STATE_FILE"
"$CLUSTER" restart-ctld >/dev/null || fail "cluster restart-ctld after corrupting the state failed"
wait_for 30 "the usage to be rebuilt from accounting" ctld_log_has "usage rebuilt from accounting" ||
    fail "no rebuild logged: $(slurmctld_log_since_start | grep fairway | tr '\n' ';')"
charged_once "after a rebuild"
note "rebuilt from accounting + spool: RawUsage $(raw_usage alice), expected $want"

# 5. Heavy Kubernetes usage puts alice's pending job behind bob's.
put_record 10 "physics/alice $(ago 1500) $(ago 10) 8 64 team-a/big/uid3@$(ago 1500)"
wait_for 30 "the heavy record" eval 'greater "$(raw_usage alice)" "$(awk -v w=$want "BEGIN { print w + 90000 }")"' ||
    fail "heavy record not charged: $(raw_usage alice)"
scontrol update PartitionName=debug State=DOWN || fail "cannot set partition debug down"
pend_alice=$(submit alice -p debug -n1 -t 1 --wrap true) || fail "sbatch as alice failed"
pend_bob=$(submit bob -p debug -n1 -t 1 --wrap true) || fail "sbatch as bob failed"
wait_for 30 "sprio to list both pending jobs" eval '[ -n "$(job_priority $pend_alice)" ] && [ -n "$(job_priority $pend_bob)" ]' ||
    fail "sprio lists: $(sprio -h -l | tr '\n' ';')"
greater "$(job_priority "$pend_bob")" "$(job_priority "$pend_alice")" ||
    fail "sprio: bob's $(job_priority "$pend_bob") should exceed alice's $(job_priority "$pend_alice")"
note "RawUsage alice $(raw_usage alice) bob $(raw_usage bob) (was $bob_base); sprio alice $(job_priority "$pend_alice") < bob $(job_priority "$pend_bob")"

# 6. The window forgets Kubernetes usage: 15 s of 8 GPUs (billing 64/s) that lie 5 s inside the
# 30-minute window are charged, then gone once their last bucket (18 s) has left it.
edge=$(($(date +%s) - 1800)) began=$SECONDS
bob_before=$(raw_usage bob)
put_record 11 "biology/bob $((edge + 5)) $((edge + 20)) 8 64 team-b/old/uid4@$((edge + 5))"
want=$(awk -v b="$bob_before" 'BEGIN { print b + 15 * 64 }')
wait_for 15 "bob's RawUsage to rise by 960" eval 'near "$(raw_usage bob)" "$want"' ||
    fail "the record at the window's edge was not charged: bob's RawUsage $(raw_usage bob), expected $want"
wait_for 60 "the charge to leave the window" eval 'near "$(raw_usage bob)" "$bob_before"' ||
    fail "usage older than the window still counts: bob's RawUsage $(raw_usage bob), expected $bob_before"
note "a charge at the window's edge: bob's RawUsage $bob_before -> $want -> $(raw_usage bob) in $((SECONDS - began)) s"
