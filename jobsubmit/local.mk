# jobsubmit: job_submit_fairway.so, the slurmctld side of presets (see jobsubmit/README.md).
slurmplugin_LTLIBRARIES += jobsubmit/job_submit_fairway.la
jobsubmit_job_submit_fairway_la_SOURCES = jobsubmit/job_submit_fairway.cpp \
	jobsubmit/job_desc_io.cpp jobsubmit/job_desc_io.h jobsubmit/slurm_compat.h
jobsubmit_job_submit_fairway_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_INTERNAL_CPPFLAGS) $(YAMLCPP_CFLAGS)
jobsubmit_job_submit_fairway_la_CXXFLAGS = $(SLURM_ADAPTER_FLAGS)
jobsubmit_job_submit_fairway_la_LIBADD = libfairway/libfairway.la $(YAMLCPP_LIBS)
# libtool's -export-symbols-regex only trims the static symbol table on GNU ld; the version
# script is what limits the dynamic exports.
jobsubmit_job_submit_fairway_la_LDFLAGS = $(PLUGIN_LINK_FLAGS) \
	-export-symbols-regex '^(plugin_name|plugin_type|plugin_version|init|fini|job_submit|job_modify)$$' \
	-Wl,--version-script=$(srcdir)/jobsubmit/job_submit_fairway.map
EXTRA_jobsubmit_job_submit_fairway_la_DEPENDENCIES = jobsubmit/job_submit_fairway.map
EXTRA_DIST += jobsubmit/job_submit_fairway.map jobsubmit/README.md
