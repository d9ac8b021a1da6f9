libfairway_libfairway_la_SOURCES += \
	libfairway/common/error.cpp libfairway/common/error.h \
	libfairway/common/slurm_time.cpp libfairway/common/slurm_time.h
tests_unit_fairway_unit_SOURCES += tests/unit/common/slurm_time_test.cpp
libfairway_libfairway_la_SOURCES += libfairway/common/iso8601.cpp libfairway/common/iso8601.h
libfairway_libfairway_la_SOURCES += libfairway/common/pointer_table.h
tests_unit_fairway_unit_SOURCES += tests/unit/common/pointer_table_test.cpp
