# Helpers for the SPANK plugin's cluster tests (t-spank-*.sh); source after testlib.sh.
# Each test owns the plugstack.conf line while it runs (slurmstepd and the clients re-read it for
# every step and command) and puts back the harness's line when it exits, together with its presets
# and the site's presets.conf as it was.

SPANK_SO=$CLUSTER_STATE/plugins/spank_fairway.so
SPANK_PLUGSTACK=$CLUSTER_STATE/etc/plugstack.conf
SPANK_PRESETS_DIR=$CLUSTER_STATE/presets.d
SPANK_TMP=""
SPANK_PRESET_FILES=()
SPANK_CONF=$(dirname "$SLURM_CONF")/fairway/presets.conf   # the site's, as the plugin finds it
SPANK_CONF_SAVED=""   # from spank_setup on: "none", or a copy of the one there before

spank_restore_conf() {
    case $SPANK_CONF_SAVED in
        "") ;;
        none) rm -f "$SPANK_CONF"; rmdir "$(dirname "$SPANK_CONF")" 2>/dev/null ;;
        *) cp -p "$SPANK_CONF_SAVED" "$SPANK_CONF" ;;
    esac
}

spank_cleanup() {
    [ -f "$SPANK_TMP/plugstack.conf.saved" ] && cp "$SPANK_TMP/plugstack.conf.saved" "$SPANK_PLUGSTACK"
    spank_restore_conf
    [ "${#SPANK_PRESET_FILES[@]}" -gt 0 ] && rm -f "${SPANK_PRESET_FILES[@]}"
    [ -n "$SPANK_TMP" ] && rm -rf "$SPANK_TMP"
}

# spank_setup [PLUGIN_ARG...]: loads the plugin as `required` (so its errors stop commands and
# steps, as a site would configure it) with the cluster's presets directory and the given arguments.
spank_setup() {
    require_cluster
    [ -r "$SPANK_SO" ] || fail "$SPANK_SO is missing: build spank/spank_fairway.la and rerun tests/cluster/cluster start"
    SPANK_TMP=$(mktemp -d /tmp/t-spank.XXXXXX) && chmod 0755 "$SPANK_TMP" || fail "mktemp failed"
    trap spank_cleanup EXIT
    trap 'exit 143' TERM INT   # so that the EXIT trap restores plugstack.conf when the runner times out
    cp "$SPANK_PLUGSTACK" "$SPANK_TMP/plugstack.conf.saved" || fail "cannot save $SPANK_PLUGSTACK"
    # Saved here, not where a test first changes it: that may be a subshell (a pipeline).
    SPANK_CONF_SAVED=none
    if [ -e "$SPANK_CONF" ]; then SPANK_CONF_SAVED=$SPANK_TMP/presets.conf.saved; cp -p "$SPANK_CONF" "$SPANK_CONF_SAVED"; fi
    echo "required $SPANK_SO presets_dir=$SPANK_PRESETS_DIR $*" >"$SPANK_PLUGSTACK.tmp" &&
        mv -f "$SPANK_PLUGSTACK.tmp" "$SPANK_PLUGSTACK" || fail "cannot write $SPANK_PLUGSTACK"
}

# spank_presets_conf < TEXT: the site's presets.conf (root-owned, 0644, as the loader demands)
# until spank_cleanup puts back the one before. spank_no_presets_conf: none until then.
spank_presets_conf() {
    mkdir -p "$(dirname "$SPANK_CONF")" && chmod 0755 "$(dirname "$SPANK_CONF")" && cat >"$SPANK_CONF.tmp" &&
        chmod 0644 "$SPANK_CONF.tmp" && mv -f "$SPANK_CONF.tmp" "$SPANK_CONF" || fail "cannot write $SPANK_CONF"
}
spank_no_presets_conf() { rm -f "$SPANK_CONF"; }

# spank_preset NAME < YAML: a site preset NAME (root-owned, 0644, as the loader demands).
spank_preset() {
    local file=$SPANK_PRESETS_DIR/$1.yaml
    { echo "name: $1"; cat; } >"$file.tmp" && chmod 0644 "$file.tmp" && mv -f "$file.tmp" "$file" ||
        fail "cannot write $file"
    SPANK_PRESET_FILES+=("$file")
}

# rank_field LINES RANK KEY: the value of KEY=... on the output line of global rank RANK.
rank_field() {
    printf '%s\n' "$1" | awk -v rank="$2" -v key="$3" '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = substr($i, length(kv[1]) + 2) }
          if (f["RANK"] == rank) print f[key]; delete f }'
}
