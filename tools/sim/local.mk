# fairway-sim: replays an SWF trace under each fair-share policy (libfairway/sim) and prints, writes
# as JSON and plots what users would have waited. Reads trees in fairway-report's offline format and
# a site's accounting through fairway-report's live reader (tools/libfairway-live.la).
bin_PROGRAMS += tools/fairway-sim
tools_fairway_sim_SOURCES = tools/fairway-sim.cpp \
	tools/sim/sim_options.cpp tools/sim/sim_options.h \
	tools/sim/replay.cpp tools/sim/replay.h \
	tools/sim/sim_output.cpp tools/sim/sim_output.h \
	tools/sim/sim_plot.cpp tools/sim/sim_plot.h
tools_fairway_sim_CPPFLAGS = $(AM_CPPFLAGS) $(NLOHMANN_JSON_CFLAGS)
tools_fairway_sim_LDADD = tools/libfairway-live.la tools/libfairway-report.la libfairway/libfairway.la \
	$(SLURM_LIBS) $(YAMLCPP_LIBS)
EXTRA_DIST += tools/sim/README.md
