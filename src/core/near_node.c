/* ts_select_near_node() (near_node.h): cpumask_local_spread(i, node) over the scheduled
 * CPUs a new task may use. */
#include "toposched/near_node.h"

#include <errno.h>
#include <string.h>

#include "toposched/sched.h"
#include "toposched/spread.h"

int ts_select_near_node(struct ts_sched *s, const struct ts_cpumask *allowed, int node,
			unsigned int i, struct ts_placement *pl, struct ts_error *err)
{
	int nr = s->topo->nr_nodes;
	if (node < TS_NUMA_NO_NODE || node >= nr)
		return ts_error_set(err, -EINVAL, "node %d does not exist (%d nodes)", node, nr);
	struct ts_cpumask *online = ts_cpumask_dup(s->dom->cpu_map);
	if (!online)
		return ts_error_set(err, -ENOMEM, "out of memory");
	if (allowed)
		ts_cpumask_and(online, online, allowed);
	int weight = ts_cpumask_weight(online);
	if (!weight) {
		ts_cpumask_free(online);
		return ts_error_set(err, -EINVAL, "no allowed CPU is scheduled");
	}
	memset(pl, 0, sizeof(*pl));
	pl->cpu = ts_cpumask_local_spread(&s->dom->numa, online, TS_SPREAD_NUMA_HOPS,
					  (int)(i % (unsigned int)weight), node);
	pl->reason = TS_PLACE_NEAR_NODE_SPREAD;
	pl->target = pl->cpu;
	ts_cpumask_free(online);
	return 0;
}
