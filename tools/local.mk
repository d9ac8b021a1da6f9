# tools: fairway-report, the offline/live fair-share report over the shared core (libfairway/fairshare).
# The report's Slurm-free logic is a convenience library so the unit tests can link it.
noinst_LTLIBRARIES += tools/libfairway-report.la
tools_libfairway_report_la_SOURCES = \
	tools/report/json_stream.cpp tools/report/json_stream.h \
	tools/report/offline_input.cpp tools/report/offline_input.h \
	tools/report/report_model.cpp tools/report/report_model.h \
	tools/report/sshare_format.cpp tools/report/sshare_format.h
tools_libfairway_report_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools $(NLOHMANN_JSON_CFLAGS)

tests_unit_fairway_unit_SOURCES += tests/unit/report/iso8601_test.cpp
EXTRA_DIST += tools/README.md
