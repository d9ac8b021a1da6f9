# spank: the fairway SPANK plugin (see spank/README.md), in two shared objects:
#   spank_fairway.so       what Slurm loads into sbatch, salloc, srun and every slurmstepd. No
#                          yaml-cpp, and libstdc++ linked in (linked as C, so that libtool does not
#                          add the shared libstdc++): nothing to load besides the plugin itself.
#   spank_fairway_yaml.so  reading presets.conf and preset files (libfairway with yaml-cpp), loaded
#                          by the plugin only when needed, through a C interface (yaml_module_api.h);
#                          self-contained too when configure found a static yaml-cpp.
slurmplugin_LTLIBRARIES += spank/spank_fairway.la spank/spank_fairway_yaml.la
spank_spank_fairway_la_SOURCES = \
	spank/spank_fairway.cpp spank/context.h \
	spank/client.cpp spank/client.h \
	spank/remote.cpp spank/remote.h \
	spank/spank_io.cpp spank/spank_io.h \
	spank/yaml_module.cpp spank/yaml_module.h spank/yaml_module_api.h \
	libfairway/common/error.cpp \
	libfairway/binding/gpu_policy.cpp libfairway/binding/hostlist.cpp libfairway/binding/plugin_config.cpp \
	libfairway/binding/step_settings.cpp libfairway/binding/sysfs_topology.cpp libfairway/binding/text.cpp \
	libfairway/binding/site_access.cpp libfairway/binding/training_env.cpp \
	libfairway/presets/carried.cpp libfairway/presets/env_policy.cpp libfairway/presets/job_request.cpp \
	libfairway/presets/plugstack.cpp libfairway/presets/preset.cpp libfairway/presets/reference.cpp \
	libfairway/presets/signal_names.cpp libfairway/presets/trusted_file.cpp libfairway/presets/utf8.cpp \
	libfairway/presets/values.cpp
spank_spank_fairway_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
spank_spank_fairway_la_CXXFLAGS = $(AM_CXXFLAGS)
spank_spank_fairway_la_LIBADD = $(STATIC_LIBSTDCXX) -lm
# The version script limits the dynamic exports (libtool's -export-symbols-regex would add a second
# one, which ld refuses for a C link).
spank_spank_fairway_la_LDFLAGS = $(PLUGIN_LINK_FLAGS) -static-libgcc \
	-Wl,--version-script=$(srcdir)/spank/spank_fairway.map -Wl,--gc-sections
# Both objects that carry their own libstdc++ are linked by the C driver with this.
LINK_AS_C = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CCLD) $(AM_CFLAGS) $(CFLAGS)
spank_spank_fairway_la_LINK = $(LINK_AS_C) $(spank_spank_fairway_la_LDFLAGS) $(LDFLAGS) -o $@
EXTRA_spank_spank_fairway_la_DEPENDENCIES = spank/spank_fairway.map

spank_spank_fairway_yaml_la_SOURCES = spank/yaml_entry.cpp spank/yaml_module_api.h spank/site.cpp spank/site.h \
	spank/spank_io.h
spank_spank_fairway_yaml_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS) $(YAMLCPP_CFLAGS)
spank_spank_fairway_yaml_la_CXXFLAGS = $(AM_CXXFLAGS)
if YAMLCPP_STATIC
# With a position-independent static yaml-cpp (configure's --with-yaml-cpp-static), the module too
# links libstdc++ in and is linked as C: loading it into sbatch or srun loads no other library.
spank_spank_fairway_yaml_la_LIBADD = libfairway/libfairway.la $(YAMLCPP_STATIC) $(STATIC_LIBSTDCXX) -lm
spank_spank_fairway_yaml_la_LDFLAGS = $(PLUGIN_LINK_FLAGS) -static-libgcc \
	-Wl,--version-script=$(srcdir)/spank/spank_fairway_yaml.map -Wl,--gc-sections
spank_spank_fairway_yaml_la_LINK = $(LINK_AS_C) $(spank_spank_fairway_yaml_la_LDFLAGS) $(LDFLAGS) -o $@
EXTRA_spank_spank_fairway_yaml_la_DEPENDENCIES = spank/spank_fairway_yaml.map $(YAMLCPP_STATIC)
if YAMLCPP_FROM_SCRIPT
# The script rebuilds the cached archive when the flags it compiles with change (its stamp).
$(YAMLCPP_STATIC): $(srcdir)/scripts/yaml-cpp-pic
	$(AM_V_GEN)$(srcdir)/scripts/yaml-cpp-pic >/dev/null && touch -c $@
endif
else
EXTRA_spank_spank_fairway_yaml_la_DEPENDENCIES = spank/spank_fairway_yaml.map
spank_spank_fairway_yaml_la_LIBADD = libfairway/libfairway.la $(YAMLCPP_LIBS)
spank_spank_fairway_yaml_la_LDFLAGS = $(PLUGIN_LINK_FLAGS) -export-symbols-regex '^fairway_yaml_' \
	-Wl,--version-script=$(srcdir)/spank/spank_fairway_yaml.map -Wl,--gc-sections
endif
EXTRA_DIST += spank/spank_fairway.map spank/spank_fairway_yaml.map spank/README.md
