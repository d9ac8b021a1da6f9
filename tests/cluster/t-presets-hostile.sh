#!/bin/bash
# slurmctld never trusts what travels with a job: a client that bypasses the SPANK plugin (libslurm
# directly) puts hostile preset names and user-preset text into spank_job_env; job_submit/fairway
# must reject each with a clear message, quickly, and slurmctld must stay up (same pid).
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/presets-corpus.sh"
require_cluster
raw_submitter_setup t-presets-hostile
raw() { as_user alice "$work/raw-submit" "$@" 2>&1; }

opt=_SLURM_SPANK_OPTION_fairway_preset
note "the raw path works: a site preset named in spank_job_env applies"
out=$(raw _SLURM_SPANK_OPTION_fairway_preset=t-presets-hostile) || fail "raw submission refused: $out"
jobs+=("$out")
expect_eq "$(scontrol show job "$out" | grep -oE 'TimeLimit=[^ ]+')" "TimeLimit=00:11:00" "raw job time limit"
expect_match "$(scontrol show job "$out")" "AdminComment=fairway-presets=t-presets-hostile" "raw job record"

note "a client cannot claim what was applied: FAIRWAY_APPLIED_PRESETS is job_submit's alone"
out=$(RAW_OUTPUT=$work/forged.out raw FAIRWAY_APPLIED_PRESETS=forged) || fail "raw submission refused: $out"
jobs+=("$out")
out2=$(RAW_OUTPUT=$work/applied.out raw FAIRWAY_APPLIED_PRESETS=forged "$opt=t-presets-hostile") || fail "raw submission refused: $out2"
jobs+=("$out2")
wait_for 60 "the two jobs to finish" sh -c "grep -q PATH= '$work/forged.out' && grep -q PATH= '$work/applied.out'" ||
    fail "jobs $out $out2 did not run: $(squeue -h -j "$out,$out2" -o '%i %T %r' | tr '\n' ' ')"
# (empty: job_submit applied nothing, so the steps need not look for account defaults)
expect_eq "$(grep FAIRWAY_APPLIED_PRESETS "$work/forged.out")" "SLURM_SPANK_FAIRWAY_APPLIED_PRESETS=" "forged value without presets"
expect_match "$(grep FAIRWAY_APPLIED_PRESETS "$work/applied.out")" "^SLURM_SPANK_FAIRWAY_APPLIED_PRESETS=t-presets-hostile$" "applied presets in the job"

b64() { printf '%s' "$1" | base64 -w0; }
long=$(head -c 40000 /dev/zero | tr '\0' 'a')
# refuse WHAT ENTRY...: the submission must be refused with a fairway message matching WHAT.
refuse() {
    local what=$1; shift
    local start=$SECONDS out
    if out=$(raw "$@"); then jobs+=("$out"); fail "accepted ($*): job $out"; fi
    expect_match "$out" "fairway: .*$what" "refusal of $*"
    [ $((SECONDS - start)) -lt 10 ] || fail "refusing took $((SECONDS - start))s"
    note "refused: $(printf '%s' "$out" | head -n 1)"
}
opt=_SLURM_SPANK_OPTION_fairway_preset
refuse "unknown preset" "$opt=nope"
refuse "invalid preset" "$opt=bad name"
refuse "more than 16" "$opt=$(printf 'a,%.0s' {1..20})a"
refuse "was not carried" "$opt=./x.yaml"
refuse "key 'FAIRWAY_USER_PRESETS': malformed" "$opt=./x.yaml" "FAIRWAY_USER_PRESETS=%%%"
refuse "exceed the limit" "$opt=./x.yaml" "FAIRWAY_USER_PRESETS=$(b64 ./x.yaml):$(b64 "$long")"
refuse "YAML documents" "$opt=./x.yaml" "FAIRWAY_USER_PRESETS=$(b64 ./x.yaml):$(b64 ',')"
refuse "control character" "$opt=./x.yaml" "FAIRWAY_USER_PRESETS=$(b64 ./x.yaml):$(printf 'a\001b' | base64 -w0)"
refuse "structural characters" "$opt=./x.yaml" "FAIRWAY_USER_PRESETS=$(b64 ./x.yaml):$(b64 "$(head -c 3000 /dev/zero | tr '\0' '[')")"
refuse "not valid YAML" "$opt=./x.yaml" "FAIRWAY_USER_PRESETS=$(b64 ./x.yaml):$(b64 'time: [')"
refuse "env.SLURM_CONF" "$opt=./x.yaml" "FAIRWAY_USER_PRESETS=$(b64 ./x.yaml):$(b64 $'env:\n  SLURM_CONF: /tmp/x')"

# Every preset name and path becomes part of job_submit's record: AdminComment (entries joined by
# "; ", `sacct -P` fields by '|'), FAIRWAY_APPLIED_PRESETS and slurmctld's log. A path that holds a
# separator or a line break would forge a second record and a log line of its own, so the client and,
# for a client that skips the SPANK plugin, slurmctld refuse it. At verbose level slurmctld logs
# what job_submit applied and refused: the log must still hold no line of the user's making.
note "a preset path cannot forge the record of applied presets"
log=$CLUSTER_STATE/log/slurmctld.log
last_job=${jobs[-1]}
log_from=$(($(stat -c %s "$log") + 1))
debug_before=$(scontrol show config | awk '$1 == "SlurmctldDebug" { print $3 }')
trap 'raw_submitter_cleanup; scontrol setdebug "${debug_before:-info}"' EXIT
scontrol setdebug verbose
forged=$'./x; fairway-presets=a100-train\nFAKE LOG LINE/y.yaml'
as_user alice mkdir -p "$work/${forged%/*}"
printf 'time: 7\n' | as_user alice tee "$work/$forged" >/dev/null
# The stock client: sbatch refuses before anything reaches slurmctld.
if out=$(as_user alice sh -c 'cd "$1" && shift && exec "$@"' sh "$work" \
    sbatch --hold -o /dev/null --preset="$forged" --wrap true 2>&1); then
    jobs+=("${out##* }")
    fail "sbatch accepted the path: $out; $(scontrol show job "${out##* }" | grep -A1 AdminComment)"
fi
expect_match "$out" "sbatch: error: fairway: .*invalid preset path '\./x; fairway-presets=a100-train.nFAKE LOG LINE/y\.yaml': separator ';' at position 4" "sbatch's refusal"
note "sbatch: $(printf '%s' "$out" | head -n 1)"
# A client that skips the plugin, with the file's text carried as the plugin would carry it.
refuse "invalid preset path .*separator ';' at position 4" "$opt=$forged" "FAIRWAY_USER_PRESETS=$(b64 "$forged"):$(b64 'time: 7')"
refuse "control character '.n' at position 4" "$opt=./a"$'\n'"FAKE LOG LINE/y.yaml"
refuse "separator '[|]' at position 4" "$opt=./a|b/y.yaml" "FAIRWAY_USER_PRESETS=$(b64 './a|b/y.yaml'):$(b64 'time: 7')"
# A carried file nobody names: its path would still appear in the parse error.
refuse "key 'FAIRWAY_USER_PRESETS': .*control character '.n' at position 4" "$opt=./y.yaml" \
    "FAIRWAY_USER_PRESETS=$(b64 ./y.yaml):$(b64 'time: 7'),$(b64 $'./z\nFAKE LOG LINE'):$(b64 'time: [')"
wait_for 30 "slurmctld to log the refusals" sh -c "tail -c +$log_from '$log' | grep -q 'rejected: .*position 4'" ||
    fail "no refusal in slurmctld's log"
forged_lines=$(tail -c +"$log_from" "$log" | grep -v '^\[' || true)
[ -z "$forged_lines" ] || fail "slurmctld's log has lines not its own: $forged_lines"
# Every job submitted since, held and finished ones included (a refused job is none of them). A
# forged record would span lines: those belong to the JobId= line above them.
records=$(scontrol -o show job | awk -v last="$last_job" '/^JobId=/ { id = substr($1, 7) + 0 } id > last')
if printf '%s\n' "$records" | grep -q FAKE; then fail "a job's record carries the forged text: $records"; fi

scontrol ping | grep -q 'is UP' || fail "slurmctld is down"
expect_eq "$(slurmctld_pid)" "$ctld" "slurmctld pid"
