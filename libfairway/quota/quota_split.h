// QuotaSplit: the shared-quota protocol for one quota group, as a pure state machine.
//
// A group owns Q GPUs. Slurm enforces L_s (association GrpTRES=gres/gpu) and Kubernetes enforces
// L_k (ClusterQueue nominalQuota or Volcano Queue capability). The bridge reads both sides, asks
// decide() which limits to write, writes them, and tells wrote(). Guarantees (see README.md):
//   * L_s + L_k <= Q at every instant, counting every value a limit may hold while a write is in
//     doubt (issued, not yet read back) — so decreases are confirmed before the room is reused;
//   * a limit never goes below its side's current use;
//   * idle headroom is split by pending demand; a side with demand gets it within two periods;
//   * nothing is raised while either side's data is stale or unreachable, and nothing is written
//     during the first write_timeout after start (a previous incarnation's write may still land);
//   * each side is written at most once per write_timeout, so at most one of our writes to it is
//     ever in flight (write_timeout <= the reconcile period keeps the two-period promise);
//   * a decrease counts only once the enforcing side shows it (Slurm: slurmctld, not slurmdbd;
//     Kueue: the controller has observed the generation), and the other side is raised only then;
//   * a write conditional on a version is never assumed lost: it is in doubt until the object
//     shows its value or has moved past that version; a raise in doubt that no longer fits (the
//     quota lowered, the other side raised outside the bridge) is fenced off, not repeated;
//   * a new term (a fresh QuotaSplit) fences off its predecessors' conditional writes, which may
//     land however late: nothing is raised until a read shows the versioned side at another
//     version than the first one this term read (decide() asks for a fence write on it when
//     nothing else moves it), so every write conditional on an earlier version can never land.
// Time is a parameter (seconds on any monotonic scale); nothing here reads a clock.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace fairway::quota {

enum class Side { slurm = 0, kubernetes = 1 };
constexpr std::array<Side, 2> kBothSides{Side::slurm, Side::kubernetes};
const char* side_name(Side side);

// One value per side, indexed by Side rather than by a bare 0 or 1.
template <typename T>
struct PerSide {
    std::array<T, 2> by_side{};
    T& operator[](Side side) { return by_side[static_cast<std::size_t>(side)]; }
    const T& operator[](Side side) const { return by_side[static_cast<std::size_t>(side)]; }
    auto operator<=>(const PerSide&) const = default;
};

using Instant = std::int64_t;  // seconds

// What one read of one side saw: the enforced limit, use and pending demand, in GPUs.
struct SideReading {
    Instant read_at = 0;
    long limit = 0;
    long used = 0;
    long pending = 0;
    // The most the side may come to hold without another write of ours, when that exceeds
    // max(limit, used): Kueue enforces quota per flavor, and a flavor whose use sits above its
    // quota does not lend the excess to the others. -1: max(limit, used).
    long holdable = -1;
    // Whether the side's enforcer has taken `limit` (Kueue: its controller has observed the
    // ClusterQueue's generation). Until it has, it may still enforce any earlier value: the reading
    // narrows nothing and the other side is not raised.
    bool in_force = true;
    // A limit stored but not yet in force, which will come into force without another write
    // (Slurm: slurmdbd's GrpTRES while slurmctld still enforces `limit`); -1: none.
    long stored = -1;
    // The stored object's version (Kubernetes resourceVersion) a write is made conditional on;
    // empty where the side has none (Slurm).
    std::string version = {};
    auto operator<=>(const SideReading&) const = default;
};

struct SplitTiming {
    Instant stale_after = 30;   // older readings are stale
    Instant write_timeout = 5;  // a write not seen by then will never land
};

// Everything the protocol remembers about one side; plain and ordered so exhaustive tests can
// put whole states in a set.
struct SideState {
    std::optional<SideReading> last;
    long lowest = 0, highest = 0;  // the enforced limit is somewhere in [lowest, highest]
    std::optional<long> in_doubt;  // a written value not yet read back
    Instant written_at = 0;        // when our last write ended (or our start: a predecessor's write)
    std::string written_on;        // the version our write in doubt was conditional on; empty: none
    auto operator<=>(const SideState&) const = default;
};

// This term's fence against its predecessors' conditional writes (see QuotaSplit).
struct TermFence {
    std::string first_version;          // the versioned side's version at this term's first read
    bool closed = false;                // a read has shown another version, or there is no versioned object
    std::optional<Instant> written_at;  // our last fence write (this one or another) ended then
    auto operator<=>(const TermFence&) const = default;
};

struct SplitState {
    long quota = 0;
    Instant started_at = 0;
    PerSide<SideState> sides;
    TermFence fence;
    auto operator<=>(const SplitState&) const = default;
};

enum class Hold { none, stale, starting, write_in_doubt, not_in_force, overcommitted };
const char* hold_name(Hold hold);

struct SplitDecision {
    PerSide<std::optional<long>> write;  // new limits, decreases before increases
    PerSide<long> target;                // where the limits are heading
    Hold hold = Hold::none;              // why something was held back, if it was
    // Make the versioned side's object move off this version (a write that changes no limit,
    // conditional on it), then tell fenced(): this term's fence, or the fence against our own raise
    // in doubt that no longer fits.
    std::optional<std::string> fence_on;
    bool writes_anything() const { return write[Side::slurm] || write[Side::kubernetes]; }
};

// The pure target split: use first, then free GPUs by pending demand, then the idle rest evenly.
PerSide<long> split_targets(long quota, const PerSide<SideReading>& readings);

class QuotaSplit {
public:
    QuotaSplit(long quota, SplitTiming timing, Instant now);
    // Resumes from a saved state (exhaustive tests branch from every state they reach).
    QuotaSplit(SplitTiming timing, SplitState state) : timing_(timing), state_(std::move(state)) {}

    void observe(Side side, const SideReading& reading);
    // A write of `value` ended (answered or given up) at `now`; its outcome is known only when read
    // back. `on_version`: the version it was conditional on. Such a write can land only while the
    // object is at that version, so it stays in doubt until a read shows the value or another
    // version, however late (decide() then repeats it, on the same version). An unconditional
    // write is assumed lost once it has not been read back write_timeout after it ended.
    void wrote(Side side, long value, Instant now, std::string on_version = {});
    // The fence write decide() asked for ended (answered or given up) at `now`: the next one, if
    // any is still needed, comes write_timeout later.
    void fenced(Instant now) { state_.fence.written_at = now; }
    SplitDecision decide(Instant now) const;

    void set_quota(long quota) { state_.quota = quota; }
    const SplitState& state() const { return state_; }
    // The most a side may be using or allowed right now: what the other side's raise must leave room for
    // (with a holdable reading: that, plus any raise of ours that may still land).
    long bound(Side side) const;
    // Whether a reading's limit (and stored limit) is one the protocol counted possible (the range
    // of the limit, with any write of ours in doubt); false: someone else changed it. True before
    // any read.
    bool explains(Side side, const SideReading& reading) const;
    // Whether a side's limit is settled (fresh reading, no write in doubt, none within write_timeout),
    // so that rewriting it at its current value can race with nothing: the only time the bridge
    // may rewrite a limit's carrier (e.g. a ClusterQueue whose flavors changed) outside decide().
    bool settled(Side side, Instant now) const;

private:
    bool fresh(Side side, Instant now) const;
    void note_version(const std::string& version);
    bool settled_after_start(Side side) const;
    bool write_resolved(const SideState& s, const SideReading& reading) const;
    Hold raise_hold(Side side) const;
    bool still_fits(Side side) const;

    SplitTiming timing_;
    SplitState state_;
};

}  // namespace fairway::quota
