#!/bin/bash
# Every fuzz target passes its kept crash inputs and survives a short libFuzzer run (clang, ASan +
# UBSan, instrumented yaml-cpp, 1 MiB stacks): 5 targets x FAIRWAY_FUZZ_SECONDS (default 20 s).
. "$FAIRWAY_SRC/tests/lib.sh"
"$FAIRWAY_SRC/tests/fuzz/run" "${FAIRWAY_FUZZ_SECONDS:-20}"
status=$?
[ "$status" = 77 ] && skip "clang's libFuzzer is not available"
[ "$status" = 0 ] || fail "fuzzing found a problem"
