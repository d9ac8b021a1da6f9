// ISO-8601 timestamps ("2026-12-02T17:00:00Z", "...+02:00", "...T17:00:00.250Z") as whole
// seconds since the Unix epoch, so reports and tests can name instants in plain text.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace fairway {

using UnixTime = std::chrono::sys_seconds;

// Parses "YYYY-MM-DDTHH:MM:SS" with an optional fraction (dropped: usage is counted in whole
// seconds) and an optional zone: "Z", "+HH:MM", "-HH:MM" or "+HHMM". Text without a zone is
// read as UTC, which is what `sacct` prints when run with TZ=UTC. A space may stand for 'T'.
// Returns nullopt for anything else, including impossible dates such as February 30th.
std::optional<UnixTime> parse_iso8601(std::string_view text);

// Formats as "YYYY-MM-DDTHH:MM:SSZ" (UTC).
std::string format_iso8601(UnixTime instant);

}  // namespace fairway
