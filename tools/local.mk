# tools: fairway-report, the offline/live fair-share report over the shared core (libfairway/fairshare).
tests_unit_fairway_unit_SOURCES += tests/unit/report/iso8601_test.cpp
