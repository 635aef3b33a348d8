/* NUMA distance levels and hop masks, as sched_init_numa() builds them: the sorted
 * distinct distances between CPU-bearing nodes, and for each level and node the CPUs of
 * all nodes within that distance. Used by the NODE/NUMA domains, cpumask_local_spread()
 * and, later, NUMA balancing. */
#ifndef TOPOSCHED_NUMA_LEVELS_H
#define TOPOSCHED_NUMA_LEVELS_H

#include "toposched/cpumask.h"
#include "toposched/topology.h"

#define TS_NUMA_NO_NODE	    (-1)
#define TS_RECLAIM_DISTANCE 30 /* node_reclaim_distance default */

enum ts_numa_topology_type { TS_NUMA_DIRECT, TS_NUMA_GLUELESS_MESH, TS_NUMA_BACKPLANE };

struct ts_numa_levels {
	const struct ts_topology *topo;
	int nr_levels;	  /* sched_domains_numa_levels */
	int *distance;	  /* [nr_levels] ascending; distance[0] == 10 */
	int max_distance; /* sched_max_numa_distance */
	enum ts_numa_topology_type type;
	/* masks[level * nr_nodes + node]: NULL for CPU-less nodes, as in the kernel */
	struct ts_cpumask **masks;
	struct ts_cpumask *node_has_cpu; /* not a CPU mask: bit n = node n has CPUs */
};

int ts_numa_levels_init(struct ts_numa_levels *nl, const struct ts_topology *t,
			struct ts_error *err);
void ts_numa_levels_destroy(struct ts_numa_levels *nl);

static inline const struct ts_cpumask *ts_numa_mask(const struct ts_numa_levels *nl, int level,
						    int node)
{
	return nl->masks[level * nl->topo->nr_nodes + node];
}

/* numa_nearest_node(node, N_CPU): node itself if it has CPUs, else the nearest node that
 * has (ties to the lower id). */
int ts_numa_nearest_node(const struct ts_numa_levels *nl, int node);
const char *ts_numa_topology_type_name(enum ts_numa_topology_type type);

#endif
