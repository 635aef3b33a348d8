/* Placing a new task near a node: the host asks for "the i-th CPU nearest to node" (a
 * driver's queue i, a worker pool spread over a node), as the kernel's
 * cpumask_local_spread(i, node) answers it in its NUMA-hops flavour
 * (sched_numa_find_nth_cpu(), v6.3+). The core picks the CPU and says why; the host
 * applies it (ts_wake_up_new_task_on()). */
#ifndef TOPOSCHED_NEAR_NODE_H
#define TOPOSCHED_NEAR_NODE_H

#include "toposched/cpumask.h"
#include "toposched/error.h"

struct ts_sched;
struct ts_placement;

/* The i-th (modulo their number) of the scheduled CPUs in `allowed` (NULL = every one) in
 * hop order from node (TS_NUMA_NO_NODE: in CPU order): pl->cpu (and pl->target) = that CPU,
 * pl->reason = TS_PLACE_NEAR_NODE_SPREAD. 0, or -EINVAL (a node that does not exist, no allowed CPU
 * scheduled) / -ENOMEM with the reason in err. Lock-free, like every placement. */
int ts_select_near_node(struct ts_sched *s, const struct ts_cpumask *allowed, int node,
			unsigned int i, struct ts_placement *pl, struct ts_error *err);

#endif
