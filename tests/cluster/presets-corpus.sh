# The hostile preset corpus: user preset files and --preset lists that once made slurmctld expand,
# parse or store far more than a submission should cost, each with what job_submit/fairway must
# answer now. tests/cluster/t-presets-budget.sh submits every entry for correctness (through the
# stock sbatch and through libslurm directly); tests/bench/presets-hostile times them in slurmctld.
# Source after testlib.sh.
#
# corpus_make DIR [SITE_PRESET]: writes the files under DIR and sets
#   CORPUS            the entries' names, plain first
#   CORPUS_LIST[E]    the --preset list ("" for none)
#   CORPUS_FILES[E]   the user files the list names, relative to DIR, space-separated
#   CORPUS_EXPECT[E]  "accept", or an extended regex the refusal must match
# SITE_PRESET (default: t-presets-budget) is a site preset the entries may name; the caller defines it.

corpus_repeat() { local i; for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done; }

corpus_make() {
    local dir=$1 site=${2:-t-presets-budget} long i
    CORPUS=() && declare -gA CORPUS_LIST=() CORPUS_FILES=() CORPUS_EXPECT=()
    add() { CORPUS+=("$1"); CORPUS_LIST[$1]=$2; CORPUS_FILES[$1]=$3; CORPUS_EXPECT[$1]=$4; }
    mkdir -p "$dir"
    add plain "" "" accept
    add site "$site" "" accept

    # Values that are aliases of one 3 KB anchored string: 4 KB of text, 192 KB per merge before.
    { printf 'description: &long "%s"\nenv:\n' "$(corpus_repeat x 3000)"
      for ((i = 0; i < 64; i++)); do printf '  V%d: *long\n' "$i"; done; } >"$dir/alias.yaml"
    add alias "$(corpus_repeat ./alias.yaml, 7)./alias.yaml" alias.yaml "alias.yaml:3: .*aliases"

    # Empty documents at a 3,500-byte path, named several times: a 4 MB AdminComment before.
    long=.
    for ((i = 0; i < 14; i++)); do long+=/$(corpus_repeat d 249)$i; done
    mkdir -p "$dir/$long"
    corpus_repeat $'--- # empty\n' 100 >"$dir/$long/e.yaml"
    add empty-docs "$(corpus_repeat "$long/e.yaml," 3)$long/e.yaml" "$long/e.yaml" \
        "e.yaml:17: .*more than 16 YAML documents \(user preset budget\)"
    # Sixteen named presets there, named once: accepted, and recorded by file name.
    for ((i = 0; i < 16; i++)); do printf -- '---\nname: %s%02d\ntime: 5\n' "$(corpus_repeat n 62)" "$i"; done \
        >"$dir/$long/named.yaml"
    add long-path "$long/named.yaml" "$long/named.yaml" accept
    add named-twice "$site,$site" "" "preset '$site' named twice in one list"
    add too-many "$long/named.yaml,$site" "$long/named.yaml" "more than 16 presets in one submission \(applied presets budget\)"

    # 4 KB of flow list (16 KB cost tens of ms in yaml-cpp before).
    { printf 'env: ['; corpus_repeat a, 2000; printf 'a]\n'; } >"$dir/flow.yaml"
    add flow ./flow.yaml flow.yaml "flow.yaml: .*structural characters.*\(user preset budget\)"
    { printf 'env: ['; corpus_repeat a, 269; printf 'a]\n'; } >"$dir/values.yaml"
    add values ./values.yaml values.yaml "values.yaml:1: .*more than 256 YAML values \(user preset budget\)"
    { corpus_repeat '[' 400; echo; } >"$dir/nested.yaml"
    add nested ./nested.yaml nested.yaml "nested.yaml:1: .*nested more than 16 deep \(user preset budget\)"
    printf 'time: 5\n---\n,\n' >"$dir/comma.yaml"
    add comma ./comma.yaml comma.yaml "comma.yaml:.*more than 16 YAML documents"

    # The largest user preset the defaults accept: 4 KB, 32 variables of 110 bytes.
    { printf 'description: the largest accepted\ntime: 5\nenv:\n'
      for ((i = 0; i < 32; i++)); do printf '  VAR_%03d: "%s"\n' "$i" "$(corpus_repeat v 110)"; done; } >"$dir/max.yaml"
    add max-valid ./max.yaml max.yaml accept
    # and with a site preset before it.
    add max-with-site "$site,./max.yaml" max.yaml accept
}

# corpus_spank_env DIR ENTRY: the spank_job_env entries the SPANK plugin would send for ENTRY, one
# a line (the list, and the files' text encoded as in libfairway/presets/carried.h).
corpus_spank_env() {
    local dir=$1 entry=$2 file encoded=""
    [ -n "${CORPUS_LIST[$entry]}" ] || return 0
    echo "_SLURM_SPANK_OPTION_fairway_preset=${CORPUS_LIST[$entry]}"
    for file in ${CORPUS_FILES[$entry]}; do
        case $file in ./*) ;; *) file=./$file ;; esac
        [ -n "$encoded" ] && encoded+=,
        encoded+=$(printf '%s' "$file" | base64 -w0):$(base64 -w0 <"$dir/$file")
    done
    [ -z "$encoded" ] || echo "FAIRWAY_USER_PRESETS=$encoded"
}

# raw_submitter_setup NAME: what a test of the raw path needs, removed at exit: $work, a temporary
# folder alice owns with raw-submit built in it; the site preset NAME (a time limit of 11 minutes)
# in $presets; jobs=(), the jobs to cancel; and $ctld, slurmctld's pid. Skips without gcc.
raw_submitter_setup() {
    command -v gcc >/dev/null || skip "gcc is needed to build the raw submitter"
    work=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 0755 "$work"
    presets=$CLUSTER_STATE/presets.d
    site_preset=$presets/$1.yaml
    jobs=()
    trap raw_submitter_cleanup EXIT
    printf 'name: %s\ntime: 11\n' "$1" >"$site_preset"
    chmod 0644 "$site_preset"
    raw_submitter_build "$work" || fail "cannot build the raw submitter"
    chown -R alice "$work"
    ctld=$(slurmctld_pid)
}
raw_submitter_cleanup() {
    [ ${#jobs[@]} -gt 0 ] && scancel "${jobs[@]}" 2>/dev/null
    rm -f "$site_preset"
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}

# raw_submitter_build DIR: DIR/raw-submit, a held batch job submitted through libslurm with the
# spank_job_env entries given as arguments (no SPANK plugin on the way); with RAW_OUTPUT=FILE in
# its environment the job runs instead and writes its environment to FILE. Prints the job id, or
# "refused: <Slurm's message>" and exits 1.
raw_submitter_build() {
    cat >"$1/raw-submit.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
int main(int argc, char **argv) {
    job_desc_msg_t desc;
    submit_response_msg_t *resp = NULL;
    char *env[] = {"PATH=/usr/bin:/bin", "SLURM_SPANK_FAIRWAY_APPLIED_PRESETS=forged", NULL};
    slurm_init(NULL); /* required before any Slurm API call since 23.02 */
    slurm_init_job_desc_msg(&desc);
    desc.name = "raw-submit";
    desc.script = "#!/bin/sh\ntrue\n";
    desc.user_id = getuid();
    desc.group_id = getgid();
    desc.work_dir = "/tmp";
    desc.std_out = "/dev/null";
    desc.priority = 0; /* held */
    if (getenv("RAW_OUTPUT")) {
        desc.priority = NO_VAL;
        desc.std_out = getenv("RAW_OUTPUT");
        desc.script = "#!/bin/sh\nenv\n";
    }
    desc.environment = env;
    desc.env_size = 2;
    desc.spank_job_env = argv + 1;
    desc.spank_job_env_size = argc - 1;
    if (slurm_submit_batch_job(&desc, &resp) != SLURM_SUCCESS) {
        printf("refused: %s\n", slurm_strerror(errno));
        return 1;
    }
    printf("%u\n", resp->job_id);
    return 0;
}
C
    # shellcheck disable=SC2086  # SLURM_PROGRAM_FLAGS: several words (testlib.sh)
    gcc $SLURM_PROGRAM_FLAGS -o "$1/raw-submit" "$1/raw-submit.c" -lslurm
}
