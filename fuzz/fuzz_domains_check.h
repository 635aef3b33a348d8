/* The scheduling-domain invariants every fuzz target that loads a topology checks on it
 * (kernel/sched/topology.c builds domains that satisfy them; sched_domain_debug_one()
 * checks most of them at boot with CONFIG_SCHED_DEBUG):
 *   each CPU's domain spans strictly grow bottom-up, the top one is the whole CPU map
 *   (with a symmetric distance matrix);
 *   each domain's groups cover its span, disjointly except on NUMA levels (overlapping
 *   groups; with an asymmetric matrix they may cover less, as in the kernel), and the
 *   first group contains the CPU;
 *   an SD_CLUSTER (CLS) level only where the topology has clusters;
 *   the NUMA levels are the distinct distances between CPU-bearing nodes, and each level's
 *   mask for a node holds exactly the CPUs of the nodes within that distance of it. */
#ifndef TOPOSCHED_FUZZ_DOMAINS_CHECK_H
#define TOPOSCHED_FUZZ_DOMAINS_CHECK_H

#include <errno.h>

#include "fuzz_check.h"
#include "toposched/domain.h"
#include "toposched/topology.h"

static inline void fuzz_check_numa_levels(const struct ts_topology *t,
					  const struct ts_numa_levels *nl)
{
	CHECK(nl->nr_levels >= 1 && nl->distance[0] == TS_LOCAL_DISTANCE);
	for (int i = 1; i < nl->nr_levels; i++)
		CHECK(nl->distance[i] > nl->distance[i - 1]);
	for (int i = 0; i < nl->nr_levels; i++) {
		for (int n = 0; n < t->nr_nodes; n++) {
			const struct ts_cpumask *m = ts_numa_mask(nl, i, n);
			if (ts_topology_node_weight(t, n) == 0) {
				CHECK(m == NULL);
				continue;
			}
			CHECK(m != NULL);
			for (int c = 0; c < t->nr_cpus; c++)
				CHECK(ts_cpumask_test(m, c) ==
				      (ts_topo_distance(t, n, t->cpu[c].node) <= nl->distance[i]));
		}
	}
}

static inline void fuzz_check_domains(const struct ts_topology *t)
{
	struct ts_domains *d = NULL;
	struct ts_error err = {0};
	if (ts_domains_build(t, NULL, &d, &err) != 0) {
		/* Only memory may run out on a topology that loaded. */
		CHECK(err.code == -ENOMEM);
		return;
	}
	fuzz_check_numa_levels(t, &d->numa);
	bool symmetric = true;
	for (int a = 0; a < t->nr_nodes; a++)
		for (int b = 0; b < t->nr_nodes; b++)
			symmetric &= ts_topo_distance(t, a, b) == ts_topo_distance(t, b, a);
	struct ts_cpumask *cover = ts_cpumask_alloc(t->nr_cpus);
	CHECK(cover != NULL);
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		const struct ts_sched_domain *sd = d->cpu[cpu].sd, *top = NULL;
		CHECK(t->nr_cpus == 1 || sd != NULL || !symmetric);
		for (; sd; sd = sd->parent) {
			top = sd;
			CHECK(ts_cpumask_test(sd->span, cpu));
			CHECK(sd->span_weight == ts_cpumask_weight(sd->span));
			if (sd->child) {
				CHECK(sd->child->parent == sd);
				CHECK(ts_cpumask_subset(sd->child->span, sd->span));
				CHECK(sd->child->span_weight < sd->span_weight);
			}
			if (sd->flags & TS_SD_CLUSTER)
				CHECK(t->has_clusters);
			CHECK(sd->nr_groups >= 1);
			CHECK(ts_cpumask_test(sd->groups[0]->span, cpu));
			ts_cpumask_zero(cover);
			int weight = 0;
			for (int g = 0; g < sd->nr_groups; g++) {
				const struct ts_cpumask *gs = sd->groups[g]->span;
				CHECK(ts_cpumask_subset(gs, sd->span));
				if (!(sd->flags & TS_SD_NUMA))
					CHECK(!ts_cpumask_intersects(cover, gs));
				ts_cpumask_or(cover, cover, gs);
				weight += ts_cpumask_weight(gs);
			}
			/* Asymmetric distances: a sibling whose tree already ended below this
			 * level adds no group (build_overlap_sched_groups() skips it), so the
			 * kernel's groups may leave CPUs of the span out there. */
			if (symmetric || !(sd->flags & TS_SD_NUMA))
				CHECK(ts_cpumask_equal(cover, sd->span));
			if (!(sd->flags & TS_SD_NUMA))
				CHECK(weight == sd->span_weight);
		}
		/* Asymmetric distances again: a top NUMA domain left with one group is
		 * degenerate and removed (sd_degenerate()), so the tree may stop short. */
		if (top && symmetric)
			CHECK(ts_cpumask_equal(top->span, d->cpu_map));
	}
	ts_cpumask_free(cover);
	ts_domains_free(d);
}

/* ts_topology_load(spec) as the targets that load a whole source check it: a refusal is
 * a negative code with a message and no topology; a topology that loads is valid, with the
 * domain invariants above. */
static inline void fuzz_check_load(const char *spec)
{
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	int rc = ts_topology_load(spec, &t, &err);
	if (rc) {
		CHECK(rc < 0 && !t && err.msg[0] != '\0');
		return;
	}
	CHECK(t && t->nr_cpus >= 1 && t->nr_nodes >= 1);
	CHECK(ts_distance_validate(t->distance, t->nr_nodes, &err) == 0);
	fuzz_check_domains(t);
	ts_topology_free(t);
}

#endif
