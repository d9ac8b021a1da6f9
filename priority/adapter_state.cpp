#include "priority/adapter_state.h"

#include "common/error.h"
#include "priority/usage_recovery.h"

namespace fairway::priority {

void UsageState::charge_all(const std::vector<UsageCharge>& charges) {
    if (!book || charges.empty()) return;
    for (const UsageCharge& charge : charges) {
        try {
            book->charge_span(charge.owners, charge.rates, charge.span.from, charge.span.to);
        } catch (const InputError& e) {
            error("priority/fairway: usage of association %u not charged: %s", charge.owners.association, e.what());
        }
    }
    book_changed = true;
}

void UsageState::forget(fairshare::Owner owner, std::uint32_t id, time_t now) {
    book->forget(owner, id, fairshare::from_unix_seconds(now));
    book_changed = true;
}

void AdapterState::save_state() {
    std::string path, bytes, resets_path, forgotten_path;
    std::optional<fairshare::UsageResets> resets;
    std::optional<fairshare::ForgottenRuns> forgotten;
    {
        const auto state = usage.lock();
        // A provisional book is not saved: a restart before it is made again rebuilds instead.
        if (!state->book || !state->settings || state->settings->state_file.empty() || state->rebuild_pending ||
            state->rebuilt_provisionally)
            return;
        path = state->settings->state_file;
        bytes = state->book->serialize();
        if (!(state->book->resets() == state->saved_resets)) resets = state->book->resets();
        resets_path = state->settings->resets_file;
        state->forgotten_runs.drop_before(fairshare::usage_horizon(state->book->config(), state->book->clock()));
        if (!(state->forgotten_runs == state->saved_forgotten_runs)) forgotten = state->forgotten_runs;
        forgotten_path = state->settings->forgotten_runs_file;
        state->book_changed = false;
    }
    const bool saved = (!resets || save_usage_state(resets_path, resets->serialize())) &&
                       (!forgotten || save_usage_state(forgotten_path, forgotten->serialize())) &&
                       save_usage_state(path, bytes);
    const auto state = usage.lock();
    if (saved && resets) state->saved_resets = std::move(*resets);
    if (saved && forgotten) state->saved_forgotten_runs = std::move(*forgotten);
    if (!saved) state->book_changed = true;
}

}  // namespace fairway::priority
