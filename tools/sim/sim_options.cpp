#include "tools/sim/sim_options.h"

#include <charconv>
#include <functional>
#include <map>
#include <type_traits>

#include "common/error.h"
#include "common/iso8601.h"
#include "common/slurm_time.h"

namespace fairway::simtool {
namespace {

template <class Number>
Number number_of(const std::string& option, const std::string& text) {
    Number value{};
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty())
        throw UsageError(option + ": '" + text + "' is not a number");
    return value;
}

template <class Number>
Number non_negative(const std::string& option, const std::string& text) {
    Number value = number_of<Number>(option, text);
    if constexpr (std::is_signed_v<Number> || std::is_floating_point_v<Number>)
        if (value < 0) throw UsageError(option + ": must not be negative");
    return value;
}

std::int64_t duration_of(const std::string& option, const std::string& text) {
    std::optional<Seconds> value = parse_slurm_duration(text);
    if (!value || value->count() <= 0) throw UsageError(option + ": '" + text + "' is not a positive Slurm duration");
    return value->count();
}

fairshare::FairShareOptions algorithm_of(const std::string& text) {
    if (text == "fair_tree") return fairshare::fair_share_options(true, false, 1);
    if (text == "classic") return fairshare::fair_share_options(false, false, 1);
    if (text == "depth_oblivious") return fairshare::fair_share_options(false, true, 1);
    throw UsageError("--algorithm: '" + text + "' is not fair_tree, classic or depth_oblivious");
}

// "cpu=1,gpu=8" (TRESBillingWeights' CPU and GRES/gpu, "gres/gpu" accepted too).
void billing_of(const std::string& text, sim::SimConfig& config) {
    config.billing_per_core = config.billing_per_gpu = 0;
    std::size_t at = 0;
    while (at <= text.size()) {
        std::size_t comma = std::min(text.find(',', at), text.size());
        std::string item = text.substr(at, comma - at);
        std::size_t equals = item.find('=');
        if (equals == std::string::npos) throw UsageError("--billing: expected TRES=weight, found '" + item + "'");
        std::string tres = item.substr(0, equals);
        double weight = non_negative<double>("--billing", item.substr(equals + 1));
        if (tres == "cpu" || tres == "CPU") config.billing_per_core = weight;
        else if (tres == "gpu" || tres == "GRES/gpu" || tres == "gres/gpu") config.billing_per_gpu = weight;
        else throw UsageError("--billing: unknown TRES '" + tres + "' (cpu, gpu)");
        at = comma + 1;
    }
}

// An ISO-8601 time, or a date alone (its midnight, UTC).
std::int64_t epoch_of(const std::string& option, const std::string& text) {
    std::optional<UnixTime> t = parse_iso8601(text.size() == 10 ? text + "T00:00:00Z" : text);
    if (!t) throw UsageError(option + ": '" + text + "' is not an ISO-8601 time or date");
    return t->time_since_epoch().count();
}

// "FROM..TO" or "FROM" (up to now, which the reader then takes as TO).
void accounting_period_of(const std::string& text, Options& o) {
    std::size_t dots = text.find("..");
    o.accounting_from = epoch_of("--accounting", text.substr(0, dots));
    if (dots != std::string::npos) o.accounting_to = epoch_of("--accounting", text.substr(dots + 2));
    if (o.accounting_to && *o.accounting_to <= *o.accounting_from)
        throw UsageError("--accounting: '" + text + "' ends before it starts");
}

void check_input(const Options& o) {
    if (o.trace.empty() && !o.accounting_from) throw UsageError("no trace file given (or --accounting FROM[..TO])");
    if (!o.trace.empty() && o.accounting_from) throw UsageError("a trace file or --accounting, not both");
    if (o.use_sacct && !o.accounting_from) throw UsageError("--sacct reads accounting: give --accounting FROM[..TO]");
    if (o.accounting_from && (!o.nodes || (!o.cores_per_node && !o.gpus_per_node)))
        throw UsageError("--accounting needs the cluster: --nodes and --cores-per-node (and --gpus-per-node)");
}

}  // namespace

std::vector<sim::PolicySpec> default_policies() {
    return {sim::parse_policy("fcfs"), sim::parse_policy("multifactor:half_life=7-0"),
            sim::parse_policy("fairway:window=14-0,half_life=7-0"), sim::parse_policy("fairway:window=7-0,half_life=0"),
            sim::parse_policy("reset:period=monthly,half_life=0")};
}

Options parse_options(const std::vector<std::string>& args) {
    Options o;
    o.config.billing_per_gpu = 1;  // each core and each GPU bills 1 unless --billing says otherwise
    using Handler = std::function<void(const std::string&)>;
    const std::map<std::string, Handler> with_value = {
        {"--policy",
         [&](const std::string& v) {
             try {
                 o.policies.push_back(sim::parse_policy(v));
             } catch (const InputError& error) {
                 throw UsageError(std::string("--policy: ") + error.problem());
             }
         }},
        {"--tree", [&](const std::string& v) { o.tree = v; }},
        {"--nodes", [&](const std::string& v) { o.nodes = non_negative<std::uint32_t>("--nodes", v); }},
        {"--cores-per-node",
         [&](const std::string& v) { o.cores_per_node = non_negative<std::int64_t>("--cores-per-node", v); }},
        {"--gpus-per-node",
         [&](const std::string& v) { o.gpus_per_node = non_negative<std::int64_t>("--gpus-per-node", v); }},
        {"--procs-are",
         [&](const std::string& v) {
             if (v != "cores" && v != "gpus") throw UsageError("--procs-are: '" + v + "' is not cores or gpus");
             o.procs_are = v == "gpus" ? sim::ProcsAre::gpus : sim::ProcsAre::cores;
         }},
        {"--start", [&](const std::string& v) { o.start = epoch_of("--start", v); }},
        {"--accounting", [&](const std::string& v) { accounting_period_of(v, o); }},
        {"--calc-period",
         [&](const std::string& v) { o.config.calc_period = Seconds{duration_of("--calc-period", v)}; }},
        {"--weight-age",
         [&](const std::string& v) { o.config.priority.weights.age = non_negative<std::uint32_t>("--weight-age", v); }},
        {"--weight-fairshare",
         [&](const std::string& v) {
             o.config.priority.weights.fairshare = non_negative<std::uint32_t>("--weight-fairshare", v);
         }},
        {"--weight-jobsize",
         [&](const std::string& v) {
             o.config.priority.weights.job_size = non_negative<std::uint32_t>("--weight-jobsize", v);
         }},
        {"--max-age", [&](const std::string& v) { o.config.priority.max_age = Seconds{duration_of("--max-age", v)}; }},
        {"--algorithm", [&](const std::string& v) { o.config.fair_share = algorithm_of(v); }},
        {"--billing", [&](const std::string& v) { billing_of(v, o.config); }},
        {"--backfill-depth",
         [&](const std::string& v) { o.config.backfill_depth = non_negative<std::size_t>("--backfill-depth", v); }},
        {"--share-window", [&](const std::string& v) { o.statistics.share_window = duration_of("--share-window", v); }},
        {"--share-step", [&](const std::string& v) { o.statistics.share_step = duration_of("--share-step", v); }},
        {"--recovery-level",
         [&](const std::string& v) { o.statistics.recovery_level = number_of<double>("--recovery-level", v); }},
        {"--accounts", [&](const std::string& v) { o.accounts_shown = non_negative<std::size_t>("--accounts", v); }},
        {"--svg", [&](const std::string& v) { o.svg = v; }},
        {"--png", [&](const std::string& v) { o.png = v; }},
        {"--starts", [&](const std::string& v) { o.starts = v; }},
        {"--max-jobs", [&](const std::string& v) { o.max_jobs = non_negative<std::uint64_t>("--max-jobs", v); }},
    };
    const std::map<std::string, std::function<void()>> flags = {
        {"--favor-small", [&] { o.config.priority.favor_small = true; }},
        {"--sacct", [&] { o.use_sacct = true; }},
        {"--users", [&] { o.users_table = true; }},
        {"--json", [&] { o.json = true; }},
        {"--quiet", [&] { o.progress = false; }},
        {"--timing", [&] { o.timing = true; }},
        {"--help", [&] { o.help = true; }},
        {"-h", [&] { o.help = true; }},
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i], value;
        std::size_t equals = arg.find('=');
        bool inline_value = arg.rfind("--", 0) == 0 && equals != std::string::npos;
        if (inline_value) value = arg.substr(equals + 1), arg = arg.substr(0, equals);
        if (auto flag = flags.find(arg); flag != flags.end() && !inline_value) {
            flag->second();
        } else if (auto option = with_value.find(arg); option != with_value.end()) {
            if (!inline_value) {
                if (i + 1 >= args.size()) throw UsageError(arg + " needs a value");
                value = args[++i];
            }
            option->second(value);
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw UsageError("unknown option " + args[i]);
        } else if (o.trace.empty()) {
            o.trace = arg;
        } else {
            throw UsageError("only one trace file, got '" + o.trace + "' and '" + arg + "'");
        }
    }
    if (o.help) return o;
    check_input(o);
    if (o.policies.empty()) o.policies = default_policies();
    if (!o.png.empty() && o.svg.empty()) throw UsageError("--png needs --svg (the PNG is made from the SVG)");
    try {
        o.statistics.validate();
    } catch (const InputError& error) {
        throw UsageError("--" + error.where().key + ": " + error.problem());
    }
    return o;
}

const char* usage_text() {
    return R"(usage: fairway-sim TRACE.swf [options]
       fairway-sim --accounting FROM[..TO] --nodes N --cores-per-node C [options]
Replays a Standard Workload Format trace, or the site's own jobs from slurmdbd, under each
policy with fairway's fair-share core and compares waits, slowdowns, utilization, delivered
against entitled shares and recovery.

  --accounting FROM[..TO]  the jobs submitted in [FROM, TO) (ISO-8601 times or dates, UTC; TO
                         default now) as slurmdbd
                         recorded them: submit time, run time, time limit, cores and GPUs, the
                         association tree and its shares (SLURM_CONF names the cluster)
  --sacct                with --accounting: read through sacct and sacctmgr instead of libslurmdb

  --policy SPEC          a policy to compare (repeat); default: fcfs, multifactor:half_life=7-0,
                         fairway:window=14-0,half_life=7-0, fairway:window=7-0,half_life=0,
                         reset:period=monthly,half_life=0
  --tree FILE.json       association tree in fairway-report's offline input (trace user N is "uN",
                         group G is "gG"); default: one account per group, equal shares
  --nodes N  --cores-per-node C  --gpus-per-node G
                         the cluster; default from the trace's MaxNodes and MaxProcs
  --procs-are cores|gpus what an SWF processor is (default cores)
  --start TIME           ISO-8601 time (or date) of the trace's time 0 (default its UnixStartTime;
                         with --accounting, FROM)
  --calc-period DUR      PriorityCalcPeriod (5:00)
  --weight-age N  --weight-fairshare N  --weight-jobsize N  --max-age DUR  --favor-small
                         multifactor weights (1000, 10000, 1000, 7-0)
  --algorithm fair_tree|classic|depth_oblivious        (fair_tree)
  --billing cpu=X,gpu=Y  TRESBillingWeights (cpu=1,gpu=1)
  --backfill-depth N     jobs backfill tries behind the queue head (500)
  --share-window DUR  --share-step DUR                 delivered vs entitled windows (7-0, 1-0)
  --recovery-level X     fair-share factor a penalized user recovers to (0.5)
  --accounts N           accounts in the tables and plots (8)
  --users                a per-user table too
  --json                 everything as JSON on stdout instead of tables
  --svg FILE [--png FILE]  plots (PNG through rsvg-convert)
  --starts FILE          every job start, one line each: policy, job, submit, start (seconds
                         from the trace's time 0), main|backfill
  --max-jobs N           replay only the first N jobs
  --quiet                no progress bar (shown only when stderr is a terminal)
  --timing               print jobs per second and peak RSS on stderr (benchmarks)
)";
}

}  // namespace fairway::simtool
