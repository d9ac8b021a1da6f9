# libfairway/sim: replaying a workload trace (SWF) under each fair-share policy with the fair-share
# core (fairshare/), EASY backfill on a simulated cluster, and the statistics fairway-sim prints.
libfairway_libfairway_la_SOURCES += \
	libfairway/sim/swf_reader.cpp libfairway/sim/swf_reader.h \
	libfairway/sim/workload.cpp libfairway/sim/workload.h \
	libfairway/sim/cluster.cpp libfairway/sim/cluster.h \
	libfairway/sim/easy_backfill.cpp libfairway/sim/easy_backfill.h \
	libfairway/sim/population.cpp libfairway/sim/population.h \
	libfairway/sim/quantile_sketch.cpp libfairway/sim/quantile_sketch.h \
	libfairway/sim/policy.cpp libfairway/sim/policy.h \
	libfairway/sim/statistics.cpp libfairway/sim/statistics.h \
	libfairway/sim/simulator.cpp libfairway/sim/simulator.h
EXTRA_DIST += libfairway/sim/README.md
tests_unit_fairway_unit_SOURCES += \
	tests/unit/sim/swf_reader_test.cpp \
	tests/unit/sim/easy_backfill_test.cpp \
	tests/unit/sim/quantile_sketch_test.cpp \
	tests/unit/sim/policy_test.cpp \
	tests/unit/sim/statistics_test.cpp \
	tests/unit/sim/simulator_test.cpp tests/unit/sim/sim_fixtures.h
