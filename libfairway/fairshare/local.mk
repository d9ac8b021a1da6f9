# libfairway/fairshare: windowed usage ledger, association tree, Classic and Fair Tree factors,
# multifactor's job priority formula, PriorityParameters parsing, recovery forecast, the rule that
# turns a job's run into usage, what a rebuild charges of accounting's job records.
libfairway_libfairway_la_SOURCES += \
	libfairway/fairshare/usage_ledger.cpp libfairway/fairshare/usage_ledger.h \
	libfairway/fairshare/ledger_codec.cpp libfairway/fairshare/byte_codec.h \
	libfairway/fairshare/usage_book.cpp libfairway/fairshare/usage_book.h \
	libfairway/fairshare/usage_resets.cpp libfairway/fairshare/usage_resets.h \
	libfairway/fairshare/crc32.cpp libfairway/fairshare/crc32.h \
	libfairway/fairshare/parameters.cpp libfairway/fairshare/parameters.h \
	libfairway/fairshare/association_tree.cpp libfairway/fairshare/association_tree.h \
	libfairway/fairshare/fair_share.cpp libfairway/fairshare/fair_share.h \
	libfairway/fairshare/job_priority.cpp libfairway/fairshare/job_priority.h \
	libfairway/fairshare/walk_memo.cpp libfairway/fairshare/walk_memo.h \
	libfairway/fairshare/age_calendar.cpp libfairway/fairshare/age_calendar.h \
	libfairway/fairshare/forecast.cpp libfairway/fairshare/forecast.h \
	libfairway/fairshare/run_charges.cpp libfairway/fairshare/run_charges.h \
	libfairway/fairshare/recorded_runs.cpp libfairway/fairshare/recorded_runs.h \
	libfairway/fairshare/usage_records.cpp libfairway/fairshare/usage_records.h
EXTRA_DIST += libfairway/fairshare/README.md
tests_unit_fairway_unit_SOURCES += \
	tests/unit/fairshare/fair_share_test.cpp \
	tests/unit/fairshare/usage_ledger_test.cpp \
	tests/unit/fairshare/ledger_codec_test.cpp \
	tests/unit/fairshare/usage_book_test.cpp tests/unit/fairshare/state_bytes.h \
	tests/unit/fairshare/usage_resets_test.cpp \
	tests/unit/fairshare/parameters_test.cpp \
	tests/unit/fairshare/job_priority_test.cpp \
	tests/unit/fairshare/walk_memo_test.cpp \
	tests/unit/fairshare/age_calendar_test.cpp \
	tests/unit/fairshare/forecast_test.cpp \
	tests/unit/fairshare/run_charges_test.cpp \
	tests/unit/fairshare/recorded_runs_test.cpp \
	tests/unit/fairshare/usage_records_test.cpp

# Google Benchmark for the core; built on request only (`make tests/bench/fairshare-bench`), since
# configure does not require libbenchmark-dev. (Automake wants "=" for the first EXTRA_PROGRAMS.)
EXTRA_PROGRAMS = tests/bench/fairshare-bench
tests_bench_fairshare_bench_SOURCES = tests/bench/fairshare_bench.cpp
tests_bench_fairshare_bench_LDADD = libfairway/libfairway.la $(YAMLCPP_LIBS) -lbenchmark -lpthread
CLEANFILES += tests/bench/fairshare-bench
