#!/bin/bash
# fairway-report and the live plugin's sshare charge jobs by one rule (fairshare/run_charges.h):
# with a 3-minute window and a 1-minute half-life, jobs that outlive the half-life, cross the
# window's edge, run on through a slurmctld restart and the rebuild a new window brings, and one
# still running, leave the same RawUsage, EffectvUsage and FairShare in both (within 1%), read at the
# time of the plugin's last pass. Charging each job whole at its end, the report was 2x off.
set -u
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/priority-lib.sh"
. "$FAIRWAY_SRC/tests/report/live-lib.sh"
wait_idle 120
# A new window and half-life: the plugin rebuilds its usage from accounting at start. walk_shortcuts
# is the plugin's own key (its default here): the report reads the window past it.
prio_configure PriorityDecayHalfLife=1 "PriorityParameters=window=3:00,calc_period=0:02,walk_shortcuts=yes"

# Whole billing units, as in t-live-sshare.sh (accounting stores the billing TRES as an integer).
started=$(date +%s)
long_alice=$(submit alice -A physics -p gpu -n1 --mem=4G --gpus=4 --wrap "sleep 130") || fail "sbatch failed"
long_bob=$(submit bob -A biology -p gpu -n1 --mem=4G --gpus=2 --wrap "sleep 100") || fail "sbatch failed"
wait_for 60 "alice's job to start" eval '[ "$(squeue -h -j '"$long_alice"' -o %T)" = RUNNING ]' ||
    fail "job $long_alice did not start"
sleep 40
"$CLUSTER" restart-ctld >/dev/null || fail "slurmctld did not restart"
for id in $long_alice $long_bob; do wait_for 200 "job $id to finish" job_finished "$id" || fail "job $id did not finish"; done
running=$(submit bob -A biology -p gpu -n1 --mem=4G --gpus=1 --wrap "sleep 300") || fail "sbatch failed"
wait_for 60 "bob's last job to start" eval '[ "$(squeue -h -j '"$running"' -o %T)" = RUNNING ]' ||
    fail "job $running did not start"
# Alice's first seconds leave the window (3 minutes after her job started) while her last ones count.
sleep $(( started + 200 - $(date +%s) > 0 ? started + 200 - $(date +%s) : 0 ))

[ "$(field "$(sshare -a -l -P -n)" physics alice 5)" -ge 100 ] 2>/dev/null ||
    fail "alice's usage is too small to compare: $(sshare -a -l -P -n)"
for source in "" "--sacct"; do
    agreed=$(agree_within 10 $source) || fail "fairway-report ${source:-(libslurmdb)} and sshare differ by more than 1%"
    note "fairway-report ${source:-(libslurmdb)} agrees with sshare within 1%: $agreed"
done
scancel "$running"
