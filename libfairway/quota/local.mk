# libfairway/quota: the shared-quota split protocol and fairway-bridge's configuration schema (pure).
libfairway_libfairway_la_SOURCES += \
	libfairway/quota/bridge_config.cpp libfairway/quota/bridge_config.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/bridge_config_test.cpp
EXTRA_DIST += libfairway/quota/README.md
libfairway_libfairway_la_SOURCES += \
	libfairway/quota/quota_split.cpp libfairway/quota/quota_split.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/quota_split_exploration_test.cpp
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/quota_split_test.cpp
libfairway_libfairway_la_SOURCES += \
	libfairway/quota/mirror.cpp libfairway/quota/mirror.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/mirror_test.cpp
libfairway_libfairway_la_SOURCES += \
	libfairway/quota/leader_lease.cpp libfairway/quota/leader_lease.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/leader_lease_test.cpp
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/leader_election_config_test.cpp
libfairway_libfairway_la_SOURCES += \
	libfairway/quota/usage_meter.cpp libfairway/quota/usage_meter.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/usage_meter_test.cpp
libfairway_libfairway_la_SOURCES += \
	libfairway/quota/standing.cpp libfairway/quota/standing.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/quota/standing_test.cpp
