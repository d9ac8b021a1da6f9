# shellcheck shell=bash
# A process named by "PID:START" (START: its start time in clock ticks since boot, field 22 of
# /proc/PID/stat) instead of its pid alone. pid_max is 32768 on this kind of host and a configure
# run forks thousands of processes, so a pid read before a kill can belong to a new process (even
# the checker's own awk) a few seconds later. Sourced by the cluster harness and by the tests.
# Reads /proc with builtins only, so identity_alive forks nothing that could take the pid it checks;
# process_identity, whose output is read through a subshell, is for processes that still run.

# process_fields PID: sets the array PROCESS_FIELDS to the fields of /proc/PID/stat after the
# name (which may hold spaces): [0] is the state, [19] the start time; false when PID is gone.
process_fields() {
    local stat
    [ -n "${1:-}" ] || return 1
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
    read -r -a PROCESS_FIELDS <<<"${stat##*) }"
}

# process_identity PID: prints "PID:START"; false when PID is gone.
process_identity() { process_fields "$1" && echo "$1:${PROCESS_FIELDS[19]}"; }

# identity_alive PID[:START]: true when that process runs; a zombie counts as dead (this host's init
# reaps orphans late). With START, a newer process that took the pid does not count.
identity_alive() {
    local pid=${1%%:*} start=${1#*:}
    process_fields "$pid" && [ "${PROCESS_FIELDS[0]}" != Z ] &&
        { [ "$start" = "$1" ] || [ "$start" = "${PROCESS_FIELDS[19]}" ]; }
}
