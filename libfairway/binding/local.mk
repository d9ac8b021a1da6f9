# libfairway/binding: per-rank GPU selection, the distributed-training environment and the
# SPANK plugin's settings (see libfairway/binding/README.md).
libfairway_libfairway_la_SOURCES += \
	libfairway/binding/plugin_config.cpp libfairway/binding/plugin_config.h \
	libfairway/binding/text.cpp libfairway/binding/text.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/binding/plugin_config_test.cpp
EXTRA_DIST += libfairway/binding/README.md
