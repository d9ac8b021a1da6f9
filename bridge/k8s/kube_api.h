// Kubernetes API verbs fairway-bridge needs (list, watch, server-side apply, delete, status
// patch), with retries: 409, 429, 5xx and transport errors back off exponentially with full
// jitter; 410 Gone is returned to the caller, whose answer is to relist.
#pragma once

#include <chrono>
#include <functional>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "bridge/k8s/http_client.h"

namespace fairway::bridge {

inline constexpr const char* kFieldManager = "fairway-bridge";

struct RetryPolicy {
    int attempts = 4;
    std::chrono::milliseconds base{200};
    std::chrono::milliseconds cap{5000};
};

// Counters the daemon exports as metrics.
struct ApiCounters {
    long requests = 0, writes = 0, errors = 0, retries = 0;
};

struct ApiResult {
    HttpResponse response;
    nlohmann::json object;  // parsed body when it was JSON, else null
    bool ok() const { return response.ok(); }
};

class KubeApi {
public:
    KubeApi(HttpClient& http, RetryPolicy policy, std::function<void(std::chrono::milliseconds)> sleep);

    ApiResult get(const std::string& path);
    // All pages of a list (limit/continue), items concatenated; resourceVersion of the first page.
    ApiResult list(const std::string& path, const std::string& label_selector = "");
    // Server-side apply with fieldManager fairway-bridge and force: we own the fields we set.
    // With `on_version`, the apply is conditional on the object's resourceVersion: it lands only
    // while the object is still at that version, and a 409 (it has moved on) is not retried: the
    // caller reads again rather than overwrite what it has not seen.
    ApiResult apply(const std::string& path, const nlohmann::json& object, const std::string& on_version = "");
    // Server-side apply with dryRun=All: the apiserver validates and admits the object as it would
    // a real apply, and stores nothing. Writes nothing, so it is never gated; sent once.
    ApiResult apply_dry_run(const std::string& path, const nlohmann::json& object);
    ApiResult remove(const std::string& path);
    // With `on_version`, conditional on the object's resourceVersion as apply() is (a 409 is final).
    ApiResult merge_patch(const std::string& path, const nlohmann::json& patch, const std::string& on_version = "");
    // One POST / PUT, never retried and never gated: for the Lease, whose update is conditional
    // on the resourceVersion in `object` (a 409 means another bridge won; retrying cannot help).
    ApiResult create_once(const std::string& collection, const nlohmann::json& object);
    ApiResult replace_once(const std::string& path, const nlohmann::json& object);
    // Fencing: every other write (apply, delete, patch), and each retry of it, goes out only while
    // `open` says so; otherwise it fails without being sent (transport error "withheld: ...").
    void set_write_gate(std::function<bool()> open) { write_gate_ = std::move(open); }
    // One watch request from resourceVersion; events go to `on_event` until it returns false or
    // the server ends the stream. An ERROR event carrying 410 is reported as status 410.
    ApiResult watch(const std::string& path, const std::string& resource_version, std::chrono::seconds limit,
                    const std::function<bool(const nlohmann::json&)>& on_event);

    const ApiCounters& counters() const { return counters_; }

private:
    ApiResult send_with_retries(const HttpRequest& request, bool conflict_is_final = false);
    bool retryable(const HttpResponse& response, bool conflict_is_final) const;
    std::chrono::milliseconds backoff(int attempt, const HttpResponse& response);

    HttpClient& http_;
    RetryPolicy policy_;
    std::function<void(std::chrono::milliseconds)> sleep_;
    std::function<bool()> write_gate_;
    std::mt19937_64 random_;
    ApiCounters counters_;
};

// Percent-encodes a query value (label selectors contain '=' and ',').
std::string url_encode(const std::string& text);

}  // namespace fairway::bridge
