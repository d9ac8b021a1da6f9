#!/bin/bash
# fairway-report refuses bad input with a message naming the file, line and key, and a non-zero
# exit: malformed JSON, unknown parent, negative usage, unknown keys, bad times and durations,
# unknown associations, cycles, bad command lines, and an unreachable slurmdbd.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
report=$FAIRWAY_BUILD/tools/fairway-report
bad=$FAIRWAY_SRC/tests/report/bad
[ -x "$report" ] || fail "fairway-report is not built at $report"

# rejects EXPECTED_STATUS REGEX ARGS...: the command fails with that status and says REGEX on stderr.
rejects() {
    local want=$1 regex=$2 err status; shift 2
    err=$("$report" "$@" 2>&1 >/dev/null); status=$?
    [ "$status" = "$want" ] || fail "fairway-report $*: exit $status, expected $want ($err)"
    expect_match "$err" "$regex" "fairway-report $*"
}

rejects 1 'malformed\.json:5: malformed JSON: .*line 5' --input "$bad/malformed.json"
rejects 1 "unknown-parent\.json:4: key 'associations\[1\]\.parent': unknown parent account 'nowhere'" --input "$bad/unknown-parent.json"
rejects 1 "negative-usage\.json:8: key 'usage\[1\]\.billing_seconds': must be a finite number >= 0" --input "$bad/negative-usage.json"
rejects 1 "bad-time\.json: key 'now': '2026-01-01' is not an ISO-8601 time" --input "$bad/bad-time.json"
rejects 1 "unknown-key\.json: key 'windwo': unknown key" --input "$bad/unknown-key.json"
rejects 1 "unknown-user\.json:4: key 'usage\[0\]': no association account=A user=ghost" --input "$bad/unknown-user.json"
rejects 1 "cycle\.json:3: key 'associations\[0\]': .*cycle" --input "$bad/cycle.json"
rejects 1 "bad-window\.json: key 'window': '3 days' is not a Slurm duration" --input "$bad/bad-window.json"
rejects 1 "/nonexistent\.json: cannot open" --input /nonexistent.json
rejects 1 "explain JOBID reads the job from slurmctld" explain 42 --input "$FAIRWAY_SRC/tests/report/golden/test24.1.json"
rejects 1 "no user or account named 'nobody'" forecast nobody --input "$FAIRWAY_SRC/tests/report/golden/test24.1.json"
rejects 2 "unknown option '--bogus'" --bogus
rejects 2 "--level must be a number from 0 to 1" forecast u1 --level 2
rejects 2 "plot needs --svg FILE" plot

# Live mode with slurmdbd unreachable: a slurm.conf whose accounting port has nobody listening.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/slurm.conf" <<CONF
ClusterName=nowhere
SlurmctldHost=localhost(127.0.0.1)
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=9
NodeName=n1 CPUs=1
PartitionName=p Nodes=n1
CONF
SLURM_CONF=$tmp/slurm.conf rejects 1 "cannot read associations from slurmdbd" summary
SLURM_CONF=$tmp/slurm.conf rejects 1 "cannot read associations from slurmdbd|sacctmgr failed" summary --sacct
note "every bad input was refused with a message naming where"
