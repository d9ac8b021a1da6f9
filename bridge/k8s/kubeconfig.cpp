#include "bridge/k8s/kubeconfig.h"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "common/error.h"

namespace fairway::bridge {
namespace {

int line_of(const YAML::Node& node) { return node.IsDefined() && node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

// kubeconfig lists are [{name: x, <kind>: {...}}]; returns the body of the entry called `name`.
YAML::Node find_named(const YAML::Node& root, const std::string& list, const std::string& kind, const std::string& name,
                      const std::string& file) {
    const YAML::Node entries = root[list];
    if (entries && entries.IsSequence())
        for (const auto& entry : entries)
            if (entry["name"] && entry["name"].as<std::string>() == name && entry[kind]) return entry[kind];
    throw InputError({file, line_of(entries), list}, "no " + kind + " named '" + name + "'");
}

std::string resolve(const std::string& path, const std::filesystem::path& base) {
    if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
    return (base / path).string();
}

std::string scalar(const YAML::Node& node, const char* key) {
    return node[key] && node[key].IsScalar() ? node[key].Scalar() : std::string();
}

// *-data fields are base64 PEM; a bad one is reported by key, never by value.
std::string pem_from(const YAML::Node& node, const char* key, const std::string& file, const std::string& where) {
    std::string encoded = scalar(node, key);
    if (encoded.empty()) return {};
    try {
        return decode_base64(encoded);
    } catch (const std::invalid_argument&) {
        throw InputError({file, line_of(node[key]), where + "." + key}, "not valid base64");
    }
}

void read_cluster(const YAML::Node& cluster, const std::string& file, const std::filesystem::path& base,
                  KubeCredentials& out) {
    out.server = scalar(cluster, "server");
    while (!out.server.empty() && out.server.back() == '/') out.server.pop_back();
    if (out.server.rfind("https://", 0) != 0)
        throw InputError({file, line_of(cluster["server"]), "cluster.server"}, "expected an https:// URL");
    out.ca_file = resolve(scalar(cluster, "certificate-authority"), base);
    out.ca_pem = pem_from(cluster, "certificate-authority-data", file, "cluster");
    out.insecure_skip_tls_verify = scalar(cluster, "insecure-skip-tls-verify") == "true";
}

void read_user(const YAML::Node& user, const std::string& file, const std::filesystem::path& base,
               KubeCredentials& out) {
    out.client_cert_file = resolve(scalar(user, "client-certificate"), base);
    out.client_cert_pem = pem_from(user, "client-certificate-data", file, "user");
    out.client_key_file = resolve(scalar(user, "client-key"), base);
    out.client_key_pem = pem_from(user, "client-key-data", file, "user");
    out.token = scalar(user, "token");
    out.token_file = resolve(scalar(user, "tokenFile"), base);
}

}  // namespace

KubeCredentials load_kubeconfig(const std::string& path, const std::string& context) {
    YAML::Node root;
    try {
        root = YAML::LoadFile(path);
    } catch (const YAML::BadFile&) {
        throw InputError({path, 0, ""}, "cannot read the kubeconfig");
    } catch (const YAML::ParserException& e) {
        throw InputError({path, e.mark.line + 1, ""}, "invalid YAML: " + e.msg);
    }
    std::string name = context.empty() ? scalar(root, "current-context") : context;
    if (name.empty()) throw InputError({path, 0, "current-context"}, "missing, and no context was given");
    YAML::Node ctx = find_named(root, "contexts", "context", name, path);
    KubeCredentials out;
    out.origin = path;
    auto base = std::filesystem::absolute(path).parent_path();
    read_cluster(find_named(root, "clusters", "cluster", scalar(ctx, "cluster"), path), path, base, out);
    if (!scalar(ctx, "user").empty())
        read_user(find_named(root, "users", "user", scalar(ctx, "user"), path), path, base, out);
    return out;
}

KubeCredentials in_cluster_credentials() {
    const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
    const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
    if (!host || !port)
        throw InputError({"", 0, "kubernetes.kubeconfig"},
                         "not set, and not running in a pod (no KUBERNETES_SERVICE_HOST)");
    const std::string dir = "/var/run/secrets/kubernetes.io/serviceaccount/";
    KubeCredentials out;
    std::string h = host;
    out.server = "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port;
    out.ca_file = dir + "ca.crt";
    out.token_file = dir + "token";
    out.origin = "in-cluster service account";
    return out;
}

std::string decode_base64(const std::string& text) {
    auto value_of = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+' || c == '-') return 62;
        if (c == '/' || c == '_') return 63;
        return -1;
    };
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    std::size_t padding = 0;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == ' ') continue;
        if (c == '=') {
            ++padding;
            continue;
        }
        int v = value_of(c);
        if (v < 0 || padding > 0) throw std::invalid_argument("base64");
        buffer = (buffer << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
        }
    }
    if (padding > 2 || bits >= 6) throw std::invalid_argument("base64");
    return out;
}

}  // namespace fairway::bridge
