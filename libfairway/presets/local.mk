# libfairway/presets: preset schema, loading, merging, resolving (see libfairway/presets/README.md).
libfairway_libfairway_la_SOURCES += \
	libfairway/presets/presets.h \
	libfairway/presets/job_request.cpp libfairway/presets/job_request.h libfairway/presets/field_visit.h \
	libfairway/presets/preset.cpp libfairway/presets/preset.h \
	libfairway/presets/env_policy.cpp libfairway/presets/env_policy.h \
	libfairway/presets/values.cpp libfairway/presets/values.h \
	libfairway/presets/reference.cpp libfairway/presets/reference.h \
	libfairway/presets/utf8.cpp libfairway/presets/utf8.h \
	libfairway/presets/signal_names.cpp libfairway/presets/signal_names.h \
	libfairway/presets/trusted_file.cpp libfairway/presets/trusted_file.h \
	libfairway/presets/loader.cpp libfairway/presets/loader.h \
	libfairway/presets/text_guard.cpp libfairway/presets/text_guard.h \
	libfairway/presets/yaml_tree.cpp libfairway/presets/yaml_tree.h \
	libfairway/presets/site.cpp \
	libfairway/presets/resolver.cpp libfairway/presets/resolver.h \
	libfairway/presets/carried.cpp libfairway/presets/carried.h \
	libfairway/presets/site_cache.cpp libfairway/presets/site_cache.h \
	libfairway/presets/directory_watch.cpp libfairway/presets/directory_watch.h
EXTRA_DIST += libfairway/presets/README.md
tests_unit_fairway_unit_SOURCES += \
	tests/unit/presets/merge_test.cpp tests/unit/presets/values_test.cpp \
	tests/unit/presets/loader_test.cpp tests/unit/presets/resolver_test.cpp \
	tests/unit/presets/carried_test.cpp tests/unit/presets/site_test.cpp \
	tests/unit/presets/submission_test.cpp tests/unit/presets/trusted_file_test.cpp \
	tests/unit/presets/reference_test.cpp tests/unit/presets/budget_test.cpp
libfairway_libfairway_la_SOURCES += \
	libfairway/presets/plugstack.cpp \
	libfairway/presets/slurm_tres.cpp libfairway/presets/slurm_tres.h \
	libfairway/presets/submission.cpp libfairway/presets/submission.h
# The presets loader's fuzz target is built by tests/fuzz/run (clang), not by automake.
EXTRA_DIST += tests/fuzz

# The core's CPU per submission for tests/bench/presets-hostile; built on request only
# (`make tests/bench/presets-core`).
EXTRA_PROGRAMS += tests/bench/presets-core
tests_bench_presets_core_SOURCES = tests/bench/presets_core.cpp
tests_bench_presets_core_LDADD = libfairway/libfairway.la $(YAMLCPP_LIBS)
CLEANFILES += tests/bench/presets-core
