# bridge: fairway-bridge, the daemon that shares GPU quotas between Slurm and Kubernetes.
# Its Kubernetes client (libcurl) and Slurm adapter live here; the quota protocol and the
# configuration schema are pure and live in libfairway/quota/.
noinst_LTLIBRARIES += bridge/libbridge.la
bridge_libbridge_la_SOURCES = \
	bridge/log.cpp bridge/log.h \
	bridge/k8s/kubeconfig.cpp bridge/k8s/kubeconfig.h \
	bridge/k8s/http_client.cpp bridge/k8s/http_client.h \
	bridge/k8s/kube_api.cpp bridge/k8s/kube_api.h \
	bridge/k8s/queue_watcher.cpp bridge/k8s/queue_watcher.h \
	bridge/slurm/slurm_client.cpp bridge/slurm/slurm_client.h bridge/slurm/slurm_compat.h \
	bridge/reconciler.cpp bridge/reconciler.h \
	bridge/leader_lease.cpp bridge/leader_lease.h \
	bridge/metrics_server.cpp bridge/metrics_server.h \
	bridge/usage_spool.cpp bridge/usage_spool.h
bridge_libbridge_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(YAMLCPP_CFLAGS) $(NLOHMANN_JSON_CFLAGS) $(CURL_CFLAGS) $(SLURM_CPPFLAGS)

sbin_PROGRAMS += bridge/fairway-bridge
bridge_fairway_bridge_SOURCES = bridge/main.cpp bridge/daemon.cpp bridge/daemon.h
bridge_fairway_bridge_CPPFLAGS = $(bridge_libbridge_la_CPPFLAGS)
bridge_fairway_bridge_LDADD = bridge/libbridge.la libfairway/libfairway.la $(CURL_LIBS) $(SLURM_LIBS) $(YAMLCPP_LIBS) -lpthread

EXTRA_DIST += bridge/README.md
