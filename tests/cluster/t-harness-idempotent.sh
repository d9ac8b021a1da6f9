#!/bin/bash
# The harness converges instead of repeating itself: start on a running cluster changes nothing,
# conf-set/conf-reset change and restore slurmctld's configuration, and stop leaves no process
# behind (not even a running job's tasks); start afterwards brings a working cluster back.
# Leaves the cluster up in its default configuration, as every test must.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
require_cluster
wait_idle 60

daemon_pids() { cat "$CLUSTER_STATE"/run/slurmctld.pid "$CLUSTER_STATE"/run/slurmd-node*.pid | tr '\n' ' '; }
config_value() { scontrol show config | awk -v key="$1" '$1 == key { print $3 }'; }

before=$(daemon_pids)
"$CLUSTER" start >/dev/null || fail "start on a running cluster failed"
expect_eq "$(daemon_pids)" "$before" "daemon pids after a second start"

default_priority=$(config_value PriorityType)
"$CLUSTER" conf-set PriorityType=priority/basic PriorityParameters=fairway_test=1 >/dev/null || fail "conf-set failed"
expect_eq "$(config_value PriorityType)" priority/basic "PriorityType after conf-set"
expect_eq "$(config_value PriorityParameters)" fairway_test=1 "PriorityParameters after conf-set"
"$CLUSTER" conf-reset >/dev/null || fail "conf-reset failed"
expect_eq "$(config_value PriorityType)" "$default_priority" "PriorityType after conf-reset"
expect_eq "$(config_value PriorityParameters)" "(null)" "PriorityParameters after conf-reset"

# A running job's task must not outlive stop.
marker=$(mktemp /tmp/fairway-idempotent.XXXXXX)
job=$(sbatch --parsable -N1 -o /dev/null --wrap "echo \$\$ > $marker; exec sleep 600") || fail "sbatch failed"
wait_for 60 "job $job's task to start" test -s "$marker" || fail "job $job never ran"
task=$(cat "$marker"); rm -f "$marker"
pids="$(daemon_pids) $(cat "$CLUSTER_STATE"/run/slurmdbd.pid "$CLUSTER_STATE"/munge/munged.pid "$CLUSTER_STATE"/mysql/mysqld.pid | tr '\n' ' ') $task"
identities=""
for p in $pids; do identities+=" $(process_identity "$p")" || fail "process $p is not running before stop"; done
note "cluster processes (pid:start): $identities"

"$CLUSTER" stop || fail "stop failed"
# by identity: the checks fork, and a fork may take one of these pids once it is free
for p in $identities; do identity_alive "$p" && fail "process $p ($(cat "/proc/${p%%:*}/comm" 2>/dev/null)) survived stop"; done
"$CLUSTER" stop >/dev/null || fail "stop on a stopped cluster failed"
"$CLUSTER" status >/dev/null && fail "status says the stopped cluster runs"

"$CLUSTER" start || fail "start after stop failed"
"$CLUSTER" status >/dev/null || fail "status says the restarted cluster is not fully up"
wait_idle 60
out=$(timeout 60 srun -N4 hostname | sort | tr '\n' ' ') || fail "srun after restart failed"
expect_eq "$out" "node1 node2 node3 node4 " "srun -N4 hostname after restart"
