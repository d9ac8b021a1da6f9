// Structured logs, one logfmt line per event on stderr (journald and kubectl logs keep them):
//   ts=2026-12-02T17:40:00Z level=info msg="applied" kind=ClusterQueue name=fairway-physics
// Callers pass only names, counts and statuses: never tokens, keys or request headers.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

namespace fairway::bridge {

enum class LogLevel { debug, info, warn, error };

using LogField = std::pair<std::string, std::string>;

void set_log_level(LogLevel level);
void log_event(LogLevel level, const std::string& message, std::initializer_list<LogField> fields = {});

}  // namespace fairway::bridge
