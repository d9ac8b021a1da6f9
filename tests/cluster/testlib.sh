# shellcheck shell=bash disable=SC2034  # CLUSTER is for the tests
# Helpers for integration tests that use the real test cluster (tests/cluster/cluster).
# Source after tests/lib.sh:  . "$FAIRWAY_SRC/tests/lib.sh"; . "$FAIRWAY_SRC/tests/cluster/testlib.sh"
# Tests get SLURM_CONF and FAIRWAY_CLUSTER_STATE from `tests/harness env` (or `tests/cluster/cluster env`).

CLUSTER=${FAIRWAY_SRC:?FAIRWAY_SRC is not set}/tests/cluster/cluster
CLUSTER_STATE=${FAIRWAY_CLUSTER_STATE:-/var/tmp/fairway-cluster}
export SLURM_CONF=${SLURM_CONF:-$CLUSTER_STATE/etc/slurm.conf}
export FAIRWAY_CLUSTER_STATE=$CLUSTER_STATE
# The cluster's Slurm clients (FAIRWAY_SLURM: an installation other than Debian's), its daemons
# ($SLURM_SBIN/slurmdbd), and the compiler flags for a test program using its libslurm:
# gcc $SLURM_PROGRAM_FLAGS prog.c -lslurm.
SLURM_PROGRAM_FLAGS=""
SLURM_SBIN=/usr/sbin
if [ -n "${FAIRWAY_SLURM:-}" ] && [ "${FAIRWAY_SLURM%/}" != /usr ]; then
    SLURM_SBIN=${FAIRWAY_SLURM%/}/sbin
    case ":$PATH:" in *":${FAIRWAY_SLURM%/}/bin:"*) ;; *) export PATH=${FAIRWAY_SLURM%/}/bin:$PATH ;; esac
    SLURM_PROGRAM_FLAGS="-I${FAIRWAY_SLURM%/}/include -L${FAIRWAY_SLURM%/}/lib -Wl,-rpath,${FAIRWAY_SLURM%/}/lib"
fi
# shellcheck source=tests/cluster/process-identity.sh
. "$FAIRWAY_SRC/tests/cluster/process-identity.sh"

# require_cluster: the cluster must be up (tests/harness up); a test that needs it fails otherwise.
require_cluster() {
    [ -r "$SLURM_CONF" ] || fail "no test cluster configuration at $SLURM_CONF (run: tests/cluster/cluster start)"
    scontrol ping 2>/dev/null | grep -q 'is UP' || fail "slurmctld of the test cluster is not answering (run: tests/cluster/cluster start)"
}

# as_user USER COMMAND...: runs COMMAND as USER (alice, bob, carol) from a directory USER can use.
as_user() {
    local user=$1; shift
    (cd /tmp && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" PATH="$PATH" "$@")
}

# The first line only: 24.11's re-executed slurmctld leaves the old pid's tail behind it.
slurmctld_pid() { head -n 1 "$CLUSTER_STATE/run/slurmctld.pid"; }

# slurmctld_log_since_start: slurmctld's log from its latest start on.
slurmctld_log_since_start() {
    awk '/slurmctld version .* started/ { n = 0; delete line } { line[++n] = $0 }
         END { for (i = 1; i <= n; i++) print line[i] }' "$CLUSTER_STATE/log/slurmctld.log"
}

job_state() { sacct -n -X -P -j "$1" -o State | head -n 1; }
job_finished() { case $(job_state "$1") in COMPLETED|FAILED|CANCELLED*|TIMEOUT|OUT_OF_ME*|NODE_FAIL) return 0 ;; esac; return 1; }

# wait_idle SECONDS: waits until no job of an earlier test is left and all 4 nodes are idle.
wait_idle() {
    wait_for "$1" "an empty queue and 4 idle nodes" cluster_idle ||
        fail "cluster not idle: $(squeue -h -o '%i %u %T' | head -n 5 | tr '\n' ';') $(sinfo -h -N -o '%N=%t' | tr '\n' ' ')"
}
cluster_idle() {
    [ -z "$(squeue -h -o %i)" ] && [ "$(sinfo -h -N -r -t idle -o %N | sort -u | wc -l)" -eq 4 ]
}

# gres_tres SPEC: a GRES as the cluster's Slurm writes it in TRES strings (scontrol's TresPerNode):
# gres:gpu:a100:4 in 22.05, gres/gpu:a100:4 from 23.02 on.
gres_tres() {
    local major
    major=$(scontrol --version | awk '{ split($2, v, "."); print v[1] }')
    if [ "${major:-0}" -ge 23 ]; then echo "gres/$1"; else echo "gres:$1"; fi
}
