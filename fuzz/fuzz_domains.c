/* libFuzzer target: scheduling domains built on arbitrary valid topologies. The input
 * describes a machine directly (CPU count, each CPU's core, cluster, LLC, node and
 * package ids, capacities, a distance matrix that may be asymmetric); whatever
 * ts_topology_finish() accepts must build domains that satisfy the invariants of
 * fuzz_domains_check.h. Reaches shapes no preset or hwloc source produces. */
#include "fuzz_check.h"
#include "fuzz_domains_check.h"
#include "toposched/topology.h"

struct bytes {
	const uint8_t *p;
	size_t left;
};

static unsigned next(struct bytes *b)
{
	if (b->left == 0)
		return 0;
	b->left--;
	return *b->p++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bytes b = {data, size};
	int nr_cpus = 1 + (int)(next(&b) % 64);
	int nr_nodes = 1 + (int)(next(&b) % 8);
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(nr_cpus, nr_nodes, &err);
	CHECK(t != NULL);
	/* Ids nested as on a real machine, each level a small choice within its parent, so
	 * that most inputs give machines with sharing at every level. */
	for (int i = 0; i < nr_cpus; i++) {
		unsigned shape = next(&b);
		struct ts_cpu_topo *c = &t->cpu[i];
		c->package = (int)(shape & 3);
		c->node = (int)(next(&b) % (unsigned)nr_nodes);
		c->llc = c->node * 4 + (int)((shape >> 2) & 3);
		c->cluster = c->llc * 4 + (int)((shape >> 4) & 3);
		c->core = c->cluster * 4 + (int)((shape >> 6) & 3);
		unsigned cap = next(&b);
		c->capacity = cap < 128 ? TS_CAPACITY_SCALE : (int)(cap * 4);
	}
	for (int a = 0; a < nr_nodes; a++)
		for (int z = 0; z < nr_nodes; z++)
			if (a != z)
				t->distance[a * nr_nodes + z] =
					TS_LOCAL_DISTANCE + 1 + (int)(next(&b) % 60);
	if (ts_topology_finish(t, &err) == 0)
		fuzz_check_domains(t);
	else
		CHECK(err.msg[0] != '\0');
	ts_topology_free(t);
	return 0;
}
