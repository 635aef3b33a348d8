/* Topologies for tests: a preset built from its table entry, any --topology spec, or a
 * hand-made grid of nodes. Each must succeed; a failure names what and why. The caller
 * owns (and frees) the topology. */
#ifndef TOPOSCHED_TEST_TOPO_FIXTURE_H
#define TOPOSCHED_TEST_TOPO_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/topology.h"

/* The built-in preset `name` (kunpeng920, epyc-7601, ...), built by its own builder. */
static inline struct ts_topology *preset(const char *name)
{
	const struct ts_preset *pr = ts_preset_find(name);
	assert_non_null(pr);
	struct ts_error err = {0};
	struct ts_topology *t = pr->build(&err);
	if (!t)
		fail_msg("preset %s: %s", name, err.msg);
	return t;
}

/* ts_topology_load() of a --topology spec ("synthetic:pack:1 core:2 pu:1", a preset, ...). */
static inline struct ts_topology *load_topology(const char *spec)
{
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	if (ts_topology_load(spec, &t, &err))
		fail_msg("topology %s: %s", spec, err.msg);
	return t;
}

/* nr_nodes x per_node CPUs (CPU i on node i / per_node), an LLC and a package per node,
 * the given distance matrix (rows separated by ';'). */
static inline struct ts_topology *grid_topology(int nr_nodes, int per_node, const char *distance)
{
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(nr_nodes * per_node, nr_nodes, &err);
	assert_non_null(t);
	for (int i = 0; i < t->nr_cpus; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i;
		t->cpu[i].node = i / per_node;
		t->cpu[i].llc = i / per_node;
		t->cpu[i].package = i / per_node;
	}
	assert_int_equal(ts_topology_parse_distance(t, distance, &err), 0);
	assert_int_equal(ts_topology_finish(t, &err), 0);
	return t;
}

/* Two topologies are the same machine: counts, every CPU's ids, distances. */
static inline void assert_same_topology(const struct ts_topology *a, const struct ts_topology *b)
{
	assert_int_equal(a->nr_cpus, b->nr_cpus);
	assert_int_equal(a->nr_cores, b->nr_cores);
	assert_int_equal(a->nr_clusters, b->nr_clusters);
	assert_int_equal(a->nr_llcs, b->nr_llcs);
	assert_int_equal(a->nr_nodes, b->nr_nodes);
	assert_int_equal(a->nr_packages, b->nr_packages);
	assert_int_equal(a->has_smt, b->has_smt);
	assert_int_equal(a->has_clusters, b->has_clusters);
	assert_int_equal(a->llc_bytes, b->llc_bytes);
	for (int i = 0; i < a->nr_cpus; i++) {
		const struct ts_cpu_topo *x = &a->cpu[i], *y = &b->cpu[i];
		if (memcmp(x, y, sizeof(*x)) != 0)
			print_message("cpu %d: core %d/%d cluster %d/%d llc %d/%d node %d/%d "
				      "package %d/%d capacity %d/%d os_index %d/%d\n",
				      i, x->core, y->core, x->cluster, y->cluster, x->llc, y->llc,
				      x->node, y->node, x->package, y->package, x->capacity,
				      y->capacity, x->os_index, y->os_index);
		assert_int_equal(x->core, y->core);
		assert_int_equal(x->cluster, y->cluster);
		assert_int_equal(x->llc, y->llc);
		assert_int_equal(x->node, y->node);
		assert_int_equal(x->package, y->package);
		assert_int_equal(x->capacity, y->capacity);
		assert_int_equal(x->os_index, y->os_index);
	}
	for (int n = 0; n < a->nr_nodes * a->nr_nodes; n++)
		assert_int_equal(a->distance[n], b->distance[n]);
}

#endif
