#!/bin/bash
# The presets loader survives a short libFuzzer run (clang, ASan + UBSan); see tests/fuzz/run.
. "$FAIRWAY_SRC/tests/lib.sh"
"$FAIRWAY_SRC/tests/fuzz/run" "${FAIRWAY_FUZZ_SECONDS:-20}"
status=$?
[ "$status" = 77 ] && skip "clang's libFuzzer is not available"
[ "$status" = 0 ] || fail "fuzzing the presets loader found a problem"
