#include "toposched/numa_levels.h"

#include <errno.h>
#include <stdlib.h>

static bool node_has_cpus(const struct ts_numa_levels *nl, int node)
{
	return ts_cpumask_test(nl->node_has_cpu, node);
}

/* init_numa_topology_type(): DIRECT with at most one remote distance; else GLUELESS_MESH
 * if the two farthest nodes have an intermediate node closer to both, else BACKPLANE. */
static enum ts_numa_topology_type classify(const struct ts_numa_levels *nl)
{
	const struct ts_topology *t = nl->topo;
	int n = nl->max_distance;
	if (nl->nr_levels <= 2)
		return TS_NUMA_DIRECT;
	for (int a = 0; a < t->nr_nodes; a++) {
		if (!node_has_cpus(nl, a))
			continue;
		for (int b = 0; b < t->nr_nodes; b++) {
			if (!node_has_cpus(nl, b) || ts_topo_distance(t, a, b) < n)
				continue;
			for (int c = 0; c < t->nr_nodes; c++)
				if (node_has_cpus(nl, c) && ts_topo_distance(t, a, c) < n &&
				    ts_topo_distance(t, b, c) < n)
					return TS_NUMA_GLUELESS_MESH;
			return TS_NUMA_BACKPLANE;
		}
	}
	return TS_NUMA_DIRECT;
}

int ts_numa_levels_init(struct ts_numa_levels *nl, const struct ts_topology *t,
			struct ts_error *err)
{
	*nl = (struct ts_numa_levels){.topo = t};
	int nn = t->nr_nodes;
	nl->node_has_cpu = ts_cpumask_alloc(nn);
	/* sched_record_numa_dist(): de-duplicated, sorted distances over CPU-bearing nodes. */
	bool seen[TS_MAX_DISTANCE + 1] = {false};
	if (!nl->node_has_cpu)
		goto nomem;
	for (int c = 0; c < t->nr_cpus; c++)
		ts_cpumask_set(nl->node_has_cpu, t->cpu[c].node);
	for (int a = 0; a < nn; a++)
		for (int b = 0; b < nn; b++)
			if (node_has_cpus(nl, a) && node_has_cpus(nl, b))
				seen[ts_topo_distance(t, a, b)] = true;
	for (int v = 0; v <= TS_MAX_DISTANCE; v++)
		nl->nr_levels += seen[v];
	nl->distance = malloc((size_t)nl->nr_levels * sizeof(int));
	nl->masks = calloc((size_t)nl->nr_levels * (size_t)nn, sizeof(*nl->masks));
	if (!nl->distance || !nl->masks)
		goto nomem;
	for (int v = 0, i = 0; v <= TS_MAX_DISTANCE; v++)
		if (seen[v])
			nl->distance[i++] = v;
	nl->max_distance = nl->distance[nl->nr_levels - 1];

	/* Node CPU masks once, then each level's mask is a union of them. */
	struct ts_cpumask **node_cpus = calloc((size_t)nn, sizeof(*node_cpus));
	if (!node_cpus)
		goto nomem;
	int rc = 0;
	for (int n = 0; n < nn && !rc; n++) {
		node_cpus[n] = ts_cpumask_alloc(t->nr_cpus);
		if (!node_cpus[n])
			rc = -ENOMEM;
		else
			ts_topology_node_mask(t, n, node_cpus[n]);
	}
	for (int i = 0; i < nl->nr_levels && !rc; i++) {
		for (int j = 0; j < nn && !rc; j++) {
			if (!node_has_cpus(nl, j))
				continue;
			struct ts_cpumask *m = ts_cpumask_alloc(t->nr_cpus);
			if (!m) {
				rc = -ENOMEM;
				break;
			}
			nl->masks[i * nn + j] = m;
			for (int k = 0; k < nn; k++)
				if (node_has_cpus(nl, k) &&
				    ts_topo_distance(t, j, k) <= nl->distance[i])
					ts_cpumask_or(m, m, node_cpus[k]);
		}
	}
	for (int n = 0; n < nn; n++)
		ts_cpumask_free(node_cpus[n]);
	free(node_cpus);
	if (rc)
		goto nomem;
	nl->type = classify(nl);
	return 0;
nomem:
	ts_numa_levels_destroy(nl);
	return ts_error_set(err, -ENOMEM, "NUMA levels: out of memory");
}

void ts_numa_levels_destroy(struct ts_numa_levels *nl)
{
	if (nl->masks && nl->topo)
		for (int i = 0; i < nl->nr_levels * nl->topo->nr_nodes; i++)
			ts_cpumask_free(nl->masks[i]);
	free(nl->masks);
	free(nl->distance);
	ts_cpumask_free(nl->node_has_cpu);
	*nl = (struct ts_numa_levels){0};
}

int ts_numa_nearest_node(const struct ts_numa_levels *nl, int node)
{
	if (node < 0 || node >= nl->topo->nr_nodes || node_has_cpus(nl, node))
		return node;
	int best = TS_NUMA_NO_NODE, best_d = 0;
	for (int n = 0; n < nl->topo->nr_nodes; n++) {
		if (!node_has_cpus(nl, n))
			continue;
		int dist = ts_topo_distance(nl->topo, node, n);
		if (best < 0 || dist < best_d) {
			best = n;
			best_d = dist;
		}
	}
	return best;
}

const char *ts_numa_topology_type_name(enum ts_numa_topology_type type)
{
	switch (type) {
	case TS_NUMA_GLUELESS_MESH:
		return "NUMA_GLUELESS_MESH";
	case TS_NUMA_BACKPLANE:
		return "NUMA_BACKPLANE";
	default:
		return "NUMA_DIRECT";
	}
}
