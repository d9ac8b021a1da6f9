# Example configuration, presets, systemd unit and Kubernetes manifests.
EXTRA_DIST += etc
