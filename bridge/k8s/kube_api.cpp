#include "bridge/k8s/kube_api.h"

#include <algorithm>

namespace fairway::bridge {
namespace {

nlohmann::json parse_or_null(const std::string& body) {
    auto parsed = nlohmann::json::parse(body, nullptr, false);
    return parsed.is_discarded() ? nlohmann::json() : parsed;
}

std::string with_query(const std::string& path, const std::string& query) {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + query;
}

}  // namespace

std::string url_encode(const std::string& text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out.push_back(static_cast<char>(c));
        else {
            out.push_back('%');
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    return out;
}

KubeApi::KubeApi(HttpClient& http, RetryPolicy policy, std::function<void(std::chrono::milliseconds)> sleep)
    : http_(http), policy_(policy), sleep_(std::move(sleep)), random_(std::random_device{}()) {}

bool KubeApi::retryable(const HttpResponse& response, bool conflict_is_final) const {
    if (!response.transported()) return !response.tls_failure;
    return (response.status == 409 && !conflict_is_final) || response.status == 429 || response.status >= 500;
}

// Full jitter (uniform in [0, min(cap, base*2^attempt)]) spreads retries of many clients apart;
// a server's Retry-After is honoured as a floor.
std::chrono::milliseconds KubeApi::backoff(int attempt, const HttpResponse& response) {
    long ceiling = std::min<long>(policy_.cap.count(), policy_.base.count() << std::min(attempt, 20));
    long wait = std::uniform_int_distribution<long>(0, ceiling)(random_);
    if (!response.retry_after.empty() && std::isdigit(static_cast<unsigned char>(response.retry_after[0])))
        wait = std::max(wait, std::min<long>(std::stol(response.retry_after) * 1000, policy_.cap.count()));
    return std::chrono::milliseconds(wait);
}

ApiResult KubeApi::send_with_retries(const HttpRequest& request, bool conflict_is_final) {
    ApiResult result;
    for (int attempt = 0;; ++attempt) {
        if (request.method != "GET" && write_gate_ && !write_gate_()) {
            result.response = HttpResponse{};
            result.response.transport_error = "withheld: this bridge does not hold the leader lease";
            return result;
        }
        ++counters_.requests;
        if (request.method != "GET") ++counters_.writes;
        result.response = http_.send(request);
        if (!result.response.ok()) ++counters_.errors;
        if (!retryable(result.response, conflict_is_final) || attempt + 1 >= policy_.attempts) break;
        ++counters_.retries;
        sleep_(backoff(attempt, result.response));
    }
    result.object = parse_or_null(result.response.body);
    return result;
}

ApiResult KubeApi::get(const std::string& path) { return send_with_retries({"GET", path, "", "application/json"}); }

ApiResult KubeApi::list(const std::string& path, const std::string& label_selector) {
    std::string base = label_selector.empty() ? path : with_query(path, "labelSelector=" + url_encode(label_selector));
    ApiResult all = get(with_query(base, "limit=500"));
    if (!all.ok() || !all.object.is_object()) return all;
    std::string next = all.object["metadata"].value("continue", "");
    while (!next.empty()) {
        ApiResult page = get(with_query(base, "limit=500&continue=" + url_encode(next)));
        if (!page.ok()) return page;  // 410 here means the continue token expired: caller relists
        for (auto& item : page.object["items"]) all.object["items"].push_back(std::move(item));
        next = page.object["metadata"].value("continue", "");
    }
    return all;
}

ApiResult KubeApi::apply(const std::string& path, const nlohmann::json& object, const std::string& on_version) {
    nlohmann::json body = object;
    if (!on_version.empty()) body["metadata"]["resourceVersion"] = on_version;
    // JSON is YAML, so the apply-patch content type accepts the JSON body as is. A retry of a
    // conditional apply carries the same version, so of all its attempts at most one lands.
    return send_with_retries({"PATCH", with_query(path, std::string("fieldManager=") + kFieldManager + "&force=true"),
                              body.dump(), "application/apply-patch+yaml"},
                             !on_version.empty());
}

ApiResult KubeApi::apply_dry_run(const std::string& path, const nlohmann::json& object) {
    ++counters_.requests;
    HttpResponse response =
        http_.send({"PATCH", with_query(path, std::string("fieldManager=") + kFieldManager + "&force=true&dryRun=All"),
                    object.dump(), "application/apply-patch+yaml"});
    if (!response.ok()) ++counters_.errors;
    return {response, parse_or_null(response.body)};
}

ApiResult KubeApi::remove(const std::string& path) {
    return send_with_retries({"DELETE", path, "", "application/json"});
}

ApiResult KubeApi::merge_patch(const std::string& path, const nlohmann::json& patch, const std::string& on_version) {
    nlohmann::json body = patch;
    if (!on_version.empty()) body["metadata"]["resourceVersion"] = on_version;
    return send_with_retries({"PATCH", path, body.dump(), "application/merge-patch+json"}, !on_version.empty());
}

namespace {
ApiResult parsed(HttpResponse response) { return {response, parse_or_null(response.body)}; }
}  // namespace

ApiResult KubeApi::create_once(const std::string& collection, const nlohmann::json& object) {
    ++counters_.requests;
    ApiResult result = parsed(http_.send({"POST", collection, object.dump(), "application/json"}));
    if (!result.ok()) ++counters_.errors;
    return result;
}

ApiResult KubeApi::replace_once(const std::string& path, const nlohmann::json& object) {
    ++counters_.requests;
    ApiResult result = parsed(http_.send({"PUT", path, object.dump(), "application/json"}));
    if (!result.ok()) ++counters_.errors;
    return result;
}

ApiResult KubeApi::watch(const std::string& path, const std::string& resource_version, std::chrono::seconds limit,
                         const std::function<bool(const nlohmann::json&)>& on_event) {
    std::string query = "watch=true&allowWatchBookmarks=true&timeoutSeconds=" + std::to_string(limit.count()) +
                        "&resourceVersion=" + url_encode(resource_version);
    ApiResult result;
    bool expired = false;
    ++counters_.requests;
    result.response =
        http_.stream({"GET", with_query(path, query), "", "application/json"}, limit + std::chrono::seconds(5),
                     [&](std::string_view line) {
                         auto event = nlohmann::json::parse(line, nullptr, false);
                         if (event.is_discarded()) return true;
                         if (event.value("type", "") == "ERROR" && event["object"].value("code", 0) == 410) {
                             expired = true;
                             return false;
                         }
                         return on_event(event);
                     });
    if (expired) result.response.status = 410;
    if (!result.response.ok()) ++counters_.errors;
    return result;
}

}  // namespace fairway::bridge
