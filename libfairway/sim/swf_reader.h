// SwfReader: the Standard Workload Format of the Parallel Workloads Archive, one job at a time.
//
// A job line has 18 whitespace-separated fields (see kSwfFieldNames); -1 means unknown. Lines that
// start with ';' are comments; those before the first job of the form "; Key: value" are the header
// (MaxNodes, MaxProcs, UnixStartTime, ...). Blank lines are ignored. The reader keeps only the
// current line, so a trace of any length costs the same memory.
//
// Errors throw fairway::InputError naming the file, the line and the field (its SWF name, e.g.
// "run_time"), or key "fields" when a line does not have 18 fields.
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>

namespace fairway::sim {

inline constexpr std::size_t kSwfFields = 18;
inline constexpr std::int64_t kSwfUnknown = -1;

// Field names in SWF order (as the archive's definition names them), used in error messages.
extern const std::array<const char*, kSwfFields> kSwfFieldNames;

struct SwfJob {
    std::int64_t job_id = 0;
    std::int64_t submit = 0;  // seconds since the trace start
    std::int64_t wait = kSwfUnknown;
    std::int64_t run_time = kSwfUnknown;
    std::int64_t allocated_procs = kSwfUnknown;
    double average_cpu_time = kSwfUnknown;
    double used_memory = kSwfUnknown;
    std::int64_t requested_procs = kSwfUnknown;
    std::int64_t requested_time = kSwfUnknown;
    double requested_memory = kSwfUnknown;
    std::int64_t status = kSwfUnknown;
    std::int64_t user = kSwfUnknown;
    std::int64_t group = kSwfUnknown;
    std::int64_t executable = kSwfUnknown;
    std::int64_t queue = kSwfUnknown;
    std::int64_t partition = kSwfUnknown;
    std::int64_t preceding_job = kSwfUnknown;
    std::int64_t think_time = kSwfUnknown;
    int line = 0;  // where it was read, for messages
};

// The header comments that change how a trace is replayed; every "Key: value" is kept in `fields`.
struct SwfHeader {
    std::optional<std::int64_t> max_nodes;        // "; MaxNodes: 100"
    std::optional<std::int64_t> max_procs;        // "; MaxProcs: 100"
    std::optional<std::int64_t> unix_start_time;  // "; UnixStartTime: 843480031"
    std::map<std::string, std::string> fields;
};

class SwfReader {
public:
    // Reads the header at once (up to the first job line). `file_name` is for messages only.
    SwfReader(std::istream& in, std::string file_name);

    const SwfHeader& header() const noexcept { return header_; }
    const std::string& file_name() const noexcept { return file_name_; }
    // The next job, or nullopt at the end of the input.
    std::optional<SwfJob> next();
    // Lines read so far.
    int line() const noexcept { return line_; }

private:
    bool read_line();  // false at end of input
    void read_header_comment();
    SwfJob parse_job() const;

    std::istream& in_;
    std::string file_name_;
    SwfHeader header_;
    std::string text_;  // the current line
    int line_ = 0;
    bool have_job_line_ = false;  // text_ holds a job line not yet returned
};

}  // namespace fairway::sim
