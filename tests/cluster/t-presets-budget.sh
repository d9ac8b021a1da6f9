#!/bin/bash
# What one submission may make slurmctld do and keep: the hostile preset corpus
# (tests/cluster/presets-corpus.sh: aliases, empty documents at a long path, a file named many
# times, flow lists, deep nesting, the largest accepted preset...) through the stock sbatch and
# through libslurm directly (no SPANK plugin on the way). Each entry is refused with the budget,
# file and line it broke, or accepted with a record and environment within their documented
# bounds (AdminComment entry <= 1,903 bytes, the applied list <= 1,887). slurmctld stays up.
# Not timed: tests/bench/presets-hostile measures what each costs.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/presets-corpus.sh"
require_cluster
raw_submitter_setup t-presets-budget
corpus_make "$work/corpus"
chown -R alice "$work"
max_record=1903 max_list=1887

# check_accepted ENTRY JOB HOW: the job's record is within its bound and names what was applied.
check_accepted() {
    local comment
    comment=$(scontrol show job "$2" | grep -oE 'AdminComment=[^ ]*' | cut -d= -f2-)
    if [ -n "${CORPUS_LIST[$1]}" ]; then
        expect_match "$comment" '^fairway-presets=' "$1 ($3): the record"
    fi
    [ ${#comment} -le $max_record ] || fail "$1 ($3): AdminComment of ${#comment} bytes: ${comment:0:200}..."
    note "$1 ($3): job $2, AdminComment ${#comment} bytes"
}

# check_refused ENTRY OUTPUT HOW
check_refused() {
    expect_match "$2" "fairway: .*${CORPUS_EXPECT[$1]}" "$1 ($3): the refusal"
    note "$1 ($3): $(printf '%s' "$2" | head -n 1 | cut -c1-240)"
}

for entry in "${CORPUS[@]}"; do
    mapfile -t env < <(corpus_spank_env "$work/corpus" "$entry")
    if out=$(as_user alice "$work/raw-submit" "${env[@]}" 2>&1); then
        jobs+=("$out")
        [ "${CORPUS_EXPECT[$entry]}" = accept ] || fail "$entry (libslurm): accepted as job $out"
        check_accepted "$entry" "$out" libslurm
    else
        [ "${CORPUS_EXPECT[$entry]}" != accept ] || fail "$entry (libslurm): refused: $out"
        check_refused "$entry" "$out" libslurm
    fi

    args=()
    [ -n "${CORPUS_LIST[$entry]}" ] && args=(--preset="${CORPUS_LIST[$entry]}")
    if out=$(as_user alice sh -c 'cd "$1" && shift && exec "$@"' sh "$work/corpus" \
        sbatch --parsable --hold -o /dev/null "${args[@]}" --wrap true 2>&1); then
        jobs+=("$out")
        [ "${CORPUS_EXPECT[$entry]}" = accept ] || fail "$entry (sbatch): accepted as job $out"
        check_accepted "$entry" "$out" sbatch
    else
        [ "${CORPUS_EXPECT[$entry]}" != accept ] || fail "$entry (sbatch): refused: $out"
        check_refused "$entry" "$out" sbatch
    fi
done

note "the record names files, not paths, and the job's copy of it is as short"
mapfile -t env < <(corpus_spank_env "$work/corpus" long-path)
job=$(RAW_OUTPUT=$work/long-path.out as_user alice "$work/raw-submit" "${env[@]}") || fail "long-path refused: $job"
jobs+=("$job")
wait_for 60 "job $job to write its environment" grep -q PATH= "$work/long-path.out" ||
    fail "job $job did not run: $(squeue -h -j "$job" -o '%T %r')"
applied=$(grep '^SLURM_SPANK_FAIRWAY_APPLIED_PRESETS=' "$work/long-path.out" | cut -d= -f2-)
expect_match "$applied" '^\.\.\./named\.yaml#n{62}00,' "the applied list in the job's environment"
[ ${#applied} -le $max_list ] || fail "the applied list is ${#applied} bytes"
while IFS= read -r line; do
    [ ${#line} -le 65536 ] || fail "an environment entry of ${#line} bytes: ${line:0:80}..."
done <"$work/long-path.out"

scontrol ping | grep -q 'is UP' || fail "slurmctld is down"
expect_eq "$(slurmctld_pid)" "$ctld" "slurmctld pid"
