#!/bin/bash
# On the real cluster, fairway-report (reading slurmdbd's accounting, libslurmdb and the sacct
# fallback) agrees with the live priority/fairway plugin's sshare within 1%: RawUsage,
# EffectvUsage and FairShare of every association with usage.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/report/live-lib.sh"
type=$(scontrol show config | awk -F= '/^PriorityType/ { gsub(/ /, "", $2); print $2 }')
[ "$type" = priority/fairway ] ||
    fail "slurmctld runs '$type', not priority/fairway: the plugin is not built or not loaded, so there is nothing to agree with"
wait_idle 120

# Usage the plugin and the accounting both see: GPU jobs of alice (physics) and bob (biology).
# Accounting stores the billing TRES rounded to an integer while the plugin charges the exact value,
# so the jobs ask for whole billing units (1 CPU = 1, 4G = 1, a GPU = 8 under the cluster's weights).
jobs=""
for spec in "alice physics 4 20" "bob biology 4 15" "alice physics 1 5"; do
    set -- $spec
    id=$(as_user "$1" sbatch --parsable -A "$2" -p gpu -n1 --mem=4G --gpus="$3" -o /dev/null --wrap "sleep $4") ||
        fail "sbatch as $1 failed"
    jobs="$jobs ${id%%;*}"
done
for id in $jobs; do wait_for 90 "job $id to finish" job_finished "$id" || fail "job $id did not finish"; done

# agree [--sacct]: the report and sshare agree on every association (same_as_sshare).
agree() {
    local ours theirs
    ours=$("$report" --parsable --noheader "$@") || return 1
    theirs=$(sshare -a -l -P -n) || return 1
    same_as_sshare "$ours" "$theirs"
}
alice_usage() { field "$(sshare -a -l -P -n)" physics alice 5; }
[ "$(alice_usage)" -gt 100 ] 2>/dev/null || wait_for 90 "alice's usage in sshare" sh -c "[ \"\$(sshare -a -l -P -n | awk -F'|' '\$2 == \"alice\" { print \$5; exit }')\" -gt 100 ]" ||
    fail "sshare never showed alice's usage: $(sshare -a -l -P -n)"

# The plugin charges finished jobs at its next calculation pass (PriorityCalcPeriod, 1 minute here,
# unless the cluster's test-only calc_period is set), so agreement may take up to one period.
for source in "" "--sacct"; do
    wait_for 90 "fairway-report ${source:-(libslurmdb)} to agree with sshare" agree $source ||
        { agree $source >&2; echo "report:" >&2; "$report" -P $source >&2; echo "sshare:" >&2; sshare -a -l -P >&2;
          fail "fairway-report ${source:-(libslurmdb)} and sshare differ by more than 1%"; }
    note "fairway-report ${source:-(libslurmdb)} agrees with sshare within 1% (alice RawUsage $(alice_usage))"
done
