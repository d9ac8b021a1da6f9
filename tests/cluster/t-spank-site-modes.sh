#!/bin/bash
# A presets.conf, presets directory or preset file whose mode hides it from users (0600, 0700) is
# refused by name, in slurmstepd as on the client. slurmstepd runs user_init with the job user's effective uid
# (its real uid is root's), as sbatch and srun run as the user: a bare EACCES there would fail every
# step that looks up its account's defaults, with no word about the mode. The plugin's own
# presets.conf (presets_conf=) keeps job_submit/fairway in slurmctld out of it; a --preset is only
# tried where the client refuses it, since slurmctld would look it up in the cluster's presets.
. "$FAIRWAY_SRC/tests/lib.sh"
. "$FAIRWAY_SRC/tests/cluster/testlib.sh"
. "$FAIRWAY_SRC/tests/cluster/spank-lib.sh"

SITE=$(mktemp -d /tmp/t-spank-modes.XXXXXX) && chmod 0755 "$SITE" || fail "mktemp failed"
CONF=$SITE/presets.conf DIR=$SITE/presets.d
spank_setup presets_conf="$CONF"
trap 'spank_cleanup; rm -rf "$SITE"' EXIT
mkdir -m 0755 "$DIR" && printf 'name: tspank-mode\nenv: {TSPANK_MODE: applied}\n' >"$DIR/tspank-mode.yaml" &&
    chmod 0644 "$DIR/tspank-mode.yaml" || fail "cannot write $DIR"
printf 'presets_dir: %s\naccount_defaults:\n  physics: tspank-mode\n' "$DIR" >"$CONF" && chmod 0644 "$CONF" ||
    fail "cannot write $CONF"
wait_idle 60

# run_step [SRUN_OPTION...]: alice's (account physics) one-task step, stdout and stderr.
run_step() { as_user alice timeout 60 srun -N1 -n1 "$@" bash -c 'echo "TASK-RAN ${TSPANK_MODE-unset}"' 2>&1; }

# expect_refused WHAT OUTPUT STATUS REGEX: the command failed with the message, and no task ran.
expect_refused() {
    note "$1: exit $3: $2"
    [ "$3" -ne 0 ] || fail "$1 exited 0"
    expect_match "$2" "$4" "$1"
    printf '%s\n' "$2" | grep -q TASK-RAN && fail "$1: a task ran"
    return 0
}

out=$(run_step) || fail "srun with readable site files failed: $out"
expect_match "$out" "TASK-RAN applied" "the account default with modes 0644/0755"

chmod 0600 "$CONF"
out=$(run_step)
expect_refused "presets.conf 0600, a step that looks up its account's default" "$out" $? \
    "$CONF: refused: mode 0600 .*chmod a\+r $CONF"
out=$(as_user alice timeout 60 sbatch --preset=tspank-mode --wrap true 2>&1)
expect_refused "presets.conf 0600, sbatch --preset" "$out" $? "$CONF: refused: mode 0600"
chmod 0644 "$CONF"

chmod 0700 "$DIR"
out=$(run_step)
expect_refused "presets directory 0700, a step that resolves its account's default" "$out" $? \
    "$DIR: refused: mode 0700 .*chmod a\+rx $DIR"
out=$(run_step --preset=tspank-mode)
expect_refused "presets directory 0700, srun --preset" "$out" $? "$DIR: refused: mode 0700"
chmod 0755 "$DIR"

chmod 0600 "$DIR/tspank-mode.yaml"
out=$(run_step)
expect_refused "a preset file 0600, a step that resolves its account's default" "$out" $? \
    "$DIR/tspank-mode.yaml: refused: mode 0600 .*chmod a\+r $DIR/tspank-mode.yaml"
chmod 0644 "$DIR/tspank-mode.yaml"

# (--preset would reach job_submit/fairway, which knows the cluster's presets, not these.)
out=$(run_step) || fail "srun after the modes were mended failed: $out"
expect_match "$out" "TASK-RAN applied" "the account default with modes 0644/0755 again"
exit 0
