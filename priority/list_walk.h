// Walks Slurm Lists, the one way priority/ does: walk_list (or list_items, built on it), never a
// list_itr_t loop, which an exception would leave with the list's lock held. Lists fairway creates
// are held in an OwnedList. list_for_each takes the list's lock once for the whole walk (list_next takes
// and releases it for every element: ~30% of a pass with 10,000 pending jobs).
//
// A pass over the job list is bound by memory, not arithmetic: each pending job costs about a dozen
// scattered cache lines (its record, its details, its prio_factors) and little computation. Visited
// one by one, every miss waits for the one before. So a pass copies the element pointers once
// (list_items) and visits them while asking the memory system for the records of the jobs a few
// places ahead (visit_prefetching): their misses overlap with the work on the current one.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <vector>

#include "priority/slurm_api.h"

namespace fairway::priority {

// Calls visit(T*) for each element. Nothing may unwind through Slurm's C frames: an exception that
// escapes `visit` ends the walk and is logged with `what`. Caller holds the locks the list needs.
template <typename T, typename Visit>
void walk_list(list_t* list, const char* what, Visit&& visit) {
    struct Context {
        Visit& visit;
        const char* what;
    } context{visit, what};
    list_for_each(
        list,
        [](void* item, void* arg) {
            auto& context = *static_cast<Context*>(arg);
            try {
                context.visit(static_cast<T*>(item));
                return 0;
            } catch (const std::exception& e) {
                error("priority/fairway: %s stopped: %s", context.what, e.what());
                return -1;
            }
        },
        &context);
}

// Whether the list holds an element equal to `wanted` (a list of T).
template <typename T>
bool list_holds(list_t* list, const T& wanted, const char* what) {
    bool found = false;
    walk_list<T>(list, what, [&](const T* item) { found = found || *item == wanted; });
    return found;
}

// A list fairway created (list_create, or filled by a Slurm call), destroyed with its elements
// however the scope is left.
struct ListDestroyer {
    void operator()(list_t* list) const { FREE_NULL_LIST(list); }
};
using OwnedList = std::unique_ptr<list_t, ListDestroyer>;

// Requests the cache line holding `address` (a hint: never faults, even on a bad address).
inline void prefetch(const void* address) { __builtin_prefetch(address, 0, 3); }

// The same for a line about to be written: it arrives owned, with no second request to upgrade it.
inline void prefetch_for_write(const void* address) { __builtin_prefetch(address, 1, 3); }

// Requests every cache line of *object (a small object may straddle one more line than its size
// suggests), to read it or, with for_write, to write it.
template <typename T>
void prefetch_whole(const T* object, bool for_write = false) {
    if (!object) return;
    const auto* bytes = reinterpret_cast<const char*>(object);
    for (size_t offset = 0; offset < sizeof(T); offset += 64)
        for_write ? prefetch_for_write(bytes + offset) : prefetch(bytes + offset);
    for_write ? prefetch_for_write(bytes + sizeof(T) - 1) : prefetch(bytes + sizeof(T) - 1);
}

// Copies the list's element pointers (one list_for_each, touching only the list's nodes). The
// pointers stay valid only while the caller holds the locks the list needs.
template <typename T>
std::vector<T*> list_items(list_t* list, const char* what) {
    std::vector<T*> items;
    items.reserve(static_cast<size_t>(list_count(list)));
    walk_list<T>(list, what, [&](T* item) { items.push_back(item); });
    return items;
}

// How far ahead visit_prefetching asks for a record: enough visits of a few hundred cycles each to
// cover a miss's latency.
inline constexpr size_t prefetch_ahead = 8;

// Calls visit(T*) for each item in order, after prefetcher.record(T*) was called `ahead` items
// earlier and prefetcher.dependents(T*) half that (what a record points to can only be requested
// once the record itself has arrived). An exception that escapes `visit` ends the walk and is
// logged with `what`; then it returns false.
template <size_t ahead = prefetch_ahead, typename T, typename Prefetcher, typename Visit>
bool visit_prefetching(const std::vector<T*>& items, const char* what, const Prefetcher& prefetcher, Visit&& visit) {
    constexpr size_t near = ahead / 2;
    try {
        for (size_t i = 0; i < items.size(); ++i) {
            if (i + ahead < items.size()) prefetcher.record(items[i + ahead]);
            if (i + near < items.size()) prefetcher.dependents(items[i + near]);
            visit(items[i]);
        }
        return true;
    } catch (const std::exception& e) {
        error("priority/fairway: %s stopped: %s", what, e.what());
        return false;
    }
}

}  // namespace fairway::priority
