// Slurm hostlist expressions ("node[1-3,5]", "gpu[01-02]-ib[1-2],login1"), read without libslurm
// so MASTER_ADDR can be derived in the pure core and unit-tested.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fairway::binding {

// Expands every host, in Slurm's order (left to right; several bracket groups in one name form
// their cartesian product, leftmost group outermost). Zero padding is kept ("n[08-10]" -> n08 n09 n10).
// Throws fairway::InputError (key "hostlist") for unbalanced brackets, bad ranges, or more than
// `max_hosts` names.
std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t max_hosts = 65536);

// The first host of the expression without expanding the rest (cheap for huge node lists).
std::string first_host(std::string_view expression);

}  // namespace fairway::binding
