# libfairway/fairshare: windowed usage ledger, association tree, Classic and Fair Tree factors,
# multifactor's job priority formula, PriorityParameters parsing, recovery forecast.
libfairway_libfairway_la_SOURCES += \
	libfairway/fairshare/usage_ledger.h libfairway/fairshare/parameters.h \
	libfairway/fairshare/association_tree.h libfairway/fairshare/fair_share.h \
	libfairway/fairshare/job_priority.h libfairway/fairshare/forecast.h \
	libfairway/fairshare/crc32.cpp libfairway/fairshare/crc32.h
EXTRA_DIST += libfairway/fairshare/README.md
