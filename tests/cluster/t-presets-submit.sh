#!/bin/bash
# job_submit/fairway in the real cluster: sbatch --preset applies the preset's partition, GPUs,
# constraint and time (scontrol show job, sacct AdminComment); every merge strategy against what the
# user typed; composition; account defaults; unknown, malformed, untrusted and user presets; edits
# picked up without restarting slurmctld. Jobs are submitted held, so no node is used.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
require_cluster

presets=$CLUSTER_STATE/presets.d
conf_dir=$(dirname "$SLURM_CONF")/fairway
[ -d "$presets" ] || fail "the cluster has no presets directory $presets"
userdir=$(mktemp -d /tmp/t-presets-user.XXXXXX)
chown alice "$userdir"
# The test owns presets.conf while it runs; a harness-provided one is put back afterwards.
saved_conf=""
[ -e "$conf_dir/presets.conf" ] && { saved_conf=$userdir/presets.conf.saved; cp -p "$conf_dir/presets.conf" "$saved_conf"; }
jobs=()
cleanup() {
    [ ${#jobs[@]} -gt 0 ] && scancel "${jobs[@]}" 2>/dev/null
    rm -f "$presets"/t-presets-*.yaml "$conf_dir/presets.conf"
    if [ -n "$saved_conf" ]; then cp -p "$saved_conf" "$conf_dir/presets.conf"; else rmdir "$conf_dir" 2>/dev/null; fi
    rm -rf "$userdir"
}
trap cleanup EXIT

# put_preset FILE TEXT: a root-owned, 0644 preset file in the site directory.
put_preset() { printf '%s\n' "$2" >"$presets/t-presets-$1.yaml"; chmod 0644 "$presets/t-presets-$1.yaml"; }

# submit USER ARGS...: a held job; its id in $job. Fails the test when sbatch refuses.
submit() {
    local user=$1; shift
    job=$(as_user "$user" sbatch --parsable --hold --output=/dev/null "$@" --wrap true 2>&1) ||
        fail "sbatch $* as $user refused: $job"
    jobs+=("$job")
}
# refused USER ARGS...: sbatch must refuse; its messages in $refusal.
refused() {
    local user=$1; shift
    if refusal=$(as_user "$user" sbatch --parsable --hold --output=/dev/null "$@" --wrap true 2>&1); then
        jobs+=("$refusal")
        fail "sbatch $* as $user was accepted (job $refusal)"
    fi
    note "refused as expected: $(printf '%s' "$refusal" | head -n 2 | tr '\n' ' ')"
}
field() { scontrol show job "$1" | grep -oE "(^|[[:space:]])$2=[^[:space:]]*" | head -n 1 | cut -d= -f2-; }
expect_field() {  # expect_field JOB KEY VALUE; scontrol prints an empty value as (null)
    local value; value=$(field "$1" "$2")
    [ "$value" = "(null)" ] && value=""
    expect_eq "$value" "$3" "job $1 $2"
}

ctld_before=$(slurmctld_pid)

put_preset a100 'name: t-presets-a100
description: four A100s on one node for twenty minutes
partition: debug
gpus-per-node: a100:4
constraint: a100
time: 20
requeue: true
signal: USR1@120'

rm -f "$conf_dir/presets.conf"  # settings of our own below; the defaults until then

note "1. a preset's GPUs, partition, constraint and time reach the job and its record"
submit alice --preset=t-presets-a100
expect_field "$job" Partition debug
expect_field "$job" TresPerNode "$(gres_tres gpu:a100:4)"
expect_field "$job" Features a100
expect_field "$job" TimeLimit 00:20:00
expect_field "$job" Requeue 1
expect_field "$job" AdminComment fairway-presets=t-presets-a100
scancel "$job"  # a held job reaches the accounting database once it ends
wait_for 30 "sacct to show the job's AdminComment" \
    sh -c "sacct -n -X -P -j $job -o AdminComment | grep -qx fairway-presets=t-presets-a100" ||
    fail "sacct shows AdminComment '$(sacct -n -X -P -j "$job" -o AdminComment)' for job $job"

note "2. defaults (the preset's own strategy): what the user typed wins, the rest is filled"
submit alice --preset=t-presets-a100 --partition=gpu --time=5 --gpus-per-node=1
expect_field "$job" Partition gpu
expect_field "$job" TimeLimit 00:05:00
expect_field "$job" TresPerNode "$(gres_tres gpu:1)"
expect_field "$job" Features a100

note "3. override: the preset wins over what the user typed"
put_preset strict 'name: t-presets-strict
merge: override
partition: debug
time: 10'
submit alice --preset=t-presets-strict --partition=gpu --time=5 --constraint=h100
expect_field "$job" Partition debug
expect_field "$job" TimeLimit 00:10:00
expect_field "$job" Features h100
note "   ... and a strategy given with the name overrides the preset's own"
submit alice --preset=t-presets-a100:override --partition=gpu --time=5
expect_field "$job" Partition debug
expect_field "$job" TimeLimit 00:20:00

note "4. replace: preset fields the preset leaves out are dropped, whoever set them"
put_preset bare 'name: t-presets-bare
merge: replace
partition: debug'
submit alice --preset=t-presets-bare --partition=gpu --constraint=h100 --gpus-per-node=1
expect_field "$job" Partition debug
expect_field "$job" Features ""
expect_field "$job" TresPerNode ""

note "5. presets compose left to right: a later preset overrides an earlier one"
put_preset long 'name: t-presets-long
time: 25'
submit alice --preset=t-presets-a100,t-presets-long
expect_field "$job" TimeLimit 00:25:00
expect_field "$job" TresPerNode "$(gres_tres gpu:a100:4)"
expect_field "$job" AdminComment fairway-presets=t-presets-a100,t-presets-long

note "6. account defaults apply when a job names no preset, only to that account, whatever the key's case"
mkdir -p "$conf_dir"
# Slurm keeps account names in lowercase; presets.conf may write them as the site likes.
printf 'account_defaults:\n  Biology: t-presets-long\n' >"$conf_dir/presets.conf"
chmod 0644 "$conf_dir/presets.conf"
submit bob
expect_field "$job" TimeLimit 00:25:00
expect_field "$job" AdminComment fairway-presets=t-presets-long
submit bob --preset=t-presets-strict
expect_field "$job" TimeLimit 00:10:00
submit alice
expect_field "$job" AdminComment ""
note "   defaults, not a limit: any --preset (an empty file too) skips them, and scontrol update changes what they set"
printf '# nothing\n' >"$userdir/empty.yaml" && chown bob "$userdir/empty.yaml" && chmod 0755 "$userdir"
submit bob --preset="$userdir/empty.yaml"
expect_field "$job" TimeLimit UNLIMITED   # partition gpu's, not the account default's 25 minutes
expect_field "$job" AdminComment fairway-presets=
submit bob
as_user bob scontrol update JobId="$job" TimeLimit=5 || fail "bob cannot lower the time an account default set"
expect_field "$job" TimeLimit 00:05:00
rm -f "$conf_dir/presets.conf"

note "7. an unknown name is refused with the list and the nearest match"
refused alice --preset=t-presets-a10
expect_match "$refusal" "unknown preset 't-presets-a10'; did you mean 't-presets-a100'\\? available: .*t-presets-a100" "unknown preset message"

note "8. a malformed site file is refused with file:line:key"
put_preset broken 'name: t-presets-broken
partition: debug
gpu: 4'
refused alice --preset=t-presets-a100
expect_match "$refusal" "$presets/t-presets-broken.yaml:3: key 'gpu': unknown key; did you mean 'gpus'" "malformed preset message"
rm -f "$presets/t-presets-broken.yaml"

note "9. a preset file others may write is refused"
chmod 0666 "$presets/t-presets-long.yaml"
refused alice --preset=t-presets-a100
expect_match "$refusal" "t-presets-long.yaml: refused: writable by group or others" "untrusted file message"
chmod 0644 "$presets/t-presets-long.yaml"

note "10. edits apply without restarting slurmctld"
put_preset long 'name: t-presets-long
time: 28'
submit alice --preset=t-presets-long
expect_field "$job" TimeLimit 00:28:00
expect_eq "$(slurmctld_pid)" "$ctld_before" "slurmctld pid (no restart)"

note "   ... and for srun allocations too"
out=$(as_user alice srun --preset=t-presets-long -n1 sh -c 'scontrol show job $SLURM_JOB_ID' 2>&1) || fail "srun --preset failed: $out"
expect_match "$out" "TimeLimit=00:28:00" "srun job time limit"

note "11. a user's own preset file travels with the job; forbidden env names are refused"
printf 'partition: debug\ntime: 7\ngpus: h100:2\n' >"$userdir/mine.yaml"
printf 'env:\n  LD_PRELOAD: /tmp/evil.so\n' >"$userdir/evil.yaml"
chown alice "$userdir"/*.yaml
submit alice --preset="$userdir/mine.yaml"
expect_field "$job" Partition debug
expect_field "$job" TimeLimit 00:07:00
expect_field "$job" TresPerJob "$(gres_tres gpu:h100:2)"
expect_field "$job" AdminComment "fairway-presets=.../mine.yaml"  # the file's name, not its path
refused alice --preset="$userdir/evil.yaml"
expect_match "$refusal" "evil.yaml:2: key 'env.LD_PRELOAD'" "forbidden env message"

note "12. slurmctld survived all of it"
scontrol ping | grep -q 'is UP' || fail "slurmctld is down"
expect_eq "$(slurmctld_pid)" "$ctld_before" "slurmctld pid"
