#include "sim/easy_backfill.h"

#include <algorithm>

namespace fairway::sim {

std::optional<std::pair<std::int64_t, Need>> earliest_fit(Need free, std::vector<RunningSlot> running, const Need& need,
                                                          std::int64_t now) {
    if (need.fits_in(free)) return std::pair{now, free - need};
    std::sort(running.begin(), running.end(),
              [](const RunningSlot& a, const RunningSlot& b) { return a.expected_end < b.expected_end; });
    for (std::size_t i = 0; i < running.size(); ++i) {
        free += running[i].need;
        // Every job that ends at the same instant frees its resources then too.
        while (i + 1 < running.size() && running[i + 1].expected_end == running[i].expected_end)
            free += running[++i].need;
        if (need.fits_in(free)) return std::pair{std::max(now, running[i].expected_end), free - need};
    }
    return std::nullopt;
}

PassPlan plan_easy_pass(Need free, const std::function<std::vector<RunningSlot>()>& running,
                        std::span<const Candidate> queue, std::int64_t now, std::size_t backfill_depth) {
    PassPlan plan;
    std::size_t next = 0;
    for (; next < queue.size() && queue[next].need.fits_in(free); ++next) {
        free -= queue[next].need;
        plan.started.push_back(next);
        plan.backfilled.push_back(false);
    }
    if (next == queue.size()) return plan;
    // Jobs started by this pass hold their resources until their limits like any running job.
    std::vector<RunningSlot> busy = running();
    for (std::size_t index : plan.started) busy.push_back({queue[index].need, now + queue[index].limit});
    auto fit = earliest_fit(free, std::move(busy), queue[next].need, now);
    if (!fit) return plan;  // larger than the cluster: nothing can be planned around it
    Reservation reservation{next, fit->first, fit->second};
    const std::size_t last = std::min(queue.size(), next + 1 + backfill_depth);
    for (std::size_t i = next + 1; i < last && (free.cores > 0 || free.gpus > 0); ++i) {
        const Candidate& job = queue[i];
        if (!job.need.fits_in(free)) continue;
        const bool ends_before_shadow = now + job.limit <= reservation.shadow_time;
        if (!ends_before_shadow && !job.need.fits_in(reservation.spare)) continue;
        free -= job.need;
        if (!ends_before_shadow) reservation.spare -= job.need;
        plan.started.push_back(i);
        plan.backfilled.push_back(true);
    }
    plan.reservation = reservation;
    return plan;
}

}  // namespace fairway::sim
