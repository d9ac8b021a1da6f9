# tools: fairway-report, the offline/live fair-share report over the shared core (libfairway/fairshare).
# The report's Slurm-free logic is a convenience library so the unit tests can link it.
noinst_LTLIBRARIES += tools/libfairway-report.la
tools_libfairway_report_la_SOURCES = \
	tools/report/json_stream.cpp tools/report/json_stream.h \
	tools/report/offline_input.cpp tools/report/offline_input.h \
	tools/report/report_model.cpp tools/report/report_model.h \
	tools/report/sshare_format.cpp tools/report/sshare_format.h \
	tools/report/cli_options.cpp tools/report/cli_options.h \
	tools/report/explain.cpp tools/report/explain.h \
	tools/report/svg_plot.cpp tools/report/svg_plot.h tools/report/svg_text.h \
	tools/report/commands.cpp tools/report/commands.h \
	tools/report/tool_main.cpp tools/report/tool_main.h \
	tools/report/child_process.cpp tools/report/child_process.h \
	tools/report/kube_usage.cpp tools/report/kube_usage.h
tools_libfairway_report_la_CPPFLAGS = $(AM_CPPFLAGS) $(NLOHMANN_JSON_CFLAGS)

# The live reader: the only part that talks to Slurm (libslurm/libslurmdb, public headers only),
# shared by fairway-report (usage) and fairway-sim (a site's jobs as a trace).
noinst_LTLIBRARIES += tools/libfairway-live.la
tools_libfairway_live_la_SOURCES = tools/report/live_source.cpp tools/report/live_source.h tools/report/slurm_compat.h \
	tools/report/controller_view.cpp tools/report/controller_view.h
tools_libfairway_live_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(SLURM_CPPFLAGS) $(NLOHMANN_JSON_CFLAGS)

bin_PROGRAMS += tools/fairway-report
tools_fairway_report_SOURCES = tools/fairway-report.cpp
tools_fairway_report_CPPFLAGS = $(AM_CPPFLAGS) $(NLOHMANN_JSON_CFLAGS)
tools_fairway_report_LDADD = tools/libfairway-live.la tools/libfairway-report.la libfairway/libfairway.la \
	$(SLURM_LIBS) $(YAMLCPP_LIBS)

tests_unit_fairway_unit_SOURCES += tests/unit/report/iso8601_test.cpp tests/unit/report/report_test.cpp
# The report library needs the core, so the core (and what it needs) is named again after it.
tests_unit_fairway_unit_LDADD += tools/libfairway-report.la libfairway/libfairway.la $(YAMLCPP_LIBS)
EXTRA_DIST += tools/README.md tools/examples/demo-input.json tools/examples/demo.svg tools/examples/sim-small.svg
