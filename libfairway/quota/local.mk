# libfairway/quota: the shared-quota split protocol and fairway-bridge's configuration schema (pure).
libfairway_libfairway_la_SOURCES += \
	libfairway/quota/bridge_config.cpp libfairway/quota/bridge_config.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/bridge_config_test.cpp
EXTRA_DIST += libfairway/quota/README.md
