#include "bridge/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>
#include <stdexcept>

namespace fairway::bridge {
namespace {

void gauge(std::ostringstream& out, const char* name, const char* help) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n";
}
void counter(std::ostringstream& out, const char* name, const char* help) {
    out << "# HELP " << name << " " << help << "\n# TYPE " << name << " counter\n";
}

void render_groups(std::ostringstream& out, const CycleReport& last) {
    gauge(out, "fairway_bridge_group_quota_gpus", "GPUs a quota group may use across both clusters (Q).");
    for (const auto& [name, g] : last.groups)
        out << "fairway_bridge_group_quota_gpus{group=\"" << name << "\"} " << g.quota << "\n";
    struct Field {
        const char* metric;
        const char* help;
        long quota::SideReading::*member;
    };
    const Field fields[] = {
        {"fairway_bridge_group_limit_gpus", "Limit the side enforces (GrpTRES or queue quota).",
         &quota::SideReading::limit},
        {"fairway_bridge_group_used_gpus", "GPUs in use on the side.", &quota::SideReading::used},
        {"fairway_bridge_group_pending",
         "GPUs requested by pending work on the side (Slurm jobs; Kueue Workloads or Volcano PodGroups).",
         &quota::SideReading::pending}};
    for (const auto& field : fields) {
        gauge(out, field.metric, field.help);
        for (const auto& [name, g] : last.groups)
            for (quota::Side side : quota::kBothSides)
                if (const auto& r = g.reading[side])
                    out << field.metric << "{group=\"" << name << "\",side=\"" << quota::side_name(side) << "\"} "
                        << (*r).*field.member << "\n";
    }
    gauge(out, "fairway_bridge_group_target_gpus", "Limit the protocol is heading for.");
    for (const auto& [name, g] : last.groups)
        for (quota::Side side : quota::kBothSides)
            out << "fairway_bridge_group_target_gpus{group=\"" << name << "\",side=\"" << quota::side_name(side)
                << "\"} " << g.decision.target[side] << "\n";
    gauge(out, "fairway_bridge_group_held", "1 when the last cycle held a change back, labelled with why.");
    for (const auto& [name, g] : last.groups)
        out << "fairway_bridge_group_held{group=\"" << name << "\",reason=\"" << quota::hold_name(g.decision.hold)
            << "\"} " << (g.decision.hold == quota::Hold::none ? 0 : 1) << "\n";
}

}  // namespace

std::string render_metrics(const CycleReport& last, const CycleTotals& totals, const ApiCounters& api) {
    std::ostringstream out;
    render_groups(out, last);
    gauge(out, "fairway_bridge_side_up", "1 when the last cycle could read the side.");
    out << "fairway_bridge_side_up{side=\"slurm\"} " << last.slurm_ok
        << "\nfairway_bridge_side_up{side=\"kubernetes\"} " << last.kube_ok << "\n";
    struct Scalar {
        void (*header)(std::ostringstream&, const char*, const char*);
        const char* name;
        const char* help;
        double value;
    };
    const Scalar scalars[] = {
        {counter, "fairway_bridge_cycles_total", "Reconcile cycles run.", double(totals.cycles)},
        {gauge, "fairway_bridge_last_cycle_seconds", "Duration of the last reconcile cycle.",
         double(totals.last_seconds)},
        {counter, "fairway_bridge_cycle_seconds_total", "Time spent in reconcile cycles.", double(totals.seconds_sum)},
        {counter, "fairway_bridge_writes_total", "Writes to Slurm or Kubernetes.", double(totals.writes)},
        {counter, "fairway_bridge_write_failures_total", "Writes that failed.", double(totals.failed_writes)},
        {counter, "fairway_bridge_watch_events_total", "Queue changes seen by the watch (each starts a cycle).",
         double(totals.watch_events)},
        {counter, "fairway_bridge_api_requests_total", "Kubernetes API requests, retries included.",
         double(api.requests)},
        {counter, "fairway_bridge_api_errors_total", "Kubernetes API requests that failed (status or transport).",
         double(api.errors)},
        {counter, "fairway_bridge_api_retries_total", "Kubernetes API requests retried after backoff.",
         double(api.retries)}};
    out.precision(15);  // counters stay exact in text form
    for (const auto& metric : scalars) {
        metric.header(out, metric.name, metric.help);
        out << metric.name << " " << metric.value << "\n";
    }
    return out.str();
}

MetricsServer::MetricsServer(const std::string& listen) {
    auto colon = listen.rfind(':');
    if (colon == std::string::npos)
        throw std::runtime_error("metrics.listen: expected HOST:PORT, got '" + listen + "'");
    std::string host = listen.substr(0, colon);
    if (host == "localhost") host = "127.0.0.1";
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(std::stoi(listen.substr(colon + 1))));
    if (inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1)
        throw std::runtime_error("metrics.listen: not an IPv4 address: " + host);
    socket_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int on = 1;
    setsockopt(socket_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (socket_ < 0 || bind(socket_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(socket_, 16) != 0) {
        if (socket_ >= 0) close(socket_);
        throw std::runtime_error("metrics.listen: cannot listen on " + listen);
    }
    socklen_t length = sizeof address;
    getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
}

MetricsServer::~MetricsServer() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
    close(socket_);
}

void MetricsServer::publish(std::string metrics, bool healthy) {
    std::lock_guard<std::mutex> lock(mutex_);
    page_ = std::move(metrics);
    healthy_ = healthy;
}

void MetricsServer::serve() {
    while (!stopping_) {
        pollfd waiting{socket_, POLLIN, 0};
        if (poll(&waiting, 1, 200) <= 0) continue;  // wake up regularly to notice stopping_
        int client = accept4(socket_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        timeval limit{2, 0};  // a slow client must not stall the next scrape
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        answer(client);
        close(client);
    }
}

void MetricsServer::answer(int client) {
    char buffer[2048];
    ssize_t got = recv(client, buffer, sizeof buffer - 1, 0);
    if (got <= 0) return;
    std::string request(buffer, static_cast<std::size_t>(got));
    std::string status = "200 OK", type = "text/plain; version=0.0.4", body;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (request.rfind("GET /metrics", 0) == 0) body = page_;
        else if (request.rfind("GET /healthz", 0) == 0) {
            body = healthy_ ? "ok\n" : "unhealthy\n";
            if (!healthy_) status = "503 Service Unavailable";
        } else {
            status = "404 Not Found";
            body = "not found\n";
        }
    }
    std::string reply = "HTTP/1.0 " + status + "\r\nContent-Type: " + type +
                        "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
}

}  // namespace fairway::bridge
