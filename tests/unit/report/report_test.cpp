// fairway-report's Slurm-free parts: the streaming reader, the model and sshare's number formats.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "common/iso8601.h"
#include "tools/report/cli_options.h"
#include "tools/report/json_stream.h"
#include "tools/report/kube_usage.h"
#include "tools/report/offline_input.h"
#include "tools/report/report_model.h"
#include "tools/report/sshare_format.h"
#include "tools/report/svg_plot.h"

using namespace fairway::report;

namespace {

std::unique_ptr<std::FILE, int (*)(std::FILE*)> text_file(const std::string& text) {
    std::FILE* file = std::tmpfile();
    std::fputs(text.c_str(), file);
    std::rewind(file);
    return {file, &std::fclose};
}

ReportModel model_of(const std::string& text) {
    auto file = text_file(text);
    ReportModel model;
    model.finish(read_offline_input(file.get(), "test.json", model).settings);
    return model;
}

const std::string kTwoUsers = R"({"now": "2026-01-10T00:00:00Z", "window": "2-0", "half_life": "1-0",
  "associations": [{"account": "A", "parent": "root", "shares": 3}, {"account": "A", "user": "u1"},
                   {"account": "A", "user": "u2", "shares": "parent"}],
  "usage": [{"account": "A", "user": "u1", "end": "2026-01-09T00:00:00Z", "billing_seconds": 80},
            {"account": "A", "user": "u2", "end": "2026-01-10T00:00:00Z", "billing_seconds": 10},
            {"account": "A", "user": "u2", "end": "2026-01-01T00:00:00Z", "billing_seconds": 1000}]})";

}  // namespace

TEST(ReportJsonStream, HandsOverStreamedElementsOneAtATimeAndDropsThem) {
    auto file = text_file("{\"a\": 1,\n \"items\": [\n {\"x\": 1},\n {\"x\": 2}\n ], \"b\": [3]}");
    std::vector<std::pair<int, int>> seen;  // (x, line)
    nlohmann::json top = stream_json_object(file.get(), "f", {"items"},
                                            [&](const std::string& name, std::size_t index, const nlohmann::json& e,
                                                int line, const nlohmann::json& so_far) {
                                                EXPECT_EQ(name, "items");
                                                EXPECT_EQ(so_far["a"], 1);
                                                EXPECT_LE(so_far["items"].size(), 1u);  // only the element in hand
                                                EXPECT_EQ(index + 1, static_cast<std::size_t>(e["x"].get<int>()));
                                                seen.emplace_back(e["x"].get<int>(), line);
                                            });
    EXPECT_EQ(seen, (std::vector<std::pair<int, int>>{{1, 3}, {2, 4}}));
    EXPECT_EQ(top["b"], nlohmann::json::array({3}));
    EXPECT_TRUE(top["items"].empty());
}

TEST(ReportJsonStream, MalformedTextIsAnInputErrorWithTheLine) {
    for (const char* bad : {"{\"a\":\n\n tru}", "[1, 2]", "", "{\"a\": 1} trailing"}) {
        auto file = text_file(bad);
        EXPECT_THROW(stream_json_object(file.get(), "f", {}, {}), fairway::InputError) << bad;
    }
    auto file = text_file("{\"a\":\n\n tru}");
    try {
        stream_json_object(file.get(), "f", {}, {});
    } catch (const fairway::InputError& error) {
        EXPECT_EQ(error.where().line, 3);
    }
}

// The streaming parser is fairway's own; nlohmann's parser is the reference it must agree with.
TEST(ReportJsonStream, ReadsWhatNlohmannReadsAndRefusesWhatItRefuses) {
    const std::vector<std::string> valid = {
        R"({"u": 18446744073709551615, "big": 18446744073709551616, "i": -9223372036854775808, "z": -0})",
        R"({"f": 1.5e-3, "g": -2E+2, "h": 0.1, "under": 1e-400, "tiny": 4.9e-324})",
        R"({"s": "a\"b\\c\/d\b\f\n\r\t", "u": "\u00e9\u20ac\ud83d\ude00", "raw": "é€😀", "empty": ""})",
        R"({"n": null, "t": true, "f": false, "a": [[], {}, [1, [2, {"x": [3]}]]], "dup": 1, "dup": 2})",
        "\xef\xbb\xbf {\"bom\": 1}\r\n\t ",
    };
    for (const std::string& text : valid) {
        auto file = text_file(text);
        EXPECT_EQ(stream_json_object(file.get(), "f", {}, {}), nlohmann::json::parse(text)) << text;
    }
    const std::vector<std::string> invalid = {
        R"({"a": 01})",
        R"({"a": 1.})",
        R"({"a": .5})",
        R"({"a": -})",
        R"({"a": 1e})",
        R"({"a": +1})",
        R"({"a": 1e400})",
        R"({"a": "\x"})",
        R"({"a": "\u12"})",
        R"({"a": "\udc00"})",
        R"({"a": "\ud800x"})",
        "{\"a\": \"\x01\"}",
        "{\"a\": \"\xff\"}",
        "{\"a\": \"\xc0\xaf\"}",
        "{\"a\": \"\xed\xa0\x80\"}",
        "{\"a\": \"\xf4\x90\x80\x80\"}",
        R"({"a": [1,]})",
        R"({"a": 1,})",
        R"({"a" 1})",
        R"({a: 1})",
        R"({"a": tru})",
        R"({"a": nul})",
        R"({"a": "open)",
        R"({"a": [1, 2)",
        std::string(300, '[') + std::string(300, ']'),
    };
    for (const std::string& text : invalid) {
        auto wrapped = text_file(text);
        EXPECT_THROW(stream_json_object(wrapped.get(), "f", {}, {}), fairway::InputError) << text;
        if (text.size() < 300) {
            EXPECT_FALSE(nlohmann::json::accept(text)) << text;
        }
    }
}

TEST(ReportModel, WindowDecayAndTotalsFollowTheSettings) {
    ReportModel model = model_of(kTwoUsers);
    auto u1 = model.find("A", "u1"), u2 = model.find("A", "u2");
    ASSERT_TRUE(u1 && u2);
    EXPECT_DOUBLE_EQ(model.tree().node(*u1).own_usage, 40.0);  // one half-life old
    EXPECT_DOUBLE_EQ(model.tree().node(*u2).own_usage, 10.0);  // the 9-day-old record left the window
    EXPECT_DOUBLE_EQ(model.own_totals(*u2).billing_seconds, 10.0);
    EXPECT_DOUBLE_EQ(model.subtree_totals(*model.find("A", "")).billing_seconds, 90.0);
    EXPECT_EQ(model.records_read(), 3u);
    EXPECT_EQ(model.associations_of_user("u2"), std::vector<std::size_t>{*u2});
}

// A record with its start is a job's run, charged by the plugin's rule (fairshare/run_charges.h):
// a run that crosses the 5-minute window's edge and lasts 8 half-lives weighs what the plugin's
// passes every 5 seconds leave, and only its seconds inside the window count in the totals.
TEST(ReportModel, ARunWithItsStartWeighsWhatThePluginsPassesCharge) {
    ReportModel model = model_of(R"({"now": "2026-01-01T00:10:00Z", "window": "5:00", "half_life": "1:00",
      "bucket": "0:03", "associations": [{"account": "A", "parent": "root"}, {"account": "A", "user": "u"}],
      "usage": [{"account": "A", "user": "u", "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T00:08:00Z",
                 "billing_seconds": 960, "cpu_seconds": 480}]})");
    const TimePoint start = *fairway::parse_iso8601("2026-01-01T00:00:00Z");
    fairway::fairshare::WindowedUsageLedger passes({fairway::Seconds{300}, fairway::Seconds{60}, fairway::Seconds{3}});
    for (TimePoint pass = start; pass < start + fairway::Seconds{480}; pass += fairway::Seconds{5}) {
        passes.charge_span(1, 2.0, pass, pass + fairway::Seconds{5});
        passes.advance(pass + fairway::Seconds{5});
    }
    const TimePoint now = start + fairway::Seconds{600};
    passes.advance(now);
    const auto u = model.find("A", "u");
    ASSERT_TRUE(u);
    const double expected = passes.usage(1, now);
    EXPECT_GT(expected, 0);
    EXPECT_NEAR(model.tree().node(*u).own_usage, expected, 1e-9 * expected);
    EXPECT_DOUBLE_EQ(model.own_totals(*u).billing_seconds, 2.0 * (480 - 300));
    EXPECT_DOUBLE_EQ(model.own_totals(*u).cpu_seconds, 480 - 300);
}

// fairway-bridge's records in the plugin's spool count as the plugin counts them (a run's billing
// per second, in the same ledger), and apart as Kubernetes usage; a record the plugin refuses
// (writable by others) and a charge of no known association count for nothing, and nothing from
// before an association's reset counts.
TEST(ReportModel, KubernetesRecordsCountLikeThePluginsAndApart) {
    const std::string spool = std::filesystem::temp_directory_path() / ("report-spool-" + std::to_string(getpid()));
    std::filesystem::create_directories(spool);
    const auto record = [&](int sequence, const std::string& charge, mode_t mode) {
        const std::string path = spool + "/bridge-" + std::string(19, '0') + std::to_string(sequence) + ".usage";
        std::ofstream(path) << "fairway-usage 1\nsource=bridge\nsequence=" << sequence << "\ncharge=" << charge << "\n";
        chmod(path.c_str(), mode);
    };
    // 2 GPUs billed 16 per second over 5 hours, ending 1 day before "now" (a 2-day window).
    const long long end = 1767916800;  // 2026-01-09T00:00:00Z
    record(1, "A/u1 " + std::to_string(end - 18000) + " " + std::to_string(end) + " 2 16 ns/w/uid@1", 0644);
    record(2, "A/u1 " + std::to_string(end - 100) + " " + std::to_string(end) + " 1 8 ns/w/uid@2", 0666);
    record(3, "A/nobody " + std::to_string(end - 100) + " " + std::to_string(end) + " 1 8 ns/w/uid@3", 0644);
    auto file = text_file(kTwoUsers);
    ReportModel model;
    const InputHeader header = read_offline_input(file.get(), "test.json", model);
    const KubernetesReading reading =
        add_kubernetes_usage(spool, getuid(), model, [](auto&, auto&, TimePoint from) { return from; });
    model.finish(header.settings);
    // After a RawUsage reset 1 hour before the charge's end, the plugin charges its last hour only.
    auto again = text_file(kTwoUsers);
    ReportModel reset;
    read_offline_input(again.get(), "test.json", reset);
    const TimePoint reset_at = fairway::fairshare::from_unix_seconds(end - 3600);
    add_kubernetes_usage(spool, getuid(), reset,
                         [&](auto&, auto&, TimePoint from) { return std::max(from, reset_at); });
    reset.finish(header.settings);
    std::filesystem::remove_all(spool);
    EXPECT_DOUBLE_EQ(reset.own_totals(*reset.find("A", "u1")).kube_gpu_seconds, 2 * 3600);
    EXPECT_EQ(reading.records, 2u);
    EXPECT_EQ(reading.refused, 1u);
    EXPECT_EQ(reading.unknown, 1u);
    const auto u1 = model.find("A", "u1");
    ASSERT_TRUE(u1);
    fairway::fairshare::WindowedUsageLedger plugin(model.ledger().config());
    const TimePoint end_time = fairway::fairshare::from_unix_seconds(end);
    plugin.charge_span(1, 16.0, end_time - fairway::Seconds{18000}, end_time);
    const double kubernetes = plugin.usage(1, header.settings.now);
    EXPECT_NEAR(model.kubernetes_usage(*u1), kubernetes, 1e-9 * kubernetes);
    EXPECT_NEAR(model.tree().node(*u1).own_usage, 40.0 + kubernetes, 1e-9 * kubernetes);
    EXPECT_DOUBLE_EQ(model.own_totals(*u1).kube_gpu_seconds, 2 * 18000);
    EXPECT_DOUBLE_EQ(model.own_totals(*u1).gpu_seconds, 0);
    EXPECT_DOUBLE_EQ(model.own_totals(*u1).kube_billing_seconds, 16 * 18000);
    // The plot draws the Kubernetes part pale on top of the account's Slurm usage.
    EXPECT_NE(render_report_svg(model).find("class=\"kubernetes\""), std::string::npos);
    auto slurm_only = text_file(kTwoUsers);
    ReportModel without;
    without.finish(read_offline_input(slurm_only.get(), "test.json", without).settings);
    EXPECT_EQ(render_report_svg(without).find("class=\"kubernetes\""), std::string::npos);
}

TEST(ReportModel, ARunThatStartsAfterItEndsIsAnInputError) {
    EXPECT_THROW(model_of(R"({"now": "2026-01-01T00:00:00Z", "associations": [{"account": "A", "parent": "root"}],
      "usage": [{"account": "A", "start": "2025-12-31T12:00:01Z", "end": "2025-12-31T12:00:00Z",
                 "billing_seconds": 1}]})"),
                 fairway::InputError);
}

TEST(ReportModel, UsageBeforeSettingsIsHeldAndStillCounted) {
    ReportModel model =
        model_of(R"({"associations": [{"account": "A", "parent": "root"}, {"account": "A", "user": "u"}],
      "usage": [{"account": "A", "user": "u", "end": "2026-01-01T00:00:00Z", "billing_seconds": 7}],
      "now": "2026-01-01T00:00:00Z", "window": "14-0", "half_life": "7-0"})");
    EXPECT_DOUBLE_EQ(model.tree().node(*model.find("A", "u")).own_usage, 7.0);
}

TEST(ReportModel, RecordsAfterNowAreRejected) {
    EXPECT_THROW(model_of(R"({"now": "2026-01-01T00:00:00Z", "associations": [{"account": "A", "parent": "root"}],
      "usage": [{"account": "A", "end": "2026-01-02T00:00:00Z", "billing_seconds": 1}]})"),
                 fairway::InputError);
}

TEST(SshareFormat, FixedWidthDoublesFollowSlurmsPrintFields) {
    EXPECT_EQ(sshare_fixed_double(0.5, 10), "  0.500000");
    EXPECT_EQ(sshare_fixed_double(0.5, -11), "0.500000   ");
    EXPECT_EQ(sshare_fixed_double(12345678.9, 10), "1.2346e+07");  // too wide for %f: exponent form fits
    EXPECT_EQ(sshare_fixed_double(1.0 / 0.0, 10), "       inf");
}

TEST(SshareFormat, TableIndentsLikeSshareAndKeepsSshareColumnsFirst) {
    ReportModel model = model_of(kTwoUsers);
    std::vector<SummaryRow> rows = summary_rows(model, model.fair_share());
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(indented_account(rows[0]), "root");
    EXPECT_EQ(indented_account(rows[1]), " A");
    EXPECT_EQ(indented_account(rows[2]), "  A");
    std::ostringstream out;
    print_summary_table(out, rows, TableStyle{true, true});
    std::string header = out.str().substr(0, out.str().find('\n'));
    EXPECT_EQ(header.rfind("Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS|", 0),
              0u);
    EXPECT_NE(out.str().find("\n  A|u2|parent|"), std::string::npos);
    std::ostringstream fixed;
    print_summary_table(fixed, rows, TableStyle{false, true});
    EXPECT_EQ(fixed.str().rfind("Account              ", 0), 0u);
    EXPECT_NE(fixed.str().find("-------------------- ---------- "), std::string::npos);
}

TEST(ReportOptions, ParsesSubcommandsAndRejectsNonsense) {
    Options o = parse_options({"forecast", "alice", "--level=0.7", "--input", "f.json", "--json"});
    EXPECT_EQ(o.command, Command::forecast);
    EXPECT_EQ(o.target, "alice");
    EXPECT_DOUBLE_EQ(o.level, 0.7);
    EXPECT_EQ(o.input, "f.json");
    EXPECT_TRUE(o.json);
    EXPECT_EQ(parse_options({}).command, Command::summary);
    EXPECT_EQ(parse_options({"-P", "-n"}).parsable, true);
    for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{{"explain"},
                                                                              {"forecast", "a", "--level", "1.5"},
                                                                              {"plot"},
                                                                              {"--json", "-P"},
                                                                              {"--input"},
                                                                              {"summary", "x"},
                                                                              {"--what"}})
        EXPECT_THROW(parse_options(bad), UsageError);
    EXPECT_TRUE(is_job_id("123"));
    EXPECT_TRUE(is_job_id("123_4"));
    EXPECT_FALSE(is_job_id("alice"));
    EXPECT_FALSE(is_job_id("12a"));
}
