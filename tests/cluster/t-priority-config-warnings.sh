#!/bin/bash
# Valid but doubtful priority settings are logged as warnings, at startup and on reconfigure: a
# PriorityDecayHalfLife at or above the window (the decay then does almost nothing inside it) and a
# window of more than three years. A configuration error names slurm.conf once.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
require_cluster

log_lines() { wc -l <"$CLUSTER_STATE/log/slurmctld.log"; }
fairway_log_after() { tail -n +"$(($1 + 1))" "$CLUSTER_STATE/log/slurmctld.log" | grep -F "priority/fairway"; }
logged_after() { fairway_log_after "$1" | grep -qF -- "$2"; }
# reconfigure_with PARAMETERS: slurm.conf's PriorityParameters replaced, then scontrol reconfigure.
reconfigure_with() {
    sed -i "s|^PriorityParameters=.*|PriorityParameters=$1|" "$SLURM_CONF"
    scontrol reconfigure || fail "scontrol reconfigure failed"
}

# 1. At startup: the cluster's half-life is 7 days, the window 30 minutes.
before=$(log_lines)
prio_configure "PriorityParameters=window=30:00,calc_period=0:02"
wait_for 30 "the half-life warning" logged_after "$before" "warning: PriorityDecayHalfLife 7-00:00:00 is not shorter than the window 00:30:00" ||
    fail "no half-life warning at startup: $(fairway_log_after "$before" | tr '\n' ';')"
note "$(fairway_log_after "$before" | grep -F 'warning: PriorityDecayHalfLife' | tail -n 1)"

# 2. On reconfigure: a window of 1100 days.
before=$(log_lines)
reconfigure_with "window=1100-0,calc_period=0:02"
wait_for 30 "the long window warning" logged_after "$before" "warning: the window 1100-00:00:00 is longer than 1095-00:00:00" ||
    fail "no warning for a window of 1100 days: $(fairway_log_after "$before" | tr '\n' ';')"
note "$(fairway_log_after "$before" | grep -F 'warning: the window' | tail -n 1)"
fairway_log_after "$before" | grep -qF "warning: PriorityDecayHalfLife" && fail "half-life warning although the window is 1100 days"

# 3. A bad value: the error names slurm.conf once, and slurmctld keeps the previous configuration.
# 22.05 reconfigures in place: the plugin keeps its settings. 24.11 re-executes slurmctld: the new
# process stops at init() and the old one resumes, so scontrol reconfigure fails.
before=$(log_lines)
ctld=$(slurmctld_pid)
sed -i "s|^PriorityParameters=.*|PriorityParameters=window=30:00,calc_period=0|" "$SLURM_CONF"
if scontrol reconfigure; then kept="keeping the previous one"; else kept="invalid priority configuration"; fi
wait_for 30 "the configuration error" logged_after "$before" "$kept" ||
    fail "no error logged: $(fairway_log_after "$before" | tr '\n' ';')"
line=$(fairway_log_after "$before" | grep -F "$kept" | tail -n 1)
note "$line"
expect_match "$line" "$kept: slurm.conf: key 'calc_period'" "the configuration error"
expect_eq "$(slurmctld_pid)" "$ctld" "slurmctld's pid after the refused configuration"
scontrol ping | grep -q 'is UP' || fail "slurmctld does not answer after the refused configuration"
[ "$(grep -o 'slurm.conf' <<<"$line" | wc -l)" = 1 ] || fail "slurm.conf named more than once: $line"
