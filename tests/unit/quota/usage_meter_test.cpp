#include "quota/usage_meter.h"

#include <gtest/gtest.h>

#include "common/iso8601.h"

namespace fairway::quota {
namespace {

TimePoint at(const char* iso) { return TimePoint{parse_iso8601(iso)->time_since_epoch()}; }

BridgeConfig config() {
    BridgeConfig c;
    c.groups.push_back(
        QuotaGroup{.name = "physics", .accounts = {"physics"}, .namespaces = {"team-a", "team-b"}, .gpus = 8});
    c.usage.gpu_billing = 8;
    c.usage.associations["team-b"] = "physics/alice";
    return c;
}

nlohmann::json workload(const std::string& ns, const std::string& name, long gpus, const char* reserved,
                        const char* finished = nullptr, const char* released = nullptr) {
    nlohmann::json conditions = nlohmann::json::array();
    if (reserved || released)
        conditions.push_back({{"type", "QuotaReserved"},
                              {"status", released ? "False" : "True"},
                              {"lastTransitionTime", released ? released : reserved}});
    if (finished) conditions.push_back({{"type", "Finished"}, {"status", "True"}, {"lastTransitionTime", finished}});
    nlohmann::json container = {{"name", "c"},
                                {"resources", {{"requests", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}};
    return {{"metadata", {{"namespace", ns}, {"name", name}, {"uid", name + "-uid"}}},
            {"spec",
             {{"queueName", "fairway"},
              {"podSets", {{{"name", "p"}, {"count", 1}, {"template", {{"spec", {{"containers", {container}}}}}}}}}}},
            {"status", {{"conditions", conditions}}}};
}

double gpu_seconds(const std::vector<fairshare::ExternalCharge>& charges) {
    double total = 0;
    for (const auto& c : charges) total += static_cast<double>(c.gpus * (c.end - c.start).count());
    return total;
}

TEST(UsageMeter, AHeldReservationIsChargedOncePerSecondUntilItEnds) {
    UsageMeter meter(config());
    const auto held = nlohmann::json::array({workload("team-a", "w", 4, "2026-12-01T10:00:00Z")});
    auto first = meter.flush(held, at("2026-12-01T10:01:00Z"));
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].association(), "physics");
    EXPECT_EQ(first[0].gpus, 4);
    EXPECT_DOUBLE_EQ(first[0].billing_rate, 32);
    EXPECT_DOUBLE_EQ(gpu_seconds(first), 4 * 60);
    const auto done =
        nlohmann::json::array({workload("team-a", "w", 4, "2026-12-01T10:00:00Z", "2026-12-01T10:01:30Z")});
    EXPECT_DOUBLE_EQ(gpu_seconds(meter.flush(done, at("2026-12-01T10:02:00Z"))), 4 * 30);
    EXPECT_TRUE(meter.flush(done, at("2026-12-01T10:03:00Z")).empty());
}

TEST(UsageMeter, ARestartedMeterContinuesFromItsRecords) {
    const auto held = nlohmann::json::array({workload("team-b", "w", 2, "2026-12-01T10:00:00Z")});
    UsageMeter before(config());
    const auto written = before.flush(held, at("2026-12-01T10:01:00Z"));
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].association(), "physics/alice");
    UsageMeter after(config());
    for (const auto& c : written) after.remember(c);
    // Evicted while the bridge was away: charged up to the eviction, from where the records stop.
    const auto evicted = nlohmann::json::array({workload("team-b", "w", 2, nullptr, nullptr, "2026-12-01T10:05:00Z")});
    const auto charges = after.flush(evicted, at("2026-12-01T10:10:00Z"));
    EXPECT_DOUBLE_EQ(gpu_seconds(charges), 2 * 240);
    EXPECT_TRUE(after.flush(evicted, at("2026-12-01T10:11:00Z")).empty());
}

TEST(UsageMeter, PendingForeignAndGpuLessWorkloadsAreNotCharged) {
    UsageMeter meter(config());
    const auto items = nlohmann::json::array({workload("team-a", "pending", 4, nullptr),
                                              workload("elsewhere", "w", 4, "2026-12-01T10:00:00Z"),
                                              workload("team-a", "cpu", 0, "2026-12-01T10:00:00Z")});
    EXPECT_TRUE(meter.flush(items, at("2026-12-01T11:00:00Z")).empty());
}

BridgeConfig volcano_config() {
    BridgeConfig c = config();
    c.kubernetes.backend = Backend::volcano;
    c.groups.push_back(QuotaGroup{.name = "biology", .accounts = {"biology"}, .namespaces = {}, .gpus = 4});
    return c;
}

// A PodGroup as Volcano's scheduler shows it: `phase`, and the Scheduled condition it writes when
// the gang is ready (nullptr: none).
nlohmann::json podgroup(const std::string& ns, const std::string& queue, long gpus, const char* phase,
                        const char* scheduled = nullptr) {
    nlohmann::json status = {{"phase", phase}};
    if (scheduled)
        status["conditions"] = {{{"type", "Scheduled"}, {"status", "True"}, {"lastTransitionTime", scheduled}}};
    return {
        {"metadata", {{"namespace", ns}, {"name", "gang"}, {"uid", "gang-uid"}}},
        {"spec", {{"queue", queue}, {"minMember", 2}, {"minResources", {{"nvidia.com/gpu", std::to_string(gpus)}}}}},
        {"status", status}};
}

TEST(UsageMeter, AVolcanoRunIsChargedFromItsScheduledTimeToTheLastFlushThatSawItRunning) {
    UsageMeter meter(volcano_config());
    const auto running =
        nlohmann::json::array({podgroup("labs", "fairway-biology", 4, "Running", "2026-12-01T10:00:00Z")});
    auto first = meter.flush(running, at("2026-12-01T10:01:00Z"));
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].association(), "biology");  // by its Queue: the group lists no namespace
    EXPECT_DOUBLE_EQ(gpu_seconds(first), 4 * 60);
    // Volcano rewrites the condition's time while the run goes on: the run keeps its start.
    const auto rewritten =
        nlohmann::json::array({podgroup("labs", "fairway-biology", 4, "Unknown", "2026-12-01T10:01:30Z")});
    EXPECT_DOUBLE_EQ(gpu_seconds(meter.flush(rewritten, at("2026-12-01T10:02:00Z"))), 4 * 60);
    const auto completed = nlohmann::json::array({podgroup("labs", "fairway-biology", 4, "Completed")});
    EXPECT_TRUE(meter.flush(completed, at("2026-12-01T10:03:00Z")).empty());
    EXPECT_TRUE(meter.flush(completed, at("2026-12-01T10:04:00Z")).empty());
    // Run again (after a preemption) with the old condition still there: it starts when first seen.
    const auto again =
        nlohmann::json::array({podgroup("labs", "fairway-biology", 4, "Running", "2026-12-01T10:01:30Z")});
    EXPECT_TRUE(meter.flush(again, at("2026-12-01T10:05:00Z")).empty());
    EXPECT_DOUBLE_EQ(gpu_seconds(meter.flush(again, at("2026-12-01T10:06:00Z"))), 4 * 60);
}

TEST(UsageMeter, ARestartedMeterChargesAVolcanoRunThatEndedMeanwhileNoFurther) {
    const auto running = nlohmann::json::array({podgroup("team-b", "other", 2, "Running", "2026-12-01T10:00:00Z")});
    UsageMeter before(volcano_config());
    const auto written = before.flush(running, at("2026-12-01T10:01:00Z"));
    ASSERT_EQ(written.size(), 1u);
    EXPECT_EQ(written[0].association(), "physics/alice");  // usage.associations names its namespace
    UsageMeter after(volcano_config());
    for (const auto& c : written) after.remember(c);
    EXPECT_DOUBLE_EQ(gpu_seconds(after.flush(running, at("2026-12-01T10:02:00Z"))), 2 * 60);
    const auto completed = nlohmann::json::array({podgroup("team-b", "other", 2, "Completed")});
    UsageMeter later(volcano_config());
    for (const auto& c : written) later.remember(c);
    EXPECT_TRUE(later.flush(completed, at("2026-12-01T10:09:00Z")).empty());
}

TEST(UsageMeter, PendingForeignAndGpuLessPodGroupsAreNotCharged) {
    UsageMeter meter(volcano_config());
    const auto items = nlohmann::json::array(
        {podgroup("labs", "fairway-biology", 4, "Inqueue"), podgroup("labs", "fairway-biology", 4, "Pending"),
         podgroup("labs", "elsewhere", 4, "Running", "2026-12-01T10:00:00Z"),
         podgroup("labs", "fairway-biology", 0, "Running", "2026-12-01T10:00:00Z")});
    EXPECT_TRUE(meter.flush(items, at("2026-12-01T11:00:00Z")).empty());
}

// A rebuild sees Kubernetes usage only in the spool: the records must outlast the window and one
// bucket (a 14-day window's bucket is 3.36 h, so 15 days).
TEST(SpoolKeep, RecordsMustOutlastTheWindowAndOneBucket) {
    const Seconds day{86400};
    const fairshare::LedgerConfig two_weeks{.window = 14 * day, .half_life = 7 * day};
    EXPECT_EQ(spool_keep_shortfall(30 * day, two_weeks), "");
    EXPECT_EQ(spool_keep_shortfall(15 * day, two_weeks), "");
    const std::string short_keep = spool_keep_shortfall(14 * day, two_weeks);
    EXPECT_NE(short_keep.find("usage.keep_days (14) is shorter than priority/fairway's window (1209600 s"),
              std::string::npos)
        << short_keep;
    EXPECT_NE(short_keep.find("keep at least 15 days"), std::string::npos) << short_keep;
    const fairshare::LedgerConfig infinite{.window = fairshare::kInfiniteWindow, .half_life = 7 * day};
    EXPECT_NE(spool_keep_shortfall(366 * day, infinite).find("the window is infinite"), std::string::npos);
}

}  // namespace
}  // namespace fairway::quota
