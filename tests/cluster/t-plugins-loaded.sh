#!/bin/bash
# The real daemons run fairway's freshly built plugins: slurmctld has priority/fairway and
# job_submit/fairway mapped and says so in its log, and sbatch lists the SPANK plugin's --preset.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
build=${FAIRWAY_BUILD:?FAIRWAY_BUILD is not set}
require_cluster

problems=""
problem() { problems+="$*"$'\n'; note "problem: $*"; }

# check_copy REL: the cluster's copy of a plugin is the one in the build directory.
check_copy() {
    local built=$build/$1 copy=$CLUSTER_STATE/plugins/${1##*/}
    if [ ! -f "$built" ]; then problem "$built is not built"; return 1; fi
    cmp -s "$built" "$copy" ||
        { problem "the cluster runs another copy of $built than the build's (rerun: tests/cluster/cluster start)"; return 1; }
}

# check_ctld_plugin REL TYPE CONFIG_KEY CONFIG_VALUE: configured, mapped by slurmctld and named in its log.
check_ctld_plugin() {
    local copy=$CLUSTER_STATE/plugins/${1##*/} type=$2 value
    check_copy "$1" || return
    value=$(scontrol show config | awk -v key="$3" '$1 == key { print $3 }')
    [ "$value" = "$4" ] || problem "slurmctld runs with $3 = '$value', not $4"
    grep -qF "$copy" "/proc/$(slurmctld_pid)/maps" || problem "slurmctld has not loaded $copy"
    slurmctld_log_since_start | grep -qF "$type" || problem "slurmctld's log since its start never mentions $type"
}

check_ctld_plugin priority/.libs/priority_fairway.so priority/fairway PriorityType priority/fairway
check_ctld_plugin jobsubmit/.libs/job_submit_fairway.so job_submit/fairway JobSubmitPlugins fairway
note "slurmctld log lines naming fairway: $(slurmctld_log_since_start | grep -F fairway | head -n 5)"

if check_copy spank/.libs/spank_fairway.so; then
    grep -q "^optional $CLUSTER_STATE/plugins/spank_fairway.so" "$CLUSTER_STATE/etc/plugstack.conf" ||
        problem "plugstack.conf does not load spank_fairway.so"
    help=$(sbatch --help 2>&1)
    grep -qE -- '--preset[= ]' <<<"$help" || problem "sbatch --help does not list --preset"
fi

problems=$(grep -v '^$' <<<"$problems")
[ -z "$problems" ] || fail "$problems"
