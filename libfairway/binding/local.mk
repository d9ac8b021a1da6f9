# libfairway/binding: per-rank GPU selection, the distributed-training environment and the
# SPANK plugin's settings (see libfairway/binding/README.md).
libfairway_libfairway_la_SOURCES += \
	libfairway/binding/gpu_policy.cpp libfairway/binding/gpu_policy.h \
	libfairway/binding/hostlist.cpp libfairway/binding/hostlist.h \
	libfairway/binding/plugin_config.cpp libfairway/binding/plugin_config.h \
	libfairway/binding/step_presets.cpp libfairway/binding/step_presets.h \
	libfairway/binding/step_settings.cpp libfairway/binding/step_settings.h \
	libfairway/binding/sysfs_topology.cpp libfairway/binding/sysfs_topology.h \
	libfairway/binding/text.cpp libfairway/binding/text.h \
	libfairway/binding/site_access.cpp libfairway/binding/site_access.h \
	libfairway/binding/training_env.cpp libfairway/binding/training_env.h
tests_unit_fairway_unit_SOURCES += \
	tests/unit/binding/gpu_policy_test.cpp \
	tests/unit/binding/hostlist_test.cpp \
	tests/unit/binding/plugin_config_test.cpp \
	tests/unit/binding/site_access_test.cpp \
	tests/unit/binding/step_presets_test.cpp \
	tests/unit/binding/sysfs_topology_test.cpp \
	tests/unit/binding/training_env_test.cpp
EXTRA_DIST += libfairway/binding/README.md
