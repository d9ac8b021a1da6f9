#include "bridge/k8s/http_client.h"

#include <curl/curl.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fairway::bridge {
namespace {

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* sink) {
    static_cast<std::string*>(sink)->append(data, size * count);
    return size * count;
}

struct LineSink {
    std::string pending;  // an incomplete line; for error statuses, the whole body
    const std::function<bool(std::string_view)>* on_line;
};

std::size_t split_lines(char* data, std::size_t size, std::size_t count, void* sink_ptr) {
    auto* sink = static_cast<LineSink*>(sink_ptr);
    sink->pending.append(data, size * count);
    std::size_t start = 0, end;
    while ((end = sink->pending.find('\n', start)) != std::string::npos) {
        std::string_view line(sink->pending.data() + start, end - start);
        if (!line.empty() && !(*sink->on_line)(line)) return 0;  // 0 aborts the transfer
        start = end + 1;
    }
    sink->pending.erase(0, start);
    return size * count;
}

std::size_t read_header(char* data, std::size_t size, std::size_t count, void* sink) {
    std::string_view line(data, size * count);
    constexpr std::string_view name = "retry-after:";
    if (line.size() > name.size()) {
        std::string lower(line.substr(0, name.size()));
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == name) {
            std::string value(line.substr(name.size()));
            auto first = value.find_first_not_of(" \t"), last = value.find_last_not_of(" \t\r\n");
            *static_cast<std::string*>(sink) = first == std::string::npos ? "" : value.substr(first, last - first + 1);
        }
    }
    return size * count;
}

int check_cancel(void* cancelled, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return (*static_cast<std::function<bool()>*>(cancelled))() ? 1 : 0;
}

void set_blob(CURL* handle, CURLoption option, const std::string& pem) {
    curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(handle, option, &blob);
}

}  // namespace

std::string HttpResponse::summary() const {
    if (!transported()) return "transport error: " + transport_error;
    std::string text = "HTTP " + std::to_string(status);
    auto status_object = nlohmann::json::parse(body, nullptr, false);
    if (!status_object.is_discarded() && status_object.is_object() && status_object.value("kind", "") == "Status")
        text += ": " + status_object.value("message", "");
    return text;
}

void HttpClient::CurlDeleter::operator()(CURL* handle) const { curl_easy_cleanup(handle); }

HttpClient::HttpClient(KubeCredentials credentials, std::chrono::seconds timeout)
    : credentials_(std::move(credentials)), timeout_(timeout), handle_(curl_easy_init()) {
    if (!handle_) throw std::runtime_error("curl_easy_init failed");
}

HttpClient::~HttpClient() = default;

void HttpClient::configure_tls() {
    CURL* h = handle_.get();
    const bool verify = !credentials_.insecure_skip_tls_verify;
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, verify ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L);
    if (!credentials_.ca_pem.empty()) set_blob(h, CURLOPT_CAINFO_BLOB, credentials_.ca_pem);
    else if (!credentials_.ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, credentials_.ca_file.c_str());
    if (!credentials_.client_cert_pem.empty()) set_blob(h, CURLOPT_SSLCERT_BLOB, credentials_.client_cert_pem);
    else if (!credentials_.client_cert_file.empty())
        curl_easy_setopt(h, CURLOPT_SSLCERT, credentials_.client_cert_file.c_str());
    if (!credentials_.client_key_pem.empty()) set_blob(h, CURLOPT_SSLKEY_BLOB, credentials_.client_key_pem);
    else if (!credentials_.client_key_file.empty())
        curl_easy_setopt(h, CURLOPT_SSLKEY, credentials_.client_key_file.c_str());
}

// A token file is re-read on every request: projected service-account tokens rotate.
std::string HttpClient::bearer_token() const {
    if (!credentials_.token.empty()) return credentials_.token;
    if (credentials_.token_file.empty()) return {};
    std::ifstream in(credentials_.token_file);
    std::string token;
    std::getline(in, token);
    return token;
}

HttpResponse HttpClient::perform(const HttpRequest& request, std::chrono::seconds limit, void* sink,
                                 std::size_t (*write)(char*, std::size_t, std::size_t, void*)) {
    CURL* h = handle_.get();
    curl_easy_reset(h);
    HttpResponse response;
    char error_buffer[CURL_ERROR_SIZE] = {};
    std::string url = credentials_.server + request.path;
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 5L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT, static_cast<long>(limit.count()));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (!request.body.empty() || request.method != "GET") {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.c_str());
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
    }
    configure_tls();
    if (cancelled_) {
        curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, check_cancel);
        curl_easy_setopt(h, CURLOPT_XFERINFODATA, &cancelled_);
    }
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Accept: application/json");
    headers = curl_slist_append(headers, ("Content-Type: " + request.content_type).c_str());
    headers = curl_slist_append(headers, "User-Agent: fairway-bridge");
    std::string token = bearer_token();
    if (!token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, sink);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, read_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &response.retry_after);
    CURLcode code = curl_easy_perform(h);
    curl_slist_free_all(headers);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
    response.tls_failure = code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ||
                           code == CURLE_SSL_CERTPROBLEM || code == CURLE_SSL_CONNECT_ERROR;
    if (code != CURLE_OK && code != CURLE_WRITE_ERROR)
        response.transport_error =
            std::string(curl_easy_strerror(code)) + (error_buffer[0] ? std::string(": ") + error_buffer : "");
    return response;
}

HttpResponse HttpClient::send(const HttpRequest& request) {
    std::string body;
    HttpResponse response = perform(request, timeout_, &body, append_body);
    response.body = std::move(body);
    return response;
}

HttpResponse HttpClient::stream(const HttpRequest& request, std::chrono::seconds limit,
                                const std::function<bool(std::string_view)>& on_line) {
    LineSink sink{{}, &on_line};
    HttpResponse response = perform(request, limit, &sink, split_lines);
    // A watch that ran to its limit ended normally; so did one the caller stopped.
    if (response.transport_error.rfind(curl_easy_strerror(CURLE_OPERATION_TIMEDOUT), 0) == 0 && response.status == 200)
        response.transport_error.clear();
    if (response.status >= 300) response.body = sink.pending;
    return response;
}

}  // namespace fairway::bridge
