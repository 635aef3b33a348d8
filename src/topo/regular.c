/* Topologies built from identical parts (the presets, and tests that want a quick machine).
 * Ids are assigned in nesting order and ts_topology_finish() renumbers them densely; since
 * every level is numbered in order of its lowest CPU already, node ids (and so the rows of
 * m->distance) keep their meaning through the renumbering. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topo_build.h"

/* Multiplies the counts in order; stops as soon as the product exceeds limit, so the
 * running product always fits in a long long whatever the inputs. */
static long long checked_product(const int *factors, int n, long long limit)
{
	long long p = 1;

	for (int i = 0; i < n; i++) {
		p *= factors[i];
		if (p > limit)
			return p;
	}
	return p;
}

static int validate(const struct ts_regular_machine *m, struct ts_error *err)
{
	const char *name = m->name ? m->name : "(unnamed)";
	const struct {
		const char *field;
		int value;
	} counts[] = {
		{"packages", m->packages},
		{"nodes_per_package", m->nodes_per_package},
		{"llcs_per_node", m->llcs_per_node},
		{"clusters_per_llc", m->clusters_per_llc},
		{"cores_per_cluster", m->cores_per_cluster},
		{"threads_per_core", m->threads_per_core},
	};
	int f[6];

	for (int i = 0; i < 6; i++) {
		if (counts[i].value < 1)
			return ts_error_set(err, -EINVAL,
					    "machine '%s': %s is %d, must be at least 1", name,
					    counts[i].field, counts[i].value);
		f[i] = counts[i].value;
	}
	if (m->smt_numbering != TS_SMT_SPLIT && m->smt_numbering != TS_SMT_ADJACENT)
		return ts_error_set(err, -EINVAL, "machine '%s': unknown SMT numbering %d", name,
				    (int)m->smt_numbering);

	long long nodes = checked_product(f, 2, TS_MAX_NODES);
	if (nodes > TS_MAX_NODES)
		return ts_error_set(err, -EINVAL,
				    "machine '%s': %d packages x %d nodes exceeds %d nodes", name,
				    m->packages, m->nodes_per_package, TS_MAX_NODES);
	long long cpus = checked_product(f, 6, TS_MAX_CPUS);
	if (cpus > TS_MAX_CPUS)
		return ts_error_set(
			err, -EINVAL,
			"machine '%s': %d x %d x %d x %d x %d x %d CPUs exceeds %d CPUs", name,
			f[0], f[1], f[2], f[3], f[4], f[5], TS_MAX_CPUS);
	return 0;
}

struct ts_topology *ts_topology_build_regular(const struct ts_regular_machine *m,
					      struct ts_error *err)
{
	if (!m) {
		ts_error_set(err, -EINVAL, "regular machine: no description given");
		return NULL;
	}
	if (validate(m, err) < 0)
		return NULL;

	const char *name = m->name ? m->name : "(unnamed)";
	const int cores_per_llc = m->clusters_per_llc * m->cores_per_cluster;
	const int cores_per_node = m->llcs_per_node * cores_per_llc;
	const int cores_per_package = m->nodes_per_package * cores_per_node;
	const int nr_cores = m->packages * cores_per_package;
	const int threads = m->threads_per_core;
	const int nr_nodes = m->packages * m->nodes_per_package;

	struct ts_topology *t = ts_topology_alloc(nr_cores * threads, nr_nodes, err);
	if (!t) {
		ts_error_prefix(err, "machine '%s'", name);
		return NULL;
	}
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->description, sizeof(t->description), "%s",
		 m->description ? m->description : "");
	t->llc_bytes = m->llc_bytes;

	for (int c = 0; c < nr_cores; c++) {
		for (int th = 0; th < threads; th++) {
			/* x86 enumerates all first threads before any second thread. */
			int cpu = m->smt_numbering == TS_SMT_SPLIT ? th * nr_cores + c
								   : c * threads + th;
			struct ts_cpu_topo *ct = &t->cpu[cpu];

			ct->core = c;
			/* Without a cluster level Linux's cluster mask is the core itself. */
			ct->cluster = m->clusters_per_llc == 1 ? c : c / m->cores_per_cluster;
			ct->llc = c / cores_per_llc;
			ct->node = c / cores_per_node;
			ct->package = c / cores_per_package;
			ct->capacity = TS_CAPACITY_SCALE;
			ct->os_index = cpu;
		}
	}
	if (m->distance)
		memcpy(t->distance, m->distance, (size_t)nr_nodes * (size_t)nr_nodes * sizeof(int));

	if (ts_topology_finish(t, err) < 0) {
		ts_error_prefix(err, "machine '%s'", name);
		ts_topology_free(t);
		return NULL;
	}
	return t;
}
