# Integration tests, harnesses and benchmarks travel with the distribution; they run
# from scripts/run-tests against real daemons, not from `make check` (they need root).
EXTRA_DIST += tests/lib.sh tests/harness tests/README.md tests/cluster tests/kube tests/bench tests/report tests/build tests/install
EXTRA_DIST += tests/sim
