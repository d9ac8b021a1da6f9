// fairway-bridge: shares one GPU quota per team between Slurm and Kubernetes (Kueue or Volcano).
// This file only parses the command line and dispatches; the work lives in k8s/, slurm/ and
// reconcile/ and in the pure core libfairway/quota/.
#include <getopt.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include <curl/curl.h>

#include "bridge/daemon.h"
#include "bridge/log.h"
#include "common/error.h"
#include "fairway_config.h"
#include "quota/bridge_config.h"

namespace {

constexpr const char* kDefaultConfig = "/etc/fairway/fairway-bridge.yaml";

void usage(std::FILE* out) {
    std::fprintf(out,
                 "usage: fairway-bridge [--config FILE] [--once] [--dry-run] [--list-clusterqueues]\n"
                 "                      [--check-config] [--log-level debug|info|warn|error] [--version]\n"
                 "  --config FILE          configuration (default %s)\n"
                 "  --once                 run one reconcile cycle and exit (status 0 when it succeeded,\n"
                 "                         3 without a cycle when another bridge holds the leader lease)\n"
                 "  --dry-run              read both clusters and log what would be written, each Kubernetes object\n"
                 "                         checked by the apiserver (dryRun=All); write nothing\n"
                 "                         (takes no part in leader election)\n"
                 "  --list-clusterqueues   connect to the API server and print the ClusterQueues (or Volcano Queues)\n"
                 "  --check-config         validate the configuration and exit\n"
                 "See fairway-bridge(8) and fairway-bridge.yaml(5).\n",
                 kDefaultConfig);
}

std::optional<fairway::bridge::LogLevel> parse_level(const std::string& name) {
    using fairway::bridge::LogLevel;
    if (name == "debug") return LogLevel::debug;
    if (name == "info") return LogLevel::info;
    if (name == "warn") return LogLevel::warn;
    if (name == "error") return LogLevel::error;
    return std::nullopt;
}

// Returns the action, or an exit status through `exit_status` when the command line is wrong.
bool parse_options(int argc, char** argv, fairway::bridge::DaemonOptions& options, std::string& action,
                   int& exit_status) {
    static const option longopts[] = {{"config", required_argument, nullptr, 'c'},
                                      {"once", no_argument, nullptr, 'o'},
                                      {"dry-run", no_argument, nullptr, 'n'},
                                      {"list-clusterqueues", no_argument, nullptr, 'l'},
                                      {"check-config", no_argument, nullptr, 'k'},
                                      {"log-level", required_argument, nullptr, 'L'},
                                      {"version", no_argument, nullptr, 'V'},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "c:onhV", longopts, nullptr)) != -1) {
        switch (c) {
        case 'c': options.config_path = optarg; break;
        case 'o': options.once = true; break;
        case 'n': options.dry_run = true; break;
        case 'l': action = "list"; break;
        case 'k': action = "check"; break;
        case 'L':
            if (auto level = parse_level(optarg)) fairway::bridge::set_log_level(*level);
            else {
                std::cerr << "fairway-bridge: --log-level: expected debug, info, warn or error\n";
                exit_status = 2;
                return false;
            }
            break;
        case 'V':
            std::cout << "fairway-bridge " PACKAGE_VERSION "\n";
            exit_status = 0;
            return false;
        case 'h':
            usage(stdout);
            exit_status = 0;
            return false;
        default:
            usage(stderr);
            exit_status = 2;
            return false;
        }
    }
    if (optind < argc) {
        usage(stderr);
        exit_status = 2;
        return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    fairway::bridge::DaemonOptions options;
    options.config_path = kDefaultConfig;
    std::string action = "run";
    int exit_status = 0;
    if (!parse_options(argc, argv, options, action, exit_status)) return exit_status;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int status = 1;
    try {
        auto config = fairway::quota::load_bridge_config(options.config_path);
        if (action == "check") {
            std::cout << options.config_path << ": OK (" << config.groups.size() << " quota groups)\n";
            status = 0;
        } else if (action == "list") {
            status = fairway::bridge::list_queues(config);
        } else {
            status = fairway::bridge::run_daemon(options, std::move(config));
        }
    } catch (const fairway::InputError& e) {
        std::cerr << "fairway-bridge: " << e.what() << "\n";
        status = 1;
    } catch (const std::exception& e) {
        fairway::bridge::log_event(fairway::bridge::LogLevel::error, "fatal", {{"error", e.what()}});
        status = 1;
    }
    curl_global_cleanup();
    return status;
}
