# spank: spank_fairway.so, the fairway SPANK plugin (see spank/README.md).
slurmplugin_LTLIBRARIES += spank/spank_fairway.la
spank_spank_fairway_la_SOURCES = \
	spank/spank_fairway.cpp spank/context.h \
	spank/client.cpp spank/client.h \
	spank/remote.cpp spank/remote.h \
	spank/site.cpp spank/site.h \
	spank/spank_io.cpp spank/spank_io.h
spank_spank_fairway_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS) $(YAMLCPP_CFLAGS)
spank_spank_fairway_la_CXXFLAGS = $(AM_CXXFLAGS)
spank_spank_fairway_la_LIBADD = libfairway/libfairway.la $(YAMLCPP_LIBS)
# The version script limits the dynamic exports; the regex trims libtool's symbol table.
spank_spank_fairway_la_LDFLAGS = $(PLUGIN_LINK_FLAGS) \
	-export-symbols-regex '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|slurm_spank_.*)$$' \
	-Wl,--version-script=$(srcdir)/spank/spank_fairway.map -Wl,--gc-sections
EXTRA_spank_spank_fairway_la_DEPENDENCIES = spank/spank_fairway.map
EXTRA_DIST += spank/spank_fairway.map spank/README.md
