// Streams a large JSON document with bounded memory: the top-level object's small members are
// kept as a DOM, while the elements of chosen top-level arrays ("usage": a million records) are
// handed to a callback one at a time and then dropped. The parser is our own (strict RFC 8259,
// agreeing with nlohmann::json::parse, see the unit tests); the DOM is nlohmann's. Never throws
// on malformed text: syntax errors come back as an InputError naming the file and line.
#pragma once

#include <cstdio>
#include <functional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace fairway::report {

// Called for each element of a streamed array: the member name, the element's 0-based index, the
// element, the line it started on, and the top-level members read so far (so a reader can act on
// settings that precede the records).
using ElementHandler = std::function<void(const std::string& array, std::size_t index, const nlohmann::json& element,
                                          int line, const nlohmann::json& members_so_far)>;

// Reads a JSON object from `file` (named `file_name` in messages). Members named in
// `streamed_arrays` must be arrays; their elements go to `on_element` in document order and are
// absent from the returned object. Throws InputError for malformed JSON or a non-object top level,
// and lets exceptions from `on_element` pass through.
nlohmann::json stream_json_object(std::FILE* file, const std::string& file_name,
                                  const std::set<std::string>& streamed_arrays, const ElementHandler& on_element);

}  // namespace fairway::report
