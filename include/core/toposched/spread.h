/* cpumask_local_spread(i, node): "the i-th CPU nearest to node", in the three flavours
 * kernels have had: plain (before 6.3), nearest-node (the 2019 proposal) and numa-hops
 * (6.3+, sched_numa_find_nth_cpu). */
#ifndef TOPOSCHED_SPREAD_H
#define TOPOSCHED_SPREAD_H

#include "toposched/cpumask.h"
#include "toposched/error.h"
#include "toposched/numa_levels.h"

enum ts_spread_policy { TS_SPREAD_PLAIN, TS_SPREAD_NEAREST_NODE, TS_SPREAD_NUMA_HOPS };

int ts_spread_policy_parse(const char *name, enum ts_spread_policy *out, struct ts_error *err);
const char *ts_spread_policy_name(enum ts_spread_policy p);

/* i wraps modulo weight(online); node may be TS_NUMA_NO_NODE. Returns a CPU, or
 * online->nr_cpus when online is empty. */
int ts_cpumask_local_spread(const struct ts_numa_levels *nl, const struct ts_cpumask *online,
			    enum ts_spread_policy policy, int i, int node);

/* The n-th CPU of cpus in hop order from node (sched_numa_find_nth_cpu). */
int ts_sched_numa_find_nth_cpu(const struct ts_numa_levels *nl, const struct ts_cpumask *cpus,
			       int n, int node);

/* sched_numa_hop_mask(): CPUs at most `hops` levels from node (cumulative); NULL when
 * hops is past the last level. */
const struct ts_cpumask *ts_sched_numa_hop_mask(const struct ts_numa_levels *nl, int node,
						int hops);

/* for_each_numa_hop_mask(mask, node): yields hop 0, 1, ... masks; with TS_NUMA_NO_NODE
 * it yields `online` once. */
#define ts_for_each_numa_hop_mask(nl, mask, node, online, hop)                                     \
	for ((hop) = 0, (mask) = (node) == TS_NUMA_NO_NODE                                         \
					 ? (online)                                                \
					 : ts_sched_numa_hop_mask((nl), (node), 0);                \
	     (mask);                                                                               \
	     (mask) = (node) == TS_NUMA_NO_NODE ? NULL                                             \
						: ts_sched_numa_hop_mask((nl), (node), ++(hop)))

#endif
