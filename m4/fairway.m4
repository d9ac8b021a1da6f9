# Project-specific autoconf macros for fairway.

# FAIRWAY_CXX20: require a compiler that accepts -std=c++20.
AC_DEFUN([FAIRWAY_CXX20], [
  AC_LANG_PUSH([C++])
  saved_CXXFLAGS=$CXXFLAGS
  CXXFLAGS="$CXXFLAGS -std=c++20"
  AC_MSG_CHECKING([whether $CXX accepts -std=c++20])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <span>
#include <concepts>]], [[std::span<int> s; return static_cast<int>(s.size());]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([a C++20 compiler is required (g++ >= 10)])])
  CXXFLAGS=$saved_CXXFLAGS
  AC_LANG_POP([C++])
  AC_SUBST([FAIRWAY_CXXFLAGS], ["-std=c++20 -Wall -Wextra"])
])

# FAIRWAY_HARDENING: stack protector, fortify and full RELRO, as distributions build daemons' plugins.
AC_DEFUN([FAIRWAY_HARDENING], [
  AC_SUBST([HARDENING_CPPFLAGS], ["-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2"])
  AC_SUBST([HARDENING_CFLAGS], ["-fstack-protector-strong -fno-strict-aliasing"])
  AC_SUBST([HARDENING_LDFLAGS], ["-Wl,-z,relro -Wl,-z,now"])
])

# FAIRWAY_STATIC_LIBSTDCXX: the libstdc++ archive g++ links with -static-libstdc++. The SPANK
# plugin links it (spank/README.md): loading the shared libstdc++ into srun and slurmstepd, which
# are C, cost ~0.8 ms of CPU per process. Debian builds the archive position-independent.
AC_DEFUN([FAIRWAY_STATIC_LIBSTDCXX], [
  AC_MSG_CHECKING([for the static libstdc++])
  STATIC_LIBSTDCXX=`$CXX -print-file-name=libstdc++.a`
  AS_IF([test -f "$STATIC_LIBSTDCXX"], [AC_MSG_RESULT([$STATIC_LIBSTDCXX])],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([libstdc++.a not found: install libstdc++-12-dev])])
  AC_SUBST([STATIC_LIBSTDCXX])
])

# FAIRWAY_YAML_CPP_STATIC: a position-independent static yaml-cpp for the SPANK plugin's YAML
# module, which sbatch, salloc and srun load for every --preset (scripts/yaml-cpp-pic says why).
# Without one the module links the shared yaml-cpp and libstdc++: correct, ~0.8 ms slower per load.
AC_DEFUN([FAIRWAY_YAML_CPP_STATIC], [
  AC_ARG_WITH([yaml-cpp-static],
    [AS_HELP_STRING([--with-yaml-cpp-static=ARCHIVE|no],
      [position-independent libyaml-cpp.a of the installed release for spank_fairway_yaml.so (default: built by scripts/yaml-cpp-pic; no: link the shared yaml-cpp)])],
    [YAMLCPP_STATIC=$withval], [
      AC_MSG_CHECKING([for a cached position-independent yaml-cpp archive])
      AS_IF([YAMLCPP_STATIC=$("$srcdir/scripts/yaml-cpp-pic")], [AC_MSG_RESULT([$YAMLCPP_STATIC]); yamlcpp_from_script=yes],
        [AC_MSG_RESULT([no]); YAMLCPP_STATIC=no
         AC_MSG_WARN([spank_fairway_yaml.so links the shared yaml-cpp: each --preset costs ~0.8 ms more CPU in sbatch/srun])])])
  AS_IF([test "x$YAMLCPP_STATIC" = xyes],
    [AC_MSG_ERROR([--with-yaml-cpp-static needs the archive's path])])
  AS_IF([test "x$YAMLCPP_STATIC" != xno], [
    AC_MSG_CHECKING([whether $YAMLCPP_STATIC links into a shared object])
    saved_LIBS=$LIBS saved_LDFLAGS=$LDFLAGS saved_CXXFLAGS=$CXXFLAGS
    LIBS="$YAMLCPP_STATIC $LIBS" LDFLAGS="$LDFLAGS -shared" CXXFLAGS="$CXXFLAGS -fPIC $YAMLCPP_CFLAGS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <yaml-cpp/yaml.h>]], [[return YAML::Load("a: 1")["a"].as<int>();]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no]); AC_MSG_ERROR([$YAMLCPP_STATIC cannot be linked into a plugin (not position-independent, or not yaml-cpp); pass --with-yaml-cpp-static=no to link the shared yaml-cpp])])
    LIBS=$saved_LIBS LDFLAGS=$saved_LDFLAGS CXXFLAGS=$saved_CXXFLAGS])
  AC_SUBST([YAMLCPP_STATIC])
  AM_CONDITIONAL([YAMLCPP_STATIC], [test "x$YAMLCPP_STATIC" != xno])
  AM_CONDITIONAL([YAMLCPP_FROM_SCRIPT], [test "x$yamlcpp_from_script" = xyes])
])

# FAIRWAY_SLURM: public Slurm headers and libslurm, by pkg-config or --with-slurm=PREFIX.
AC_DEFUN([FAIRWAY_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm=PREFIX], [Slurm installation prefix (default: pkg-config, then /usr)])],
    [slurm_prefix=$withval], [slurm_prefix=])
  AS_IF([test -z "$slurm_prefix"],
    [PKG_CHECK_MODULES([SLURM], [slurm], [slurm_found_by=pkg-config], [slurm_prefix=/usr])])
  AS_IF([test -n "$slurm_prefix"], [
    SLURM_CFLAGS="-I$slurm_prefix/include"
    slurm_libdir=$slurm_prefix/lib
    for d in "$slurm_prefix/lib/$($CC -print-multiarch 2>/dev/null)" "$slurm_prefix/lib64"; do
      AS_IF([test -e "$d/libslurm.so"], [slurm_libdir=$d])
    done
    SLURM_LIBS="-L$slurm_libdir -lslurm"
    # A release installed outside the system's directories (scripts/slurm-release): programs find
    # its libslurm at run time.
    AS_CASE([$slurm_libdir], [/usr/lib*|/lib*], [], [SLURM_LIBS="$SLURM_LIBS -Wl,-rpath,$slurm_libdir"])
  ])
  AC_SUBST([SLURM_CPPFLAGS], [$SLURM_CFLAGS])
  AC_SUBST([SLURM_LIBS])
  saved_CPPFLAGS=$CPPFLAGS; CPPFLAGS="$CPPFLAGS $SLURM_CPPFLAGS"
  AC_CHECK_HEADERS([slurm/slurm.h slurm/spank.h slurm/slurmdb.h], [],
    [AC_MSG_ERROR([Slurm development headers not found: install libslurm-dev or pass --with-slurm=PREFIX])])
  AC_COMPUTE_INT([fairway_slurm_version_number], [SLURM_VERSION_NUMBER], [#include <slurm/slurm_version.h>],
    [AC_MSG_ERROR([cannot read SLURM_VERSION_NUMBER])])
  CPPFLAGS=$saved_CPPFLAGS
  fairway_slurm_version=$(( fairway_slurm_version_number >> 16 )).$(( (fairway_slurm_version_number >> 8) & 255 )).$(( fairway_slurm_version_number & 255 ))
  AC_SUBST([SLURM_VERSION_NUMBER_HEX], [$(printf '0x%06x' $fairway_slurm_version_number)])

  AC_ARG_WITH([slurm-plugindir],
    [AS_HELP_STRING([--with-slurm-plugindir=DIR], [where Slurm loads plugins from (default: Slurm's own)])],
    [slurmplugindir=$withval], [
      slurmplugindir='${libdir}/slurm'
      for d in "$slurm_libdir/slurm-wlm" "$slurm_libdir/slurm"; do
        AS_IF([test -e "$d/priority_basic.so"], [slurmplugindir=$d; break])
      done])
  AC_SUBST([slurmplugindir])
])

# FAIRWAY_SLURM_SOURCE: a configured source tree of the exact installed release, for slurmctld internals.
AC_DEFUN([FAIRWAY_SLURM_SOURCE], [
  AC_ARG_WITH([slurm-source],
    [AS_HELP_STRING([--with-slurm-source=DIR],
      [configured Slurm source tree of the installed release (default: PREFIX/source of --with-slurm=PREFIX, as scripts/slurm-release installs it, else fetched by scripts/slurm-source)])],
    [SLURM_SOURCE_DIR=$withval], [
      AC_MSG_CHECKING([for a cached Slurm source tree])
      AS_IF([test -n "$slurm_prefix" && test -f "$slurm_prefix/source/config.h"],
        [SLURM_SOURCE_DIR=$slurm_prefix/source],
        [SLURM_SOURCE_DIR=$("$srcdir/scripts/slurm-source") || AC_MSG_ERROR([could not fetch the Slurm source; pass --with-slurm-source=DIR])])
      AC_MSG_RESULT([$SLURM_SOURCE_DIR])])
  SLURM_SOURCE_DIR=$(cd "$SLURM_SOURCE_DIR" 2>/dev/null && pwd) ||
    AC_MSG_ERROR([--with-slurm-source: no such directory])
  AS_IF([test ! -f "$SLURM_SOURCE_DIR/config.h" || test ! -f "$SLURM_SOURCE_DIR/src/slurmctld/slurmctld.h"],
    [AC_MSG_ERROR([$SLURM_SOURCE_DIR is not a configured Slurm source tree (run its ./configure first)])])
  src_hex=$(awk '/^#define SLURM_VERSION_NUMBER /{print $f}' f=3 "$SLURM_SOURCE_DIR/slurm/slurm_version.h")
  AS_IF([test $(( src_hex )) -ne $(( fairway_slurm_version_number ))],
    [AC_MSG_ERROR([Slurm source in $SLURM_SOURCE_DIR is version $src_hex but the installed Slurm is $SLURM_VERSION_NUMBER_HEX; slurmctld loads only plugins built against its exact release. Pass a matching --with-slurm-source.])])
  AC_SUBST([SLURM_SOURCE_DIR])
  AC_SUBST([SLURM_INTERNAL_CPPFLAGS], ["-DHAVE_CONFIG_H -I$SLURM_SOURCE_DIR -I$SLURM_SOURCE_DIR/src/common"])
])
