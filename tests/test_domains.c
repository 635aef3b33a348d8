/* Scheduling domains against what Linux builds for each topology. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "topo/topo_build.h"
#include "topo_fixture.h"
#include "toposched/domain.h"

static struct ts_domains *build(const struct ts_topology *t)
{
	struct ts_error err = {0};
	struct ts_domains *d = NULL;
	assert_int_equal(ts_domains_build(t, NULL, &d, &err), 0);
	assert_non_null(d);
	return d;
}

/* "0-3" formatting of a mask, into a static buffer (tests only). */
static const char *str(const struct ts_cpumask *m)
{
	static char buf[8][256];
	static int i;
	i = (i + 1) % 8;
	ts_cpumask_format(m, buf[i], sizeof(buf[i]));
	return buf[i];
}

/* Checks the chain of one CPU: level names and spans, bottom-up. */
static void expect_chain(const struct ts_domains *d, int cpu, int n, const char *const *levels,
			 const char *const *spans)
{
	const struct ts_sched_domain *sd = d->cpu[cpu].sd;
	for (int i = 0; i < n; i++) {
		assert_non_null(sd);
		assert_string_equal(sd->name, levels[i]);
		assert_string_equal(str(sd->span), spans[i]);
		sd = sd->parent;
	}
	assert_null(sd);
}

static const struct ts_sched_domain *domain_at(const struct ts_domains *d, int cpu, int depth)
{
	const struct ts_sched_domain *sd = d->cpu[cpu].sd;
	while (sd && depth--)
		sd = sd->parent;
	assert_non_null(sd);
	return sd;
}

/* Structural invariants the kernel's sched_domain_debug_one() checks, for every CPU. */
static void check_invariants(const struct ts_domains *d)
{
	int n = d->nr_cpus;
	struct ts_cpumask *cover = ts_cpumask_alloc(n);
	assert_non_null(cover);
	for (int cpu = 0; cpu < n; cpu++) {
		for (const struct ts_sched_domain *sd = d->cpu[cpu].sd; sd; sd = sd->parent) {
			assert_true(ts_cpumask_test(sd->span, cpu));
			assert_int_equal(sd->span_weight, ts_cpumask_weight(sd->span));
			assert_true(sd->nr_groups >= 1);
			assert_true(ts_cpumask_test(sd->groups[0]->span, cpu));
			if (sd->child)
				assert_true(ts_cpumask_equal(sd->child->span, sd->groups[0]->span));
			if (sd->parent) {
				assert_true(ts_cpumask_subset(sd->span, sd->parent->span));
				assert_ptr_equal(sd->parent->child, sd);
				/* a surviving parent is never the same span with a subset of flags
				 */
				assert_false(sd->parent->span == sd->span &&
					     !(sd->parent->flags & ~sd->flags));
			}
			ts_cpumask_zero(cover);
			for (int g = 0; g < sd->nr_groups; g++) {
				const struct ts_sched_group *sg = sd->groups[g];
				assert_true(ts_cpumask_subset(sg->span, sd->span));
				assert_false(ts_cpumask_empty(sg->balance_mask));
				assert_true(ts_cpumask_subset(sg->balance_mask, sg->span));
				if (!(sd->flags & TS_SD_NUMA))
					assert_false(ts_cpumask_intersects(cover, sg->span));
				ts_cpumask_or(cover, cover, sg->span);
				assert_int_equal(sg->group_weight, ts_cpumask_weight(sg->span));
			}
			assert_true(ts_cpumask_equal(cover, sd->span));
		}
		const struct ts_cpu_domains *c = &d->cpu[cpu];
		if (c->sd_llc) {
			assert_true(c->sd_llc->flags & TS_SD_SHARE_LLC);
			assert_non_null(c->sd_llc_shared);
			assert_int_equal(c->sd_llc_size, c->sd_llc->span_weight);
			assert_int_equal(c->sd_llc_id, ts_cpumask_first(c->sd_llc->span));
		} else {
			assert_int_equal(c->sd_llc_size, 1);
			assert_int_equal(c->sd_llc_id, cpu);
		}
	}
	ts_cpumask_free(cover);
}

static void test_jacobsville_cls_mc(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct ts_domains *d = build(t);
	const char *levels[] = {"CLS", "MC"}, *spans[] = {"0-3", "0-23"};
	expect_chain(d, 0, 2, levels, spans);
	const char *spans5[] = {"4-7", "0-23"};
	expect_chain(d, 5, 2, levels, spans5);
	assert_true(d->cluster_active);
	assert_false(d->smt_active);
	const struct ts_sched_domain *mc = d->cpu[5].sd_llc;
	assert_string_equal(mc->name, "MC");
	assert_int_equal(d->cpu[5].sd_llc_size, 24);
	assert_int_equal(mc->nr_groups, 6);
	/* select_idle_cpu() finds "my cluster" as sd_llc->groups[0] with SD_CLUSTER */
	assert_string_equal(str(mc->groups[0]->span), "4-7");
	assert_true(mc->groups[0]->flags & TS_SD_CLUSTER);
	assert_string_equal(str(mc->groups[1]->span), "8-11"); /* wrap order from CPU 5 */
	assert_string_equal(str(mc->groups[5]->span), "0-3");
	assert_int_equal(d->cpu[5].sd_share_id, 4);
	assert_true(ts_cpus_share_resources(d, 4, 7));
	assert_false(ts_cpus_share_resources(d, 3, 4));
	assert_true(ts_cpus_share_cache(d, 3, 4));
	/* no NUMA: a single node gives no NUMA domain; MC spans everything */
	assert_null(d->cpu[0].sd_numa);
	assert_int_equal(mc->imb_numa_nr, 0);
	assert_int_equal(mc->imbalance_pct, 117);
	assert_int_equal(mc->cache_nice_tries, 1);
	assert_int_equal(mc->min_interval, 24);
	assert_int_equal(mc->max_interval, 48);
	assert_int_equal(mc->busy_factor, 16);
	check_invariants(d);
	ts_domains_free(d);
	ts_topology_free(t);
}

static void test_kunpeng920(void **state)
{
	(void)state;
	struct ts_topology *t = preset("kunpeng920");
	struct ts_domains *d = build(t);
	/* SLIT 10 16 32 33 / 16 10 25 32 / 32 25 10 16 / 33 32 16 10: levels 10 16 25 32 33 */
	assert_int_equal(d->numa.nr_levels, 5);
	assert_int_equal(d->numa.distance[2], 25);
	const char *levels[] = {"CLS", "MC", "NUMA", "NUMA", "NUMA"};
	const char *spans0[] = {"0-3", "0-31", "0-63", "0-95", "0-127"};
	expect_chain(d, 0, 5, levels, spans0);
	const char *spans32[] = {"32-35", "32-63", "0-63", "0-95", "0-127"};
	expect_chain(d, 32, 5, levels, spans32);
	const char *spans64[] = {"64-67", "64-95", "64-127", "32-127", "0-127"};
	expect_chain(d, 64, 5, levels, spans64);
	assert_true(d->cluster_active);
	assert_false(d->smt_active);

	/* RECLAIM_DISTANCE (30): no wake-affine or fork/exec balancing across 32 and 33 */
	assert_true(domain_at(d, 0, 2)->flags & TS_SD_WAKE_AFFINE);
	assert_false(domain_at(d, 0, 3)->flags & TS_SD_WAKE_AFFINE);
	assert_false(domain_at(d, 0, 4)->flags & (TS_SD_BALANCE_FORK | TS_SD_BALANCE_EXEC));
	assert_true(domain_at(d, 0, 4)->flags & TS_SD_SERIALIZE);
	assert_false(domain_at(d, 0, 2)->flags & TS_SD_PREFER_SIBLING);
	assert_true(domain_at(d, 0, 1)->flags & TS_SD_PREFER_SIBLING);
	assert_int_equal(domain_at(d, 0, 2)->cache_nice_tries, 2);

	/* imb_numa_nr: one LLC per node -> 32 >> 3 = 4, scaled by span / 64 above */
	assert_int_equal(domain_at(d, 0, 1)->imb_numa_nr, 0);
	assert_int_equal(domain_at(d, 0, 2)->imb_numa_nr, 4);
	assert_int_equal(domain_at(d, 0, 3)->imb_numa_nr, 4);
	assert_int_equal(domain_at(d, 0, 4)->imb_numa_nr, 8);

	/* overlapping groups of node 0's 0-95 level: its child 0-63, then node 2 alone */
	const struct ts_sched_domain *n3 = domain_at(d, 0, 3);
	assert_int_equal(n3->nr_groups, 2);
	assert_string_equal(str(n3->groups[0]->span), "0-63");
	assert_string_equal(str(n3->groups[0]->balance_mask), "0-31");
	assert_string_equal(str(n3->groups[1]->span), "64-95");
	assert_string_equal(str(n3->groups[1]->balance_mask), "64-95");
	const struct ts_sched_domain *n4 = domain_at(d, 0, 4);
	assert_string_equal(str(n4->groups[0]->span), "0-95");
	assert_string_equal(str(n4->groups[1]->span), "32-127");
	assert_string_equal(str(n4->groups[1]->balance_mask), "96-127");

	/* clusters: prev in another cluster of the LLC shares the cache, not resources */
	assert_true(ts_cpus_share_resources(d, 0, 3));
	assert_false(ts_cpus_share_resources(d, 0, 4));
	assert_true(ts_cpus_share_cache(d, 0, 4));
	assert_false(ts_cpus_share_cache(d, 0, 32));
	assert_int_equal(d->cpu[6].sd_share_id, 4);
	assert_int_equal(d->cpu[6].sd_llc_id, 0);
	assert_int_equal(d->cpu[70].sd_llc_id, 64);
	assert_ptr_equal(d->cpu[0].sd_llc_shared, d->cpu[31].sd_llc_shared);
	assert_ptr_not_equal(d->cpu[0].sd_llc_shared, d->cpu[32].sd_llc_shared);
	assert_int_equal(atomic_load(&d->cpu[0].sd_llc_shared->nr_busy_cpus), 32);
	assert_ptr_equal(d->cpu[0].sd_numa, domain_at(d, 0, 2));
	assert_int_equal(d->numa.type, TS_NUMA_GLUELESS_MESH);
	check_invariants(d);
	ts_domains_free(d);
	ts_topology_free(t);
}

/* Before v5.16 (no CONFIG_SCHED_CLUSTER: 778c558f49a2, 66558b730f25) the LLC's MC level is
 * the lowest on Kunpeng 920, its groups single CPUs; the NUMA levels are unchanged. On a
 * machine whose clusters are its cores or its LLC (Broadwell) nothing changes. */
static void test_no_cluster_level_before_v5_16(void **state)
{
	(void)state;
	struct ts_topology *t = preset("kunpeng920");
	struct ts_error err = {0};
	struct ts_domains *d = NULL;
	assert_int_equal(ts_domains_build_config(t, NULL, false, &d, &err), 0);
	const char *levels[] = {"MC", "NUMA", "NUMA", "NUMA"};
	const char *spans0[] = {"0-31", "0-63", "0-95", "0-127"};
	expect_chain(d, 0, 4, levels, spans0);
	check_invariants(d);
	assert_false(d->cluster_active);
	const struct ts_sched_domain *mc = d->cpu[5].sd;
	assert_int_equal(mc->nr_groups, 32);
	assert_int_equal(mc->groups[0]->group_weight, 1);
	assert_true(mc->flags & TS_SD_PREFER_SIBLING);
	assert_int_equal(mc->min_interval, 32);
	assert_int_equal(d->cpu[5].sd_share_id, d->cpu[5].sd_llc_id);
	assert_int_equal(domain_at(d, 5, 1)->imb_numa_nr, 4);
	ts_domains_free(d);
	ts_topology_free(t);

	t = preset("broadwell-2s");
	struct ts_domains *with = build(t);
	assert_int_equal(ts_domains_build_config(t, NULL, false, &d, &err), 0);
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		const struct ts_sched_domain *a = with->cpu[cpu].sd, *b = d->cpu[cpu].sd;
		for (; a && b; a = a->parent, b = b->parent) {
			assert_string_equal(a->name, b->name);
			assert_string_equal(str(a->span), str(b->span));
			assert_int_equal(a->flags, b->flags);
			assert_int_equal(a->nr_groups, b->nr_groups);
		}
		assert_true(!a && !b);
	}
	ts_domains_free(with);
	ts_domains_free(d);
	ts_topology_free(t);
}

static void test_kunpeng920_48_chain(void **state)
{
	(void)state;
	/* SLIT 10 12 20 22 / 12 10 22 24 / 20 22 10 12 / 22 24 12 10: a 1-0-2-3 chain */
	struct ts_topology *t = preset("kunpeng920-48");
	struct ts_domains *d = build(t);
	assert_int_equal(d->numa.nr_levels, 5); /* 10 12 20 22 24 */
	const char *levels[] = {"CLS", "MC", "NUMA", "NUMA", "NUMA"};
	const char *spans0[] = {"0-3", "0-23", "0-47", "0-71", "0-95"};
	expect_chain(d, 0, 5, levels, spans0);
	/* node 1: <=12 {0,1}, <=20 {0,1} (degenerate), <=22 {0,1,2}, <=24 all */
	const char *spans24[] = {"24-27", "24-47", "0-47", "0-71", "0-95"};
	expect_chain(d, 24, 5, levels, spans24);
	/* node 3: <=12 {2,3}, <=20 {2,3}, <=22 {0,2,3}, <=24 all */
	const char *spans72[] = {"72-75", "72-95", "48-95", "0-23,48-95", "0-95"};
	expect_chain(d, 72, 5, levels, spans72);
	const struct ts_sched_domain *top = domain_at(d, 0, 4);
	assert_string_equal(str(top->groups[0]->span), "0-71");
	assert_string_equal(str(top->groups[0]->balance_mask), "0-23");
	assert_string_equal(str(top->groups[1]->span), "48-95");
	assert_int_equal(d->numa.type, TS_NUMA_GLUELESS_MESH);
	check_invariants(d);
	ts_domains_free(d);
	ts_topology_free(t);
}

static void test_two_socket_smt_collapses(void **state)
{
	(void)state;
	/* A 2-socket SMT machine without clusters: SMT -> MC -> NUMA (PKG, NODE degenerate) */
	const char *machines[] = {"broadwell-2s", "icelake-2s", "spr-2s"};
	const char *spans[][3] = {
		{"0,40", "0-19,40-59", "0-79"},
		{"0,80", "0-39,80-119", "0-159"},
		{"0,112", "0-55,112-167", "0-223"},
	};
	for (int m = 0; m < 3; m++) {
		struct ts_topology *t = preset(machines[m]);
		struct ts_domains *d = build(t);
		const char *levels[] = {"SMT", "MC", "NUMA"};
		expect_chain(d, 0, 3, levels, spans[m]);
		assert_true(d->smt_active);
		assert_false(d->cluster_active);
		const struct ts_sched_domain *smt = d->cpu[0].sd;
		assert_int_equal(smt->imbalance_pct, 110);
		assert_true(smt->flags & TS_SD_SHARE_CPUCAPACITY);
		/* no cluster: share_id falls back to the LLC id */
		assert_int_equal(d->cpu[1].sd_share_id, d->cpu[1].sd_llc_id);
		/* 10/20 and 10/21 are below RECLAIM_DISTANCE: wake-affine across sockets */
		assert_true(domain_at(d, 0, 2)->flags & TS_SD_WAKE_AFFINE);
		/* one LLC per node: imb_numa_nr = node span >> 3, doubled at the 2-node level */
		assert_int_equal(domain_at(d, 0, 2)->imb_numa_nr, (unsigned)(t->nr_cpus / 2 / 8));
		assert_int_equal(d->numa.type, TS_NUMA_DIRECT);
		check_invariants(d);
		ts_domains_free(d);
		ts_topology_free(t);
	}
}

static void test_epyc_7601(void **state)
{
	(void)state;
	struct ts_topology *t = preset("epyc-7601");
	struct ts_domains *d = build(t);
	const char *levels[] = {"SMT", "MC", "PKG", "NUMA", "NUMA"};
	const char *spans[] = {"0,64", "0-3,64-67", "0-7,64-71", "0-31,64-95", "0-127"};
	expect_chain(d, 0, 5, levels, spans);
	/* two CCX (LLCs) per node: imb = 2; imb_span = the first NUMA level (64 CPUs) */
	assert_int_equal(domain_at(d, 0, 2)->imb_numa_nr, 2);
	assert_int_equal(domain_at(d, 0, 3)->imb_numa_nr, 2);
	assert_int_equal(domain_at(d, 0, 4)->imb_numa_nr, 4);
	/* cross-socket 32 > RECLAIM_DISTANCE: the old EPYC wake-affine problem */
	assert_false(domain_at(d, 0, 4)->flags & TS_SD_WAKE_AFFINE);
	assert_true(domain_at(d, 0, 3)->flags & TS_SD_WAKE_AFFINE);
	assert_int_equal(d->cpu[0].sd_llc_size, 8);
	assert_int_equal(domain_at(d, 0, 1)->groups[1]->cores, 1);
	assert_int_equal(domain_at(d, 0, 2)->groups[0]->cores, 4);
	check_invariants(d);
	ts_domains_free(d);
	ts_topology_free(t);
}

static struct ts_topology *hand_topology(int nr_cpus, int nr_nodes, const int *node_of,
					 const int *distance)
{
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(nr_cpus, nr_nodes, &err);
	assert_non_null(t);
	for (int i = 0; i < nr_cpus; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i;
		t->cpu[i].llc = i;
		t->cpu[i].node = node_of[i];
		t->cpu[i].package = node_of[i];
	}
	if (distance)
		memcpy(t->distance, distance, sizeof(int) * (size_t)(nr_nodes * nr_nodes));
	assert_int_equal(ts_topology_finish(t, &err), 0);
	return t;
}

static void test_numa_ring_groups(void **state)
{
	(void)state;
	/* The ring from kernel/sched/topology.c's comment, one CPU per node. */
	const int node_of[] = {0, 1, 2, 3};
	const int ring[] = {10, 20, 30, 20, 20, 10, 20, 30, 30, 20, 10, 20, 20, 30, 20, 10};
	struct ts_topology *t = hand_topology(4, 4, node_of, ring);
	struct ts_domains *d = build(t);
	/* NUMA-1 of node 0 = {0,1,3} with groups {0},{1},{3}; NUMA-2 = all with {0-1,3},{1-3} */
	const char *levels[] = {"NUMA", "NUMA"}, *spans[] = {"0-1,3", "0-3"};
	expect_chain(d, 0, 2, levels, spans);
	const struct ts_sched_domain *n1 = d->cpu[0].sd, *n2 = n1->parent;
	assert_int_equal(n1->nr_groups, 3);
	assert_string_equal(str(n1->groups[0]->span), "0");
	assert_string_equal(str(n1->groups[1]->span), "1");
	assert_string_equal(str(n1->groups[2]->span), "3");
	assert_int_equal(n2->nr_groups, 2);
	assert_string_equal(str(n2->groups[0]->span), "0-1,3");
	assert_string_equal(str(n2->groups[1]->span), "1-3");
	assert_string_equal(str(n2->groups[1]->balance_mask), "2");
	assert_int_equal(d->numa.type, TS_NUMA_GLUELESS_MESH);
	check_invariants(d);
	ts_domains_free(d);
	ts_topology_free(t);
}

static void test_numa_diameter3_uses_descended_sibling(void **state)
{
	(void)state;
	/* 0 - 1 - 2 - 3 chain (the find_descended_sibling() comment): node 0's NUMA-2
	 * (0-2) must not get the group 1-3 that spans out of it. */
	const int node_of[] = {0, 1, 2, 3};
	const int chain[] = {10, 20, 30, 40, 20, 10, 20, 30, 30, 20, 10, 20, 40, 30, 20, 10};
	struct ts_topology *t = hand_topology(4, 4, node_of, chain);
	struct ts_domains *d = build(t);
	const char *levels[] = {"NUMA", "NUMA", "NUMA"}, *spans[] = {"0-1", "0-2", "0-3"};
	expect_chain(d, 0, 3, levels, spans);
	const struct ts_sched_domain *n2 = d->cpu[0].sd->parent;
	assert_string_equal(str(n2->groups[0]->span), "0-1");
	assert_string_equal(str(n2->groups[1]->span), "2");
	check_invariants(d);
	assert_int_equal(d->numa.type, TS_NUMA_GLUELESS_MESH);
	ts_domains_free(d);
	ts_topology_free(t);
}

static void test_single_cpu_and_smt_only(void **state)
{
	(void)state;
	const int node0[] = {0};
	struct ts_topology *t = hand_topology(1, 1, node0, NULL);
	struct ts_domains *d = build(t);
	assert_null(d->cpu[0].sd);
	assert_null(d->cpu[0].sd_llc);
	assert_int_equal(d->cpu[0].sd_llc_size, 1);
	assert_int_equal(d->cpu[0].sd_llc_id, 0);
	ts_domains_free(d);
	ts_topology_free(t);

	struct ts_regular_machine m = {"smt2", "one core, two threads", 1,    1, 1, 1, 1,
				       2,      TS_SMT_ADJACENT,		NULL, 0};
	struct ts_error err = {0};
	t = ts_topology_build_regular(&m, &err);
	assert_non_null(t);
	d = build(t);
	const char *levels[] = {"SMT"}, *spans[] = {"0-1"};
	expect_chain(d, 0, 1, levels, spans);
	assert_ptr_equal(d->cpu[1].sd_llc, d->cpu[1].sd);
	assert_true(d->smt_active);
	check_invariants(d);
	ts_domains_free(d);
	ts_topology_free(t);
}

static void test_asym_capacity(void **state)
{
	(void)state;
	/* big.LITTLE: 4 big + 4 little CPUs, clusters of 4 sharing one LLC */
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(8, 1, &err);
	assert_non_null(t);
	for (int i = 0; i < 8; i++) {
		t->cpu[i] = (struct ts_cpu_topo){.core = i,
						 .cluster = i / 4,
						 .llc = 0,
						 .capacity = i < 4 ? 1024 : 512,
						 .os_index = i};
	}
	assert_int_equal(ts_topology_finish(t, &err), 0);
	struct ts_domains *d = build(t);
	const struct ts_sched_domain *cls = d->cpu[0].sd, *mc = cls->parent;
	assert_string_equal(cls->name, "CLS");
	assert_true(mc->flags & TS_SD_ASYM_CPUCAPACITY);
	assert_true(mc->flags & TS_SD_ASYM_CPUCAPACITY_FULL);
	assert_false(cls->flags & TS_SD_ASYM_CPUCAPACITY);
	/* "Don't attempt to spread across CPUs of different capacities." */
	assert_false(cls->flags & TS_SD_PREFER_SIBLING);
	assert_ptr_equal(d->cpu[0].sd_asym_cpucapacity, mc);
	assert_true(d->asym_cpucapacity);
	assert_int_equal(mc->groups[1]->sgc->capacity, 4 * 512);
	assert_int_equal(mc->groups[0]->sgc->max_capacity, 1024);
	check_invariants(d);
	ts_domains_free(d);
	ts_topology_free(t);
}

static void test_cpu_map_subset(void **state)
{
	(void)state;
	/* Domains of a partition: kunpeng920 restricted to node 0 (like an exclusive cpuset) */
	struct ts_topology *t = preset("kunpeng920");
	struct ts_cpumask *map = ts_cpumask_alloc(t->nr_cpus);
	struct ts_error err = {0};
	assert_int_equal(ts_cpumask_parse(map, "0-31", &err), 0);
	struct ts_domains *d = NULL;
	assert_int_equal(ts_domains_build(t, map, &d, &err), 0);
	const char *levels[] = {"CLS", "MC"}, *spans[] = {"0-3", "0-31"};
	expect_chain(d, 0, 2, levels, spans);
	assert_null(d->cpu[40].sd);
	ts_domains_free(d);
	ts_cpumask_zero(map);
	assert_int_not_equal(ts_domains_build(t, map, &d, &err), 0);
	assert_non_null(strstr(err.msg, "CPU map"));
	ts_cpumask_free(map);
	ts_topology_free(t);
}

static void test_every_preset_is_consistent(void **state)
{
	(void)state;
	int count;
	const struct ts_preset *p = ts_preset_list(&count);
	for (int i = 0; i < count; i++) {
		struct ts_topology *t = preset(p[i].name);
		struct ts_domains *d = build(t);
		check_invariants(d);
		/* LLC domains: kunpeng/jacobsville clusters of 4 are the MC's first group */
		for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
			const struct ts_sched_domain *llc = d->cpu[cpu].sd_llc;
			assert_non_null(llc);
			assert_int_equal(llc->span_weight, ts_cpumask_weight(llc->span));
			if (t->has_clusters)
				assert_true(llc->groups[0]->flags & TS_SD_CLUSTER);
		}
		assert_int_equal(d->cluster_active, t->has_clusters);
		assert_int_equal(d->smt_active, t->has_smt);
		ts_domains_free(d);
		ts_topology_free(t);
	}
}

/* Domains depend only on the topology: a preset exported to hwloc XML and loaded back
 * gives the same domains CPU by CPU. */
static void test_xml_round_trip_gives_same_domains(void **state)
{
	(void)state;
	int count;
	const struct ts_preset *p = ts_preset_list(&count);
	for (int i = 0; i < count; i++) {
		struct ts_topology *t = preset(p[i].name);
		char path[] = "/tmp/ts-roundtrip-XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		FILE *f = fdopen(fd, "w");
		struct ts_error err = {0};
		assert_int_equal(ts_topology_write_xml(t, f, &err), 0);
		fclose(f);
		char spec[64];
		snprintf(spec, sizeof(spec), "xml:%s", path);
		struct ts_topology *back = NULL;
		int rc = ts_topology_load(spec, &back, &err);
		unlink(path);
		if (rc)
			fail_msg("%s: %s", p[i].name, err.msg);
		struct ts_domains *a = build(t), *b = build(back);
		for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
			const struct ts_sched_domain *x = a->cpu[cpu].sd, *y = b->cpu[cpu].sd;
			for (; x && y; x = x->parent, y = y->parent) {
				assert_string_equal(x->name, y->name);
				assert_true(ts_cpumask_equal(x->span, y->span));
				assert_int_equal(x->flags, y->flags);
				assert_int_equal(x->nr_groups, y->nr_groups);
				assert_int_equal(x->imb_numa_nr, y->imb_numa_nr);
			}
			assert_null(x);
			assert_null(y);
			assert_int_equal(a->cpu[cpu].sd_share_id, b->cpu[cpu].sd_share_id);
		}
		ts_domains_free(a);
		ts_domains_free(b);
		ts_topology_free(back);
		ts_topology_free(t);
	}
}

static void test_flags_format(void **state)
{
	(void)state;
	char buf[256];
	size_t n = ts_sd_flags_format(TS_SD_SHARE_LLC | TS_SD_CLUSTER, buf, sizeof(buf));
	assert_string_equal(buf, "SD_CLUSTER|SD_SHARE_LLC");
	assert_int_equal(n, strlen(buf));
	assert_int_equal(ts_sd_flags_format(TS_SD_NUMA, buf, 4), strlen("SD_NUMA"));
	assert_string_equal(ts_sd_flag_name(TS_SD_WAKE_AFFINE), "SD_WAKE_AFFINE");
	assert_null(ts_sd_flag_name(3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jacobsville_cls_mc),
		cmocka_unit_test(test_kunpeng920),
		cmocka_unit_test(test_kunpeng920_48_chain),
		cmocka_unit_test(test_two_socket_smt_collapses),
		cmocka_unit_test(test_epyc_7601),
		cmocka_unit_test(test_numa_ring_groups),
		cmocka_unit_test(test_numa_diameter3_uses_descended_sibling),
		cmocka_unit_test(test_single_cpu_and_smt_only),
		cmocka_unit_test(test_asym_capacity),
		cmocka_unit_test(test_cpu_map_subset),
		cmocka_unit_test(test_no_cluster_level_before_v5_16),
		cmocka_unit_test(test_every_preset_is_consistent),
		cmocka_unit_test(test_xml_round_trip_gives_same_domains),
		cmocka_unit_test(test_flags_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
