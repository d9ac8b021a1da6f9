// What differs in libslurm's public API between the releases the bridge builds for (22.05 and
// 24.11): the only place in bridge/ that tests SLURM_VERSION_NUMBER.
#pragma once

extern "C" {
#include <slurm/slurm.h>
}

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 2, 0)
// 23.02 renamed List and ListIterator (pointers) to list_t and list_itr_t (the structs).
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif
