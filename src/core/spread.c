#include "toposched/spread.h"

#include <errno.h>
#include <string.h>

static const char *const policy_names[] = {
	[TS_SPREAD_PLAIN] = "plain",
	[TS_SPREAD_NEAREST_NODE] = "nearest-node",
	[TS_SPREAD_NUMA_HOPS] = "numa-hops",
};

int ts_spread_policy_parse(const char *name, enum ts_spread_policy *out, struct ts_error *err)
{
	for (size_t i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++) {
		if (strcmp(name, policy_names[i]) == 0) {
			*out = (enum ts_spread_policy)i;
			return 0;
		}
	}
	return ts_error_set(err, -EINVAL,
			    "spread policy '%s': unknown (choose plain, nearest-node or numa-hops)",
			    name);
}

const char *ts_spread_policy_name(enum ts_spread_policy p)
{
	return policy_names[p];
}

const struct ts_cpumask *ts_sched_numa_hop_mask(const struct ts_numa_levels *nl, int node, int hops)
{
	if (node < 0 || node >= nl->topo->nr_nodes || hops < 0 || hops >= nl->nr_levels)
		return NULL;
	return ts_numa_mask(nl, hops, ts_numa_nearest_node(nl, node));
}

int ts_sched_numa_find_nth_cpu(const struct ts_numa_levels *nl, const struct ts_cpumask *cpus,
			       int n, int node)
{
	if (node == TS_NUMA_NO_NODE)
		return ts_cpumask_nth(cpus, n);
	node = ts_numa_nearest_node(nl, node);
	/* Smallest hop whose cumulative mask holds more than n of cpus: the kernel
	 * bsearch()es; the weights grow monotonically, so a binary search is exact. */
	int lo = 0, hi = nl->nr_levels - 1, hop = -1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (ts_cpumask_weight_and(cpus, ts_numa_mask(nl, mid, node)) > n) {
			hop = mid;
			hi = mid - 1;
		} else {
			lo = mid + 1;
		}
	}
	if (hop < 0)
		return cpus->nr_cpus;
	if (hop == 0)
		return ts_cpumask_nth_and(cpus, ts_numa_mask(nl, 0, node), n);
	const struct ts_cpumask *cur = ts_numa_mask(nl, hop, node);
	const struct ts_cpumask *prev = ts_numa_mask(nl, hop - 1, node);
	int w = ts_cpumask_weight_and(cpus, prev);
	/* cpumask_nth_and_andnot(n - w, cpus, cur, prev) */
	int k = n - w;
	int cpu;
	ts_for_each_cpu_and(cpu, cpus, cur)
	{
		if (ts_cpumask_test(prev, cpu))
			continue;
		if (k-- == 0)
			return cpu;
	}
	return cpus->nr_cpus;
}

/* The 2019 proposal: node by node in order of distance (ties to the lower id: only a
 * strictly smaller distance replaces the first unused candidate), CPUs in id order. */
static int nearest_node_spread(const struct ts_numa_levels *nl, const struct ts_cpumask *online,
			       int i, int node)
{
	const struct ts_topology *t = nl->topo;
	bool used[TS_MAX_NODES] = {false};
	for (int round = 0; round < t->nr_nodes; round++) {
		int best = -1;
		for (int k = 0; k < t->nr_nodes; k++) {
			if (used[k])
				continue;
			if (best < 0 ||
			    ts_topo_distance(t, node, k) < ts_topo_distance(t, node, best))
				best = k;
		}
		used[best] = true;
		int cpu;
		ts_for_each_cpu(cpu, online)
		{
			if (t->cpu[cpu].node == best && i-- == 0)
				return cpu;
		}
	}
	return ts_cpumask_nth(online, i); /* not reached: every online CPU is on a node */
}

int ts_cpumask_local_spread(const struct ts_numa_levels *nl, const struct ts_cpumask *online,
			    enum ts_spread_policy policy, int i, int node)
{
	int w = ts_cpumask_weight(online);
	if (w == 0)
		return online->nr_cpus;
	i %= w;
	if (i < 0)
		i += w;
	if (node == TS_NUMA_NO_NODE)
		return ts_cpumask_nth(online, i);
	/* A memory-only node spreads from its nearest node with CPUs. 6.3+ does this in
	 * sched_numa_find_nth_cpu(); we apply it to the older flavours too, where the kernel
	 * would have found no local CPUs and fallen back to plain id order. */
	node = ts_numa_nearest_node(nl, node);
	switch (policy) {
	case TS_SPREAD_NEAREST_NODE:
		return nearest_node_spread(nl, online, i, node);
	case TS_SPREAD_NUMA_HOPS:
		return ts_sched_numa_find_nth_cpu(nl, online, i, node);
	default: {
		/* Before 6.3: the node's online CPUs first, then the rest in id order. */
		const struct ts_topology *t = nl->topo;
		int cpu;
		ts_for_each_cpu(cpu, online)
		{
			if (t->cpu[cpu].node == node && i-- == 0)
				return cpu;
		}
		ts_for_each_cpu(cpu, online)
		{
			if (t->cpu[cpu].node != node && i-- == 0)
				return cpu;
		}
		return online->nr_cpus;
	}
	}
}
