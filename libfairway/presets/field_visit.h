// Internal: visits every optional (non-env) field of two requests pairwise, so that merge, diff
// and the loader name each field exactly once. Not part of the public API.
#pragma once

#include "presets/job_request.h"

namespace fairway::presets::detail {

// Calls f(Field, a.member, b.member) for every std::optional member, in Field order. `A` and `B`
// may differ in constness.
template <class A, class B, class F>
void for_each_optional_field(A& a, B& b, F&& f) {
    f(Field::partition, a.partition, b.partition);
    f(Field::qos, a.qos, b.qos);
    f(Field::time, a.time, b.time);
    f(Field::nodes, a.nodes, b.nodes);
    f(Field::ntasks_per_node, a.ntasks_per_node, b.ntasks_per_node);
    f(Field::gpus, a.gpus, b.gpus);
    f(Field::gpus_per_node, a.gpus_per_node, b.gpus_per_node);
    f(Field::gpus_per_task, a.gpus_per_task, b.gpus_per_task);
    f(Field::cpus_per_gpu, a.cpus_per_gpu, b.cpus_per_gpu);
    f(Field::mem_per_gpu, a.mem_per_gpu_mb, b.mem_per_gpu_mb);
    f(Field::constraint, a.constraint, b.constraint);
    f(Field::exclusive, a.exclusive, b.exclusive);
    f(Field::gpu_binding, a.gpu_binding, b.gpu_binding);
    f(Field::distributed_env, a.distributed_env, b.distributed_env);
    f(Field::requeue, a.requeue, b.requeue);
    f(Field::signal, a.signal, b.signal);
}

inline std::size_t index(Field field) { return static_cast<std::size_t>(field); }

}  // namespace fairway::presets::detail
