# libfairway/sim: replaying a workload trace (SWF) under each fair-share policy with the fair-share
# core (fairshare/).
libfairway_libfairway_la_SOURCES += \
	libfairway/sim/swf_reader.cpp libfairway/sim/swf_reader.h \
	libfairway/sim/workload.cpp libfairway/sim/workload.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/sim/swf_reader_test.cpp
