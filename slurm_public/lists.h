// Slurm's lists as fairway's programs that link libslurm's public API see them (fairway-bridge,
// fairway-report's live reader): the list type names of 23.02 on every release, and one way to own
// a list and to walk one, which an exception in the visitor cannot leave holding the list's lock.
// The plugins, inside slurmctld, walk lists through Slurm's internal API (priority/list_walk.h).
#pragma once

#include <memory>

extern "C" {
#include <slurm/slurm.h>
}

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
// 23.02 renamed List and ListIterator (pointers) to list_t and list_itr_t (the structs).
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

namespace fairway::slurm_public {

// A list that is ours to destroy (libslurm's answers, conditions we build).
using OwnedList = std::unique_ptr<list_t, void (*)(list_t*)>;
inline OwnedList own_list(list_t* list) { return OwnedList(list, &slurm_list_destroy); }

// Calls visit(T*) with each item of `list`, none when it is null.
template <typename T, typename Visit>
void for_each_item(list_t* list, Visit&& visit) {
    if (!list) return;
    const std::unique_ptr<list_itr_t, void (*)(list_itr_t*)> items(slurm_list_iterator_create(list),
                                                                   &slurm_list_iterator_destroy);
    while (void* item = slurm_list_next(items.get())) visit(static_cast<T*>(item));
}

}  // namespace fairway::slurm_public
