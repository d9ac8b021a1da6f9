// Where the Kubernetes API is and how to prove who we are: from a kubeconfig file or from the
// in-cluster service account. Secrets (token, key) live only here and in the HTTP client; they
// are never formatted into log lines or error messages.
#pragma once

#include <string>

namespace fairway::bridge {

struct KubeCredentials {
    std::string server;           // https://host:port, no trailing slash
    std::string ca_file, ca_pem;  // trust anchors: a file, or PEM text (certificate-authority-data)
    std::string client_cert_file, client_cert_pem;
    std::string client_key_file, client_key_pem;
    std::string token, token_file;          // bearer token, or a file re-read on each request (rotation)
    bool insecure_skip_tls_verify = false;  // only when the kubeconfig explicitly says so
    std::string origin;                     // where these came from, for messages
};

// Reads a kubeconfig (current-context unless `context` is given). Relative paths resolve against
// the kubeconfig's directory, as kubectl does. Errors are fairway::InputError naming file and key.
KubeCredentials load_kubeconfig(const std::string& path, const std::string& context = "");

// The pod's service account: KUBERNETES_SERVICE_HOST/PORT and /var/run/secrets/kubernetes.io/serviceaccount.
KubeCredentials in_cluster_credentials();

// RFC 4648 base64 (kubeconfig *-data fields); throws std::invalid_argument on bad input.
std::string decode_base64(const std::string& text);

}  // namespace fairway::bridge
