// A small HTTPS client for the Kubernetes API over libcurl: one RAII easy handle (connection
// reuse), TLS always verified unless the kubeconfig explicitly says insecure, and responses that
// keep the HTTP status apart from transport errors. No exceptions for expected failures.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "bridge/k8s/kubeconfig.h"

typedef void CURL;

namespace fairway::bridge {

struct HttpResponse {
    long status = 0;  // HTTP status; 0 when nothing came back
    std::string body;
    std::string transport_error;  // DNS/TCP/TLS/timeout problem; empty when the exchange happened
    std::string retry_after;      // Retry-After header (429/503), if any
    bool tls_failure = false;     // certificate or TLS setup problem: retrying will not help

    bool transported() const { return transport_error.empty(); }
    bool ok() const { return transported() && status >= 200 && status < 300; }
    // One line for logs: status and the server's message, or the transport error.
    std::string summary() const;
};

struct HttpRequest {
    std::string method = "GET";
    std::string path;  // "/apis/...?query"
    std::string body;
    std::string content_type = "application/json";
};

class HttpClient {
public:
    HttpClient(KubeCredentials credentials, std::chrono::seconds timeout);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    HttpResponse send(const HttpRequest& request);
    // Streams the body line by line (watch); `on_line` returning false stops the stream.
    HttpResponse stream(const HttpRequest& request, std::chrono::seconds limit,
                        const std::function<bool(std::string_view)>& on_line);

    // Polled during transfers; returning true aborts the one in progress (stops a watch at shutdown).
    void set_cancel(std::function<bool()> cancelled) { cancelled_ = std::move(cancelled); }

    const std::string& server() const { return credentials_.server; }
    const std::string& origin() const { return credentials_.origin; }

private:
    struct CurlDeleter {
        void operator()(CURL* handle) const;
    };
    HttpResponse perform(const HttpRequest& request, std::chrono::seconds limit, void* sink,
                         std::size_t (*write)(char*, std::size_t, std::size_t, void*));
    void configure_tls();
    std::string bearer_token() const;

    KubeCredentials credentials_;
    std::chrono::seconds timeout_;
    std::function<bool()> cancelled_;
    std::unique_ptr<CURL, CurlDeleter> handle_;
};

}  // namespace fairway::bridge
