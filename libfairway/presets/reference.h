// What a preset reference (a site preset's name or a user file's path, as --preset takes them) may
// contain. Each one ends up in job_submit/fairway's record of what it applied: the job's AdminComment
// ("fairway-presets=a100-train,./mine.yaml#ddp", entries of the comment joined by "; ", fields of
// `sacct -P` by '|'), FAIRWAY_APPLIED_PRESETS (prolog, epilog, the job's environment) and
// slurmctld's log. A line break or one of those separators in a path would forge a record, an
// accounting row or a log line, so such references are refused, never encoded: no preset needs one,
// and a refusal leaves no reader of the record to get the decoding wrong.
//
// Refused: control characters (C0 with tab and newline, DEL, C1), Unicode line and paragraph
// separators, bidirectional controls (they reorder a log line as displayed), bytes that are not
// UTF-8, and the record's separators ; = , | # ('#' joins a file's path to a preset inside it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace fairway::presets {

// The record's separators, which no name or path may contain.
inline constexpr std::string_view kRecordSeparators = ";=,|#";

// The record's bounds: it is written to AdminComment, to FAIRWAY_APPLIED_PRESETS and the batch
// environment, to slurmctld's log and (through AdminComment) to accounting, which cuts comments at
// 64 KB without a word. A submission applies at most 16 presets; each is recorded by name, a user
// preset as ".../" and its file's last path component cut to 48 bytes (the full path is in the
// user's own hands and may be 4096 bytes long), with "#name" (at most 64 bytes) for a named
// preset in it. So the list is at most 1,887 bytes, the AdminComment entry 1,903.
inline constexpr std::size_t kMaxAppliedPresets = 16;
inline constexpr std::size_t kMaxRecordedFileNameBytes = 48;
inline constexpr std::size_t kMaxRecordEntryBytes = 4 + kMaxRecordedFileNameBytes + 1 + 64;
inline constexpr std::size_t kMaxRecordListBytes = kMaxAppliedPresets * (kMaxRecordEntryBytes + 1) - 1;

// How the record names a preset: a site preset by its name; a user preset (named "path" or
// "path#name" by the resolver) as ".../<file name, at most 48 bytes>[#name]".
std::string record_entry_for(std::string_view preset_name);

// Why `text` may not be a preset reference: the first offending character, escaped, its kind and
// its position in characters from 1 ("separator ';' at position 4", "control character '\n' at
// position 12"); nullopt when it may.
std::optional<std::string> reference_problem(std::string_view text);

// Throws InputError at `where` when reference_problem(text) finds something: "invalid preset path
// '<text, escaped>': <problem>; <the rule>" ("preset" for a name).
void check_reference(std::string_view text, const SourceLocation& where = {"", 0, "preset"});

// Throws InputError (key "preset") unless `entry` can stand in the record: a reference, or a user
// file's path and a preset name in it joined by '#' ("./mine.yaml#ddp").
void check_record_entry(std::string_view entry);

// check_record_entry for each entry of a comma-separated record list ("" lists none), which
// must also keep the bounds above.
void check_record_list(std::string_view list);

// `text` fit for a message or a log line: backslash, control characters, line separators,
// bidirectional controls and bytes that are not UTF-8 written as \\, \n, \t, \r, \xNN or \uNNNN.
std::string escape_for_message(std::string_view text);

}  // namespace fairway::presets
