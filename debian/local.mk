# Debian packages: `make deb` builds fairway-slurm-plugins, fairway-bridge and fairway-report.
EXTRA_DIST += debian/README.source debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/fairway-bridge.install debian/fairway-report.install \
	debian/fairway-slurm-plugins.examples debian/fairway-slurm-plugins.install

# Built in a copy of the tree `make dist` ships, so that the source tree gets no build products, with
# the Slurm source tree and yaml-cpp archive this build was configured with; the .deb files land in
# deb/. DEB_BUILDPACKAGE_FLAGS can be set on the make command line.
DEB_BUILD_DIR = $(abs_builddir)/deb-build
DEB_DIR = $(abs_builddir)/deb
DEB_BUILDPACKAGE_FLAGS = -jauto
deb:
	@changelog=$$(dpkg-parsechangelog -l $(srcdir)/debian/changelog -S Version); \
	test "$$changelog" = '$(VERSION)' || \
	{ echo "debian/changelog is at $$changelog, configure.ac at $(VERSION): add a changelog entry" >&2; exit 1; }
	rm -rf $(DEB_BUILD_DIR) $(DEB_DIR)
	$(MKDIR_P) $(DEB_BUILD_DIR)
	$(MAKE) $(AM_MAKEFLAGS) distdir distdir=$(DEB_BUILD_DIR)/$(distdir)
	cd $(DEB_BUILD_DIR)/$(distdir) && \
	FAIRWAY_SLURM_SOURCE='$(SLURM_SOURCE_DIR)' FAIRWAY_YAML_CPP_STATIC='$(YAMLCPP_STATIC)' \
	dpkg-buildpackage -us -uc -b $(DEB_BUILDPACKAGE_FLAGS)
	$(MKDIR_P) $(DEB_DIR)
	cd $(DEB_BUILD_DIR) && for f in *.deb *.ddeb *.changes *.buildinfo; do \
	  if test -e "$$f"; then mv "$$f" $(DEB_DIR)/ || exit 1; fi; done
	rm -rf $(DEB_BUILD_DIR)
	@echo "Debian packages (install with apt-get install ./PATH ...):"; ls -1 $(DEB_DIR)/*.deb
.PHONY: deb

clean-local:
	rm -rf $(DEB_BUILD_DIR) $(DEB_DIR)
