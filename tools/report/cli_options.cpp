#include "tools/report/cli_options.h"

#include <cmath>
#include <cstdlib>

namespace fairway::report {
namespace {

std::optional<Command> command_named(const std::string& word) {
    if (word == "summary") return Command::summary;
    if (word == "explain") return Command::explain;
    if (word == "forecast") return Command::forecast;
    if (word == "plot") return Command::plot;
    return std::nullopt;
}

double parse_level(const std::string& text) {
    char* end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value) || value < 0 || value > 1)
        throw UsageError("--level must be a number from 0 to 1, not '" + text + "'");
    return value;
}

bool is_valued(const std::string& name) {
    for (const char* valued : {"--input", "--level", "--svg", "--png", "--now", "--sacct-command"})
        if (name == valued) return true;
    return false;
}

// Options that take a value, as --name VALUE or --name=VALUE.
bool take_valued(Options& options, const std::string& name, const std::string& value) {
    if (name == "--input") options.input = value;
    else if (name == "--level") options.level = parse_level(value);
    else if (name == "--svg") options.svg = value;
    else if (name == "--png") options.png = value;
    else if (name == "--now") options.now = value;
    else if (name == "--sacct-command") options.sacct = value;
    else return false;
    return true;
}

bool take_flag(Options& options, const std::string& name) {
    if (name == "--parsable" || name == "-P") options.parsable = true;
    else if (name == "--json") options.json = true;
    else if (name == "--noheader" || name == "-n") options.header = false;
    else if (name == "--sacct") options.use_sacct = true;
    else if (name == "--help" || name == "-h") options.help = true;
    else return false;
    return true;
}

void check_consistency(const Options& options) {
    if (options.parsable && options.json) throw UsageError("--parsable and --json exclude each other");
    bool needs_target = options.command == Command::explain || options.command == Command::forecast;
    if (needs_target && options.target.empty())
        throw UsageError(std::string(options.command == Command::explain ? "explain needs a JOBID or USER"
                                                                         : "forecast needs a USER or ACCOUNT"));
    if (!needs_target && !options.target.empty()) throw UsageError("unexpected argument '" + options.target + "'");
    if (options.command == Command::plot && options.svg.empty() && options.png.empty())
        throw UsageError("plot needs --svg FILE and/or --png FILE");
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
    Options options;
    bool command_given = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        std::size_t equals = arg.find('=');
        if (arg.rfind("--", 0) == 0 && equals != std::string::npos) {
            if (!take_valued(options, arg.substr(0, equals), arg.substr(equals + 1)))
                throw UsageError("unknown option '" + arg.substr(0, equals) + "'");
        } else if (take_flag(options, arg)) {
        } else if (arg.rfind("-", 0) == 0 && arg.size() > 1) {
            if (!is_valued(arg)) throw UsageError("unknown option '" + arg + "'");
            if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
            take_valued(options, arg, args[++i]);
        } else if (!command_given && command_named(arg)) {
            options.command = *command_named(arg);
            command_given = true;
        } else if (options.target.empty()) {
            options.target = arg;
            command_given = true;
        } else {
            throw UsageError("unexpected argument '" + arg + "'");
        }
    }
    if (!options.help) check_consistency(options);
    return options;
}

bool is_job_id(const std::string& target) {
    std::size_t digits = 0;
    while (digits < target.size() && target[digits] >= '0' && target[digits] <= '9') ++digits;
    if (digits == 0) return false;
    if (digits == target.size()) return true;
    if (target[digits] != '_' && target[digits] != '+') return false;
    std::string rest = target.substr(digits + 1);
    return !rest.empty() && rest.find_first_not_of("0123456789") == std::string::npos;
}

const char* usage_text() {
    return "usage: fairway-report [summary] [--input FILE] [--parsable|-P | --json] [--noheader]\n"
           "       fairway-report explain JOBID|USER [--input FILE] [--json]\n"
           "       fairway-report forecast USER|ACCOUNT [--level X] [--input FILE] [--json]\n"
           "       fairway-report plot [--svg FILE] [--png FILE] [--input FILE]\n"
           "Without --input, accounting comes live from slurmdbd (--sacct: through sacct instead).\n"
           "Other options: --now ISO-8601 (live), --sacct-command PATH. See fairway-report(1).\n";
}

}  // namespace fairway::report
