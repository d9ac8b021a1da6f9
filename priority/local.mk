# priority/fairway: the Slurm priority plugin adapter (22.05 or 24.11) over libfairway/fairshare.
slurmplugin_LTLIBRARIES += priority/priority_fairway.la
priority_priority_fairway_la_SOURCES = \
	priority/slurm_api.h priority/slurm_compat.h \
	priority/plugin.cpp \
	priority/adapter.cpp priority/adapter.h priority/adapter_state.cpp priority/adapter_state.h priority/guarded.h \
	priority/calc_pass.cpp priority/calc_pass.h \
	priority/factors_listing.cpp \
	priority/association_sync.cpp priority/association_sync.h \
	priority/job_charges.cpp priority/job_charges.h \
	priority/limits_usage.cpp priority/limits_usage.h \
	priority/job_prioritizer.cpp priority/job_prioritizer.h priority/list_walk.h \
	priority/periodic_thread.cpp priority/periodic_thread.h \
	priority/settings.cpp priority/settings.h \
	priority/usage_recovery.cpp priority/usage_recovery.h \
	priority/walk_skip.cpp \
	priority/external_usage.cpp priority/external_usage.h \
	priority/slurmctld_symbols.cpp priority/slurmctld_symbols.h
# Slurm's config.h defines PACKAGE_* and VERSION itself; drop configure's copies to avoid redefinitions.
priority_priority_fairway_la_CPPFLAGS = -UPACKAGE_BUGREPORT -UPACKAGE_NAME -UPACKAGE_STRING -UPACKAGE_TARNAME \
	-UPACKAGE_URL -UPACKAGE_VERSION -UVERSION \
	$(AM_CPPFLAGS) -I$(top_srcdir) $(SLURM_CPPFLAGS) $(SLURM_INTERNAL_CPPFLAGS)
priority_priority_fairway_la_CXXFLAGS = $(SLURM_ADAPTER_FLAGS)
# libtool's -export-symbols-regex only trims .symtab for C++ (-retain-symbols-file); the version
# script is what keeps the dynamic symbol table to Slurm's entry points. Keep the two lists in sync.
priority_priority_fairway_la_LDFLAGS = $(PLUGIN_LINK_FLAGS) \
	-Wl,--version-script=$(top_srcdir)/priority/priority_fairway.map \
	-export-symbols-regex '^(plugin_name|plugin_type|plugin_version|init|fini|priority_p_(set|reconfig|set_assoc_usage|calc_fs_factor|get_priority_factors_list|job_end|recover|thread_start))$$'
priority_priority_fairway_la_LIBADD = libfairway/libfairway.la $(YAMLCPP_LIBS) -ldl -lpthread
EXTRA_DIST += priority/README.md priority/priority_fairway.map
EXTRA_priority_priority_fairway_la_DEPENDENCIES = $(top_srcdir)/priority/priority_fairway.map

# Crash-safe state files (owned here, usable by every area).
libfairway_libfairway_la_SOURCES += libfairway/common/atomic_file.cpp libfairway/common/atomic_file.h \
	libfairway/common/file_descriptor.h
tests_unit_fairway_unit_SOURCES += tests/unit/common/atomic_file_test.cpp
