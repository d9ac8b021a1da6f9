# Shared prologue of the fairway-bridge integration tests: the built daemon and both real harnesses.
# Source after tests/lib.sh. A missing harness is a failure, not a skip: CI must not pass silently.
. "$FAIRWAY_SRC/tests/kube/common.sh"
bridge=$FAIRWAY_BUILD/bridge/fairway-bridge
[ -x "$bridge" ] || fail "fairway-bridge not built at $bridge"
[ -n "${KUBECONFIG:-}" ] && [ -n "${FAIRWAY_KUBE_BRIDGE_KUBECONFIG:-}" ] || fail "kube harness not running (tests/harness env)"
require_kubectl
[ -n "${SLURM_CONF:-}" ] || fail "Slurm cluster harness not running (tests/harness env)"
kubectl get --raw /readyz >/dev/null 2>&1 || fail "kube-apiserver not ready"
scontrol ping >/dev/null 2>&1 || fail "slurmctld not answering"

# bind_bridge NAME / unbind_bridge NAME: the shipped rbac.yaml's rights for user fairway-bridge:
# the ClusterRole through ClusterRoleBinding NAME, the lease and events Roles through RoleBindings NAME.
bind_bridge() {
    kubectl apply -f "$FAIRWAY_SRC/etc/kubernetes/bridge/rbac.yaml" >/dev/null || fail "cannot install the bridge RBAC"
    unbind_bridge "$1"
    kubectl create clusterrolebinding "$1" --clusterrole=fairway-bridge --user=fairway-bridge >/dev/null || fail "cannot bind"
    kubectl -n fairway-system create rolebinding "$1" --role=fairway-bridge-lease --user=fairway-bridge >/dev/null ||
        fail "cannot bind the lease role"
    kubectl -n default create rolebinding "$1" --role=fairway-bridge-events --user=fairway-bridge >/dev/null ||
        fail "cannot bind the events role"
}
unbind_bridge() {
    kubectl delete --ignore-not-found clusterrolebinding "$1" >/dev/null 2>&1
    kubectl -n fairway-system delete --ignore-not-found rolebinding "$1" >/dev/null 2>&1
    kubectl -n default delete --ignore-not-found rolebinding "$1" >/dev/null 2>&1
    kubectl -n fairway-system delete --ignore-not-found lease fairway-bridge >/dev/null 2>&1  # the next test starts unled
}

# ---- The shared-quota workload (t-bridge-invariant.sh, t-bridge-faults.sh) ----
# One quota group of Q GPUs: Slurm account $BT_ACCOUNT (an account of its own, so other tests' jobs
# do not count, user alice) against namespace $BT_NS. The test plays Kueue (play_kueue) and samples
#     Slurm GPUs in use + Kubernetes GPU usage <= Q
# at instants where Kubernetes' usage is exactly known. Call bridge_workload_begin ACCOUNT NAMESPACE Q
# once; it installs bridge_workload_cleanup as the EXIT trap.
cluster=$FAIRWAY_SRC/tests/cluster/cluster kube=$FAIRWAY_SRC/tests/kube/kube
bridge_pid= player_pid= work=

bridge_start() { "$bridge" --config "$work/bridge.yaml" >>"$work/log" 2>&1 & bridge_pid=$!; }
bridge_kill9() { kill -9 "$bridge_pid"; wait "$bridge_pid" 2>/dev/null; bridge_pid=; }

# ---- Two bridges started at once (t-bridge-lease, t-bridge-faults) ----
# After bridge_pair, bridge_workload_begin starts two bridges at the same instant, a and b, logging
# to $work/log.a and $work/log.b; $work/log is a's until one_leader points it at the leader's. The
# test then traps bridge_pair_cleanup on EXIT.
pid_a= pid_b=
bridge_pair() {
    bridge_start() {
        "$bridge" --config "$work/bridge.yaml" >>"$work/log.a" 2>&1 & pid_a=$!
        "$bridge" --config "$work/bridge.yaml" >>"$work/log.b" 2>&1 & pid_b=$!
        ln -sf log.a "$work/log"
        bridge_pid=
    }
}
bridge_pair_cleanup() { for p in $pid_a $pid_b; do kill "$p" 2>/dev/null; done; bridge_workload_cleanup; }
tails() { tail -n 4 "$work/log.a" "$work/log.b" 2>&1; }
writes_of() { awk '/msg=cycle / { for (i = 1; i <= NF; i++) if ($i ~ /^writes=/) { sub("writes=", "", $i); n += $i } } END { print n + 0 }' "$1"; }
acquired() { grep -c 'msg="lease acquired"' "$1"; }
holder() { kubectl -n fairway-system get lease fairway-bridge -o jsonpath='{.spec.holderIdentity}'; }
log_of() { [ "$1" = "$pid_a" ] && echo "$work/log.a" || echo "$work/log.b"; }
# Exactly one of the pair acquired the lease and wrote; the other wrote nothing and says who leads.
# Sets leader and follower (pids), llog and flog (their logs), and points $work/log at llog.
one_leader() {
    note "two bridges started at once: writes a=$(writes_of "$work/log.a") b=$(writes_of "$work/log.b")," \
        "lease acquired a=$(acquired "$work/log.a") b=$(acquired "$work/log.b"), holder $(holder)"
    expect_eq "$(($(acquired "$work/log.a") + $(acquired "$work/log.b")))" 1 "exactly one bridge acquired the lease"
    if [ "$(acquired "$work/log.a")" = 1 ]; then leader=$pid_a follower=$pid_b; else leader=$pid_b follower=$pid_a; fi
    llog=$(log_of "$leader") flog=$(log_of "$follower")
    [ "$(writes_of "$llog")" -gt 0 ] || fail "the leader wrote nothing"
    expect_eq "$(writes_of "$flog")" 0 "writes by the standby bridge"
    grep -q 'msg="lease held by another bridge; standing by"' "$flog" || fail "the standby did not say who leads"
    expect_match "$(holder)" "_$leader\$" "the Lease names the leader"
    ln -sf "$(basename "$llog")" "$work/log"
}

# standing_weight ACCOUNT [USER]: the weight the bridge should publish for the association, in
# thousandths: 1000 x 2^-q, q = min(10, round(4 x EffectvUsage / NormShares) / 4), from sshare's
# figures (FairShareDampeningFactor 1, as the test cluster runs).
standing_weight() {
    sshare -A "$1" ${2:+-u "$2"} -n -P -o Account,User,NormShares,EffectvUsage |
        awk -F'|' -v account="$1" -v user="${2:-}" '{ gsub(/^ +/, "", $1) } $1 == account && $2 == user {
            q = $3 > 0 ? int(4 * $4 / $3 + 0.5) / 4 : 10; if (q > 10) q = 10
            w = int(1000 * 2 ^ -q + 0.5); print (w < 1 ? 1 : w); exit }'
}

bridge_workload_cleanup() {
    [ -n "$player_pid" ] && kill "$player_pid" 2>/dev/null
    [ -n "$bridge_pid" ] && kill "$bridge_pid" 2>/dev/null
    wait 2>/dev/null
    "$kube" start-etcd >/dev/null 2>&1
    "$kube" start-apiserver >/dev/null 2>&1
    scancel -A "$BT_ACCOUNT" >/dev/null 2>&1
    kubectl delete clusterqueues,resourceflavors,workloadpriorityclasses -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl delete localqueues -A -l app.kubernetes.io/managed-by=fairway-bridge >/dev/null 2>&1
    kubectl -n "$BT_NS" delete workloads --all >/dev/null 2>&1
    unbind_bridge "t-bridge-$BT_ACCOUNT"
    sacctmgr -i delete user alice,bob account="$BT_ACCOUNT" >/dev/null 2>&1
    sacctmgr -i delete account "$BT_ACCOUNT" >/dev/null 2>&1
    "$cluster" conf-reset >/dev/null 2>&1
    rm -rf "$work"
}

bridge_workload_begin() {
    BT_ACCOUNT=$1 BT_NS=$2 Q=$3
    work=$(mktemp -d)
    trap bridge_workload_cleanup EXIT
    "$cluster" conf-set AccountingStorageEnforce=associations,limits >/dev/null || fail "cannot enforce limits"
    eval "$("$cluster" env)"
    scontrol show config | grep -q 'AccountingStorageEnforce *= *associations,limits' || fail "limits are not enforced"
    sacctmgr -i add account "$BT_ACCOUNT" Cluster="$(scontrol show config | sed -n 's/^ClusterName *= *//p')" >/dev/null || fail "cannot add account"
    sacctmgr -i add user alice Account="$BT_ACCOUNT" >/dev/null || fail "cannot add alice to $BT_ACCOUNT"
    wait_for 30 "slurmctld to know account $BT_ACCOUNT" sh -c "scontrol -o show assoc_mgr accounts=$BT_ACCOUNT flags=assoc | grep -q 'UserName=alice'" ||
        fail "slurmctld does not know $BT_ACCOUNT"
    kubectl get ns "$BT_NS" >/dev/null 2>&1 || kubectl create ns "$BT_NS" >/dev/null || fail "cannot create namespace"
    bind_bridge "t-bridge-$BT_ACCOUNT"
    cat >"$work/bridge.yaml" <<YAML
kubernetes: {kubeconfig: $FAIRWAY_KUBE_BRIDGE_KUBECONFIG}
reconcile: {period_seconds: 1, stale_after_seconds: 3, write_timeout_seconds: 1}
leader_election: {lease_duration_seconds: 4, renew_deadline_seconds: 3, retry_period_seconds: 1}
metrics: {listen: "127.0.0.1:0"}
groups:
  - {name: $BT_ACCOUNT, accounts: [$BT_ACCOUNT], namespaces: [$BT_NS], gpus: $Q}
YAML
    bridge_start
    wait_for 60 "the ClusterQueue to get a quota" kube_has_quota || fail "no quota for Kubernetes: $(tail -n 5 "$work/log")"
    echo 0 >"$work/demand"; echo 0 >"$work/kube_used"; echo 0 >"$work/samples"; echo "$Q" >"$work/quota"
    play_kueue &
    player_pid=$!
}

slurm_assoc_gpus() {  # "limit(used)" of the account's GrpTRES gres/gpu, as slurmctld's association manager has it
    scontrol -o show assoc_mgr accounts="$BT_ACCOUNT" flags=assoc | grep 'UserName= ' | tr ' ' '\n' | grep '^GrpTRES=' |
        sed -n 's/.*[=,]gres\/gpu=\([^(,]*\)(\([0-9]*\)).*/\1 \2/p'
}
slurm_used() { slurm_assoc_gpus | awk '{print $2}'; }
slurm_limit() { slurm_assoc_gpus | awk '{print $1 == "N" ? -1 : $1}'; }  # -1: no limit
cq_quota() {
    kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o json 2>/dev/null |
        jq '[.spec.resourceGroups[].flavors[].resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota | tonumber] | add // 0'
}
kube_has_quota() { [ "$(cq_quota)" -gt 0 ]; }
set_kube_demand() { echo "$1" >"$work/demand"; }
kube_used() { cat "$work/kube_used"; }
submit_slurm_jobs() {  # COUNT SECONDS: one-GPU jobs of the group's account
    local i
    for ((i = 0; i < $1; i++)); do
        runuser -u alice -- sbatch -A "$BT_ACCOUNT" -p gpu --gres=gpu:1 -t 2 --chdir=/tmp -o /dev/null --wrap "sleep $2" >/dev/null ||
            fail "cannot submit a Slurm job"
    done
}
both_busy() { [ "$(slurm_used)" -ge 1 ] && [ "$(kube_used)" -ge 1 ]; }
slurm_jobs_done() { [ -z "$(squeue -h -A "$BT_ACCOUNT" -o %i)" ]; }

# Kubernetes as Kueue would run it: Kueue enforces quota per flavor, trying the ClusterQueue's flavors
# in order, and charges it at reservation. So: reserve one one-GPU workload at a time on the first
# flavor whose reservation is below its nominalQuota (never preempting when a quota drops), and
# finish workloads from the last flavor first when demand falls. The status carries both
# flavorsReservation (what the bridge reads) and flavorsUsage (the same: no AdmissionChecks here).
# Every loop also samples Slurm's use at an instant when Kubernetes' use is exactly known (only this
# loop changes it), and appends "flavor use quota" lines to $work/flavors. A status write that fails
# is shown on stderr and retried on the next loop; use counts as shown only once the apiserver has stored it.
kueue_step() {  # CQ JSON on stdin; per-flavor use JSON $1, demand $2: the next per-flavor use
    jq -c --argjson use "$1" --argjson want "$2" '
        [.spec.resourceGroups[0].flavors[] | {name, quota: ([.resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota | tonumber] | add)}] as $fl
        | ([$use[]] | add // 0) as $total
        | if $total > $want then
              reduce range(0; $total - $want) as $i ($use; (to_entries | map(select(.value > 0)) | last.key) as $k | .[$k] -= 1)
          elif $total < $want then
              reduce $fl[] as $f ({u: $use, done: false};
                  if (.done | not) and ((.u[$f.name] // 0) < $f.quota) then .u[$f.name] = ((.u[$f.name] // 0) + 1) | .done = true else . end) | .u
          else $use end'
}
flavor_status() {  # per-flavor use JSON $1, pending $2, observed generation $3: the ClusterQueue status patch
    jq -cn --argjson use "$1" --argjson pending "$2" --argjson gen "$3" '
        [$use | to_entries[] | {name: .key, resources: [{name: "nvidia.com/gpu", total: (.value | tostring), borrowed: "0"}]}] as $f
        | {status: {pendingWorkloads: $pending, flavorsReservation: $f, flavorsUsage: $f,
                    conditions: [{type: "Active", status: "True", reason: "Ready", message: "Can admit new workloads",
                                  lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: $gen}]}}'
}
# Kubernetes' pending demand as the bridge reads it: pending Workloads in the group's LocalQueue. The
# player keeps one, of N one-GPU pods (no QuotaReserved condition), N the GPUs asked for and not
# reserved; the reserved ones show only in the ClusterQueue status. As Kueue's job integration would.
kueue_pending_workload() {
    kubectl apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: t-pending, namespace: $BT_NS}
spec:
  queueName: fairway
  podSets:
  - {name: main, count: $1, template: {spec: {restartPolicy: Never, containers: [{name: c, image: i, resources: {requests: {nvidia.com/gpu: "1"}}}]}}}
YAML
}
# Kueue's controller takes a ClusterQueue's new spec into its cache, then reports the generation it
# observed (condition Active). kueue_lag_begin holds the player at the spec it has: it keeps
# admitting by the old quotas and reporting the old generation, as a slow controller would.
kueue_lag_begin() { touch "$work/kueue_lagging"; }
kueue_lag_end() { rm -f "$work/kueue_lagging"; }
# What Kubernetes may hold, flavor by flavor, as Kueue enforces it (each flavor its quota, or its
# use where that is above): with Slurm's use, sampled against the quota in $work/quota as
# "slurm kubernetes-holdable quota" lines in $work/flavor_samples. Only while $work/sample_flavors
# exists. Sound as sampled: the bridge raises Slurm only once the status shows the decrease in
# force, which the player writes in a later loop than the one that read the quota before it.
sample_flavors() {  # Slurm use $1, per-flavor use JSON $2, the ClusterQueue enforced $3
    echo "$1 $(echo "$3" | jq --argjson use "$2" '[.spec.resourceGroups[0].flavors[]
        | [($use[.name] // 0), ([.resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota | tonumber] | add)] | max]
        | add // 0') $(cat "$work/quota")" >>"$work/flavor_samples"
}
play_kueue() {
    local use='{}' next shown_use='{}' shown_pending=-1 shown_gen=0 shown_wl=-1 samples=0 shown=0 pending want s token cq enforced='' gen=0
    token=$(token_in "$KUBECONFIG")
    while :; do
        want=$(cat "$work/demand")
        if cq=$(kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o json 2>/dev/null); then
            if [ ! -e "$work/kueue_lagging" ] || [ -z "$enforced" ]; then enforced=$cq gen=$(echo "$cq" | jq .metadata.generation); fi
        fi
        if [ -n "$cq" ] && next=$(echo "$enforced" | kueue_step "$use" "$want"); then
            use=$next
            pending=$((want - $(echo "$use" | jq '[.[]] | add // 0')))
            if [ "$shown_wl" != "$pending" ]; then kueue_pending_workload "$pending" && shown_wl=$pending; fi
            if [ "$shown_use $shown_pending $shown_gen" != "$use $pending $gen" ]; then
                patch_status "$token" "/apis/kueue.x-k8s.io/v1beta1/clusterqueues/fairway-$BT_ACCOUNT" "$(flavor_status "$use" "$pending" "$gen")" &&
                    { shown_use=$use shown_pending=$pending shown_gen=$gen; shown=$(echo "$use" | jq '[.[]] | add // 0'); }
            fi
            echo "$cq" | jq -r --argjson use "$shown_use" '.spec.resourceGroups[0].flavors[]
                | "\(.name) \($use[.name] // 0) \([.resources[] | select(.name == "nvidia.com/gpu") | .nominalQuota | tonumber] | add)"' >>"$work/flavors"
        fi
        if s=$(slurm_used) && [ -n "$s" ]; then
            samples=$((samples + 1)); echo "$samples" >"$work/samples"
            [ $((s + shown)) -le "$(cat "$work/quota")" ] || echo "slurm=$s kube=$shown at $(date +%T.%N)" >>"$work/violations"
            [ -e "$work/sample_flavors" ] && sample_flavors "$s" "$shown_use" "$enforced"
        fi
        echo "$shown" >"$work/kube_used"
        sleep 0.2
    done
}

# Converged: a cycle newer than line $1 of the log read both sides, and the two limits hand out exactly Q.
bridge_converged() {
    local ls lk
    tail -n +"$(($1 + 1))" "$work/log" | grep 'msg=cycle ' | tail -n 1 | grep -q 'slurm_ok=true kube_ok=true' || return 1
    ls=$(slurm_limit) lk=$(cq_quota)
    [ -n "$ls" ] && [ -n "$lk" ] && [ "$ls" -ge 0 ] && [ $((ls + lk)) -eq "$Q" ]
}
# await_convergence WHAT: after a fault has ended, waits (up to 90 s) and notes how long it took.
await_convergence() {
    local t0=$SECONDS mark
    mark=$(wc -l <"$work/log")
    wait_for 90 "convergence after $1" bridge_converged "$mark" ||
        fail "no convergence after $1: slurm limit=$(slurm_limit) kube quota=$(cq_quota); $(tail -n 3 "$work/log")"
    note "$1: converged in $((SECONDS - t0)) s (slurm limit $(slurm_limit) + kube quota $(cq_quota) = $Q)"
}

# Stops the player and checks the samples (sets $samples): at least MIN of them, no violation.
bridge_workload_verdict() {
    kill "$player_pid" 2>/dev/null; wait "$player_pid" 2>/dev/null; player_pid=
    samples=$(cat "$work/samples")
    [ "$samples" -ge "$1" ] || fail "too few samples ($samples)"
    [ -s "$work/violations" ] && fail "invariant violated $(wc -l <"$work/violations") times: $(head -n 5 "$work/violations")"
    grep -q 'msg="set GrpTRES"' "$work/log" || fail "the bridge never moved the Slurm limit"
}

# A conflict storm on the group's ClusterQueue for $1 seconds (the player keeps sampling meanwhile),
# by two writers with field manager "rogue" racing each other, the bridge and the player:
#  - one fights the bridge over its fields: it sets every GPU nominalQuota to 0 (a rogue that raised
#    it would break the invariant by itself; lowering is what a confused operator may do safely)
#    and, every other time, strips the managed-by label (the queue must not vanish from the
#    bridge's view: its usage still counts);
#  - one writes an annotation conditional on the resourceVersion it read (409 Conflict whenever
#    anyone wrote in between).
# Tallies go to $work/storm.zero and $work/storm.rv.
storm_fight_fields() {
    local until=$((SECONDS + $1)) n=0 zeroed=0 unlabelled=0 patch
    while [ "$SECONDS" -lt "$until" ]; do
        n=$((n + 1))
        if [ $((n % 2)) -eq 0 ]; then
            kubectl label clusterqueue "fairway-$BT_ACCOUNT" --field-manager=rogue app.kubernetes.io/managed-by- >/dev/null 2>&1 &&
                unlabelled=$((unlabelled + 1))
        else
            patch=$(kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o json 2>/dev/null | jq -c '[.spec.resourceGroups | to_entries[]
                 | .key as $g | .value.flavors | to_entries[] | .key as $f | .value.resources | to_entries[]
                 | select(.value.name == "nvidia.com/gpu" and (.value.nominalQuota | tonumber) != 0)
                 | {op: "replace", path: "/spec/resourceGroups/\($g)/flavors/\($f)/resources/\(.key)/nominalQuota", value: 0}]') &&
            [ "$patch" != "[]" ] &&
            kubectl patch clusterqueue "fairway-$BT_ACCOUNT" --field-manager=rogue --type=json -p "$patch" >/dev/null 2>&1 &&
            zeroed=$((zeroed + 1))
        fi
        echo "tries=$n zeroed=$zeroed unlabelled=$unlabelled" >"$work/storm.zero"
    done
}
storm_conditional_writes() {
    local until=$((SECONDS + $1)) n=0 ok=0 conflicts=0 rv out
    while [ "$SECONDS" -lt "$until" ]; do
        n=$((n + 1))
        rv=$(kubectl get clusterqueue "fairway-$BT_ACCOUNT" -o jsonpath='{.metadata.resourceVersion}' 2>/dev/null) || continue
        if out=$(kubectl patch clusterqueue "fairway-$BT_ACCOUNT" --field-manager=rogue --type=merge \
                -p "{\"metadata\":{\"resourceVersion\":\"$rv\",\"annotations\":{\"fairway.test/storm\":\"$n\"}}}" 2>&1); then
            ok=$((ok + 1))
        else
            case $out in *Conflict* | *"has been modified"*) conflicts=$((conflicts + 1)) ;; esac
        fi
        echo "tries=$n written=$ok conflicts=$conflicts" >"$work/storm.rv"
    done
}
conflict_storm() {
    local zeroer
    storm_fight_fields "$1" & zeroer=$!
    storm_conditional_writes "$1"
    wait "$zeroer"
}

# What the faults cost the bridge: cycles that could not read each side, and the longest cycle.
unreadable_cycles() {
    echo "slurm=$(grep -c 'msg=cycle .*slurm_ok=false' "$work/log") kube=$(grep -c 'msg=cycle .*kube_ok=false' "$work/log")" \
        "longest cycle=$(grep 'msg=cycle ' "$work/log" | sed -n 's/.* ms=\([0-9]*\).*/\1/p' | sort -n | tail -n 1) ms"
}
