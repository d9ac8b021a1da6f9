#!/bin/bash
# shellcheck disable=SC2034  # the *_required/*_optional lists are read through ${!name}
# Each built plugin exports exactly what Slurm's loader (22.05 and 24.11) looks up: no C++ or
# library symbols leak out of the shared objects (they could clash with slurmctld's own or other
# plugins' symbols), and the yaml-cpp inside the SPANK plugin's YAML module is hardened.
. "$FAIRWAY_SRC/tests/lib.sh"
build=${FAIRWAY_BUILD:?FAIRWAY_BUILD is not set}

common='plugin_name plugin_type plugin_version'
# Symbols each plugin must define (the loader's lists in src/common/slurm_priority.c,
# src/slurmctld/job_submit.c and src/common/plugstack.c; 24.11's src/interfaces/priority.c adds
# priority_p_recover and priority_p_thread_start) and those it may define besides
# (spank_plugin_version comes with spank.h's SPANK_PLUGIN macro).
priority_required="$common init fini priority_p_set priority_p_reconfig priority_p_set_assoc_usage
 priority_p_calc_fs_factor priority_p_get_priority_factors_list priority_p_job_end priority_p_recover
 priority_p_thread_start"
jobsubmit_required="$common init fini job_submit job_modify"
spank_required="$common slurm_spank_init"
# spank_fairway_yaml.so is no Slurm plugin: spank_fairway.so looks up its C interface.
spank_yaml_required="fairway_yaml_client_check fairway_yaml_step_presets fairway_yaml_site fairway_yaml_account_presets"
spank_optional="spank_plugin_version spank_options slurm_spank_job_prolog slurm_spank_init_post_opt slurm_spank_local_user_init
 slurm_spank_user_init slurm_spank_task_init_privileged slurm_spank_task_init slurm_spank_task_post_fork
 slurm_spank_task_exit slurm_spank_job_epilog slurm_spank_slurmd_exit slurm_spank_exit"

words() { tr ' ' '\n' <<<"$*" | grep -v '^$' | sort -u; }

# check_exports SO REQUIRED OPTIONAL: prints what is wrong; true when the exports are exactly right.
check_exports() {
    local so=$1 required optional exported missing extra
    required=$(words "$2") optional=$(words "$2" "$3")
    exported=$(nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u)
    missing=$(comm -23 <(echo "$required") <(echo "$exported"))
    extra=$(comm -13 <(echo "$optional") <(echo "$exported"))
    [ -z "$missing" ] || echo "$so does not export: $(tr '\n' ' ' <<<"$missing")"
    [ -z "$extra" ] || echo "$so exports more than Slurm needs: $(echo "$extra" | head -n 20 | tr '\n' ' ')"
    [ -z "$missing$extra" ]
}

problems=""
while read -r rel required optional; do
    so=$build/$rel
    if [ ! -f "$so" ]; then
        problems+="$so is not built"$'\n'
        continue
    fi
    note "$(nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }' | tr '\n' ' ')"
    problems+=$(check_exports "$so" "${!required}" "${optional:+${!optional}}")$'\n'
done <<EOF
priority/.libs/priority_fairway.so priority_required
jobsubmit/.libs/job_submit_fairway.so jobsubmit_required
spank/.libs/spank_fairway.so spank_required spank_optional
spank/.libs/spank_fairway_yaml.so spank_yaml_required
EOF
# What srun and every slurmstepd load: the SPANK plugin must need no shared libstdc++ and no
# yaml-cpp (loading them cost ~1 ms of CPU per process; spank/README.md). Its YAML module, which
# sbatch and srun load for --preset, neither when configure found a static yaml-cpp.
# check_needs_only_c SO: notes what SO needs; adds to the problems when that is a shared C++ library.
check_needs_only_c() {
    local needed
    needed=$(readelf -d "$1" | awk '/NEEDED/ { print $NF }' | tr -d '[]' | tr '\n' ' ')
    note "$(basename "$1") needs: $needed"
    [[ $needed == *libstdc++* || $needed == *yaml-cpp* || $needed == *libgcc_s* ]] &&
        problems+="$(basename "$1") loads shared C++ libraries: $needed"$'\n'
}
check_needs_only_c "$build/spank/.libs/spank_fairway.so"
static_yaml=$(sed -n 's/^YAMLCPP_STATIC = //p' "$build/Makefile")
note "static yaml-cpp: ${static_yaml:-?}"
[ "$static_yaml" = no ] || check_needs_only_c "$build/spank/.libs/spank_fairway_yaml.so"
# The YAML module parses user text in slurmstepd, whose saved uid is root: the yaml-cpp linked into
# it is compiled with Debian's hardening flags (scripts/yaml-cpp-pic). Checked on the module (stack
# protector called; every yaml-cpp compile unit's recorded flags) and on the archive.
# check_hardened_yaml_cpp SO ARCHIVE
check_hardened_yaml_cpp() {
    local so=$1 archive=$2 units weak protected
    nm -D --undefined-only "$so" | grep -qw __stack_chk_fail ||
        problems+="$(basename "$so") does not reference __stack_chk_fail (no stack protector)"$'\n'
    # DW_AT_producer (the compiler's flags) precedes DW_AT_name in each compile unit.
    units=$(readelf --debug-dump=info --dwarf-depth=1 "$so" 2>/dev/null | awk '
        /DW_AT_producer/ { producer = $0 }
        /DW_AT_name/ && /yaml-cpp[^ ]*\/src\/[a-z_]+\.cpp/ { print (producer ~ /-fstack-protector-strong/ && producer ~ /-fPIC/ ? "hardened" : "weak") " " $NF }')
    weak=$(grep -c '^weak' <<<"$units")
    note "yaml-cpp compile units in $(basename "$so"): $(grep -c '^hardened' <<<"$units") hardened, $weak not"
    [ -n "$units" ] || problems+="$(basename "$so"): no yaml-cpp compile unit found in its debug info"$'\n'
    [ "$weak" = 0 ] || problems+="$(basename "$so"): yaml-cpp units without -fstack-protector-strong -fPIC: $(grep '^weak' <<<"$units" | head -n 3 | tr '\n' ' ')"$'\n'
    protected=$(nm -A "$archive" 2>/dev/null | grep -c ' U __stack_chk_fail$')
    note "$archive: $protected objects call __stack_chk_fail; flags: $(cat "${archive%.a}.flags" 2>/dev/null)"
    [ "$protected" -gt 0 ] || problems+="$archive: no object calls __stack_chk_fail"$'\n'
    grep -q -- '-D_FORTIFY_SOURCE=2' "${archive%.a}.flags" 2>/dev/null ||
        problems+="$archive was not compiled with -D_FORTIFY_SOURCE=2 (stamp ${archive%.a}.flags)"$'\n'
}
[ "$static_yaml" = no ] || check_hardened_yaml_cpp "$build/spank/.libs/spank_fairway_yaml.so" "$static_yaml"
# It lists its libfairway sources one by one (spank/local.mk): a symbol none of them defines would
# only show when Slurm loads it. Unversioned undefined symbols may only be Slurm's own.
strays=$(nm -D --undefined-only "$build/spank/.libs/spank_fairway.so" | awk '$1 == "U" && $2 !~ /@/ { print $2 }' |
    grep -vE '^(slurm|spank)_' | tr '\n' ' ')
[ -z "$strays" ] || problems+="spank_fairway.so needs symbols nothing provides: $strays"$'\n'
problems=$(grep -v '^$' <<<"$problems")
[ -z "$problems" ] || fail "$problems"
