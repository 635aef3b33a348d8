/* libFuzzer target: ts_topology_parse_distance() on a small hand-built topology (1-8 nodes,
 * chosen by the first byte). A rejected matrix must leave the topology's matrix untouched;
 * an accepted one must pass ts_distance_validate() and be usable by everything that
 * consumes distances (NUMA levels, spreading, domain building). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "toposched/domain.h"
#include "toposched/numa_levels.h"
#include "toposched/spread.h"
#include "toposched/topology.h"

/* Two CPUs (one core, SMT2) per node; one package per pair of nodes. */
static struct ts_topology *make_topology(int nodes)
{
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(2 * nodes, nodes, &err);
	if (!t)
		abort();
	for (int i = 0; i < 2 * nodes; i++) {
		t->cpu[i].core = i / 2;
		t->cpu[i].cluster = i / 2;
		t->cpu[i].llc = i / 2;
		t->cpu[i].node = i / 2;
		t->cpu[i].package = i / 4;
	}
	if (ts_topology_finish(t, &err))
		abort();
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 2048)
		return 0;
	int nodes = 1 + data[0] % 8;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';

	struct ts_topology *t = make_topology(nodes);
	int before[64];
	memcpy(before, t->distance, (size_t)(nodes * nodes) * sizeof(int));
	struct ts_error err = {0};
	int rc = ts_topology_parse_distance(t, text, &err);
	if (rc) {
		if (rc > 0 || err.code != rc || err.msg[0] == '\0' ||
		    memcmp(before, t->distance, (size_t)(nodes * nodes) * sizeof(int)) != 0)
			abort();
	} else {
		struct ts_error err2 = {0};
		if (ts_distance_validate(t->distance, nodes, &err2) != 0)
			abort();
		struct ts_numa_levels nl;
		if (ts_numa_levels_init(&nl, t, &err2) == 0) {
			struct ts_cpumask *on = ts_cpumask_alloc(t->nr_cpus);
			if (!on)
				abort();
			ts_cpumask_fill(on);
			for (int node = 0; node < nodes; node++)
				for (int p = 0; p < 3; p++)
					for (int i = 0; i < t->nr_cpus; i++) {
						int cpu = ts_cpumask_local_spread(
							&nl, on, (enum ts_spread_policy)p, i, node);
						if (cpu < 0 || cpu >= t->nr_cpus)
							abort();
					}
			ts_cpumask_free(on);
			ts_numa_levels_destroy(&nl);
		}
		struct ts_domains *d = NULL;
		if (ts_domains_build(t, NULL, &d, &err2) == 0)
			ts_domains_free(d);
	}
	ts_topology_free(t);
	free(text);
	return 0;
}
