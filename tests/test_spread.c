/* cpumask_local_spread() in its three flavours (plain: the node's CPUs then the rest;
 * nearest node first; v6.3's hop by hop, sched_numa_find_nth_cpu()), the hop masks behind
 * it (sched_numa_hop_mask()), on hand-built topologies with known answers and on the presets; plus
 * a model check: each policy is a sort of the online CPUs by a simple key. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo_fixture.h"
#include "toposched/numa_levels.h"
#include "toposched/spread.h"
#include "toposched/topology.h"

/* A topology with one CPU per core/cluster, one LLC per node and one package:
 * only the node of each CPU and the distances matter to spreading. */
static struct ts_topology *hand_topo(int nr_cpus, int nr_nodes, const int *node_of, const int *dist)
{
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_alloc(nr_cpus, nr_nodes, &err);
	if (!t) {
		print_message("alloc: %s\n", err.msg);
		abort(); /* not fail(): cmocka 1.1.5 does not declare it noreturn, and gcc -O2
			  * then warns about t being NULL below */
	}
	snprintf(t->name, sizeof(t->name), "hand-%d-%d", nr_cpus, nr_nodes);
	for (int i = 0; i < nr_cpus; i++) {
		t->cpu[i].core = i;
		t->cpu[i].cluster = i;
		t->cpu[i].llc = node_of[i];
		t->cpu[i].node = node_of[i];
		t->cpu[i].package = 0;
	}
	memcpy(t->distance, dist, (size_t)nr_nodes * (size_t)nr_nodes * sizeof(int));
	if (ts_topology_finish(t, &err))
		fail_msg("finish: %s", err.msg);
	return t;
}

static void levels_init(struct ts_numa_levels *nl, const struct ts_topology *t)
{
	struct ts_error err = {0};
	if (ts_numa_levels_init(nl, t, &err))
		fail_msg("numa levels of %s: %s", t->name, err.msg);
}

static struct ts_cpumask *all_online(const struct ts_topology *t)
{
	struct ts_cpumask *m = ts_cpumask_alloc(t->nr_cpus);
	assert_non_null(m);
	ts_cpumask_fill(m);
	return m;
}

/* The spread order from node as text ("0 1 2 3 8 9 ..."), i = 0..count-1. */
static char *order(const struct ts_numa_levels *nl, const struct ts_cpumask *online,
		   enum ts_spread_policy p, int node, int first_i, int count)
{
	size_t cap = (size_t)count * 6 + 1, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	s[0] = '\0';
	for (int i = first_i; i < first_i + count; i++) {
		int cpu = ts_cpumask_local_spread(nl, online, p, i, node);
		len += (size_t)snprintf(s + len, cap - len, "%s%d", len ? " " : "", cpu);
	}
	return s;
}

static void assert_order(const struct ts_numa_levels *nl, const struct ts_cpumask *online,
			 enum ts_spread_policy p, int node, const char *want)
{
	int n = ts_cpumask_weight(online);
	char *got = order(nl, online, p, node, 0, n);
	if (strcmp(got, want) != 0)
		fail_msg("%s from node %d on %s:\n got  %s\n want %s", ts_spread_policy_name(p),
			 node, nl->topo->name, got, want);
	free(got);
}

/* Sequence of `first..last` ranges as text, e.g. range_list((int[]){0,3, 8,11}, 2). */
static char *ranges(const int *r, int nr)
{
	static char buf[8192];
	size_t len = 0;
	buf[0] = '\0';
	for (int k = 0; k < nr; k++)
		for (int c = r[2 * k]; c <= r[2 * k + 1]; c++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%d",
						len ? " " : "", c);
	return buf;
}
#define RANGES(...)                                                                                \
	ranges((const int[]){__VA_ARGS__},                                                         \
	       (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int) / 2))

/* The distances of Yury Norov's commit "cpumask: improve on cpumask_local_spread() locality"
 * (v6.3), whose message gives the example checked here. Row 0 is the one the
 * message quotes (node1 50, node2 30, node3 70); rows 1-3 are the commit's numactl -H
 * output, and make the matrix symmetric. */
static const int norov_dist[16] = {
	10, 50, 30, 70, 50, 10, 70, 30, 30, 70, 10, 50, 70, 30, 50, 10,
};

/* The commit message's "0 1 2 3 | 6 7 | 4 5 | 8..15" holds for the commit's machine, whose nodes
 * are not equal: node0 = 0-3, node1 = 4-5, node2 = 6-7, node3 = 8-15. From node 0 the
 * hops are node 0 (10), node 2 (30), node 1 (50), node 3 (70). All four rows are the
 * commit's own output. */
static void test_reference_example_commit_numbering(void **state)
{
	(void)state;
	const int node_of[16] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
	struct ts_topology *t = hand_topo(16, 4, node_of, norov_dist);
	struct ts_numa_levels nl;
	levels_init(&nl, t);
	struct ts_cpumask *on = all_online(t);

	assert_int_equal(nl.nr_levels, 4);
	assert_int_equal(nl.distance[0], 10);
	assert_int_equal(nl.distance[1], 30);
	assert_int_equal(nl.distance[2], 50);
	assert_int_equal(nl.distance[3], 70);

	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 0, "0 1 2 3 6 7 4 5 8 9 10 11 12 13 14 15");
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 1, "4 5 8 9 10 11 12 13 14 15 0 1 2 3 6 7");
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 2, "6 7 0 1 2 3 8 9 10 11 12 13 14 15 4 5");
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 3, "8 9 10 11 12 13 14 15 4 5 6 7 0 1 2 3");
	/* Before 6.3 the node came first and then plain id order. */
	assert_order(&nl, on, TS_SPREAD_PLAIN, 0, "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15");
	assert_order(&nl, on, TS_SPREAD_PLAIN, 2, "6 7 0 1 2 3 4 5 8 9 10 11 12 13 14 15");

	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);
}

/* The same distances on 4 nodes x 4 CPUs (node k = CPUs 4k..4k+3): from node 0 the order is
 * node 0, node 2 (30), node 1 (50), node 3 (70) = 0-3 | 8-11 | 4-7 | 12-15. */
static void test_reference_example_4x4(void **state)
{
	(void)state;
	const int node_of[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
	struct ts_topology *t = hand_topo(16, 4, node_of, norov_dist);
	struct ts_numa_levels nl;
	levels_init(&nl, t);
	struct ts_cpumask *on = all_online(t);

	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 0, RANGES(0, 3, 8, 11, 4, 7, 12, 15));
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 1, RANGES(4, 7, 12, 15, 0, 3, 8, 11));
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 2, RANGES(8, 11, 0, 3, 12, 15, 4, 7));
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 3, RANGES(12, 15, 4, 7, 8, 11, 0, 3));
	/* Every remote distance from one node is distinct here, so the 2019 proposal agrees. */
	for (int node = 0; node < 4; node++) {
		char *hops = order(&nl, on, TS_SPREAD_NUMA_HOPS, node, 0, 16);
		char *near = order(&nl, on, TS_SPREAD_NEAREST_NODE, node, 0, 16);
		assert_string_equal(hops, near);
		free(hops);
		free(near);
	}
	/* plain: the node's CPUs, then all others in id order */
	assert_order(&nl, on, TS_SPREAD_PLAIN, 0, RANGES(0, 15));
	assert_order(&nl, on, TS_SPREAD_PLAIN, 2, RANGES(8, 11, 0, 7, 12, 15));
	assert_order(&nl, on, TS_SPREAD_PLAIN, 3, RANGES(12, 15, 0, 11));

	/* hop masks are cumulative, and NULL past the last hop */
	const char *want[] = {"0-3", "0-3,8-11", "0-11", "0-15"};
	for (int h = 0; h < 4; h++) {
		const struct ts_cpumask *m = ts_sched_numa_hop_mask(&nl, 0, h);
		assert_non_null(m);
		char *s = ts_cpumask_to_string(m);
		assert_string_equal(s, want[h]);
		free(s);
	}
	assert_null(ts_sched_numa_hop_mask(&nl, 0, 4));
	assert_null(ts_sched_numa_hop_mask(&nl, 0, -1));
	assert_null(ts_sched_numa_hop_mask(&nl, 4, 0));
	assert_null(ts_sched_numa_hop_mask(&nl, -1, 0));

	/* the idiom of sched_numa_hop_mask()'s callers (for_each_numa_hop_mask): andnot the
	 * previous hop to visit each CPU once, nearest first */
	for (int node = 0; node < 4; node++) {
		const struct ts_cpumask *mask, *prev = NULL;
		int hop, cpu, i = 0, nr_masks = 0;
		ts_for_each_numa_hop_mask(&nl, mask, node, on, hop)
		{
			if (prev)
				assert_true(ts_cpumask_subset(prev, mask));
			struct ts_cpumask *empty = ts_cpumask_alloc(16);
			assert_non_null(empty);
			ts_for_each_cpu_andnot(cpu, mask, prev ? prev : empty)
			{
				assert_int_equal(cpu, ts_cpumask_local_spread(&nl, on,
									      TS_SPREAD_NUMA_HOPS,
									      i, node));
				i++;
			}
			ts_cpumask_free(empty);
			prev = mask;
			nr_masks++;
		}
		assert_int_equal(nr_masks, 4);
		assert_int_equal(i, 16);
		assert_int_equal(ts_cpumask_weight(prev), 16);
	}
	/* NUMA_NO_NODE yields the online mask once */
	const struct ts_cpumask *mask;
	int hop, nr = 0;
	ts_for_each_numa_hop_mask(&nl, mask, TS_NUMA_NO_NODE, on, hop)
	{
		assert_ptr_equal(mask, on);
		nr++;
	}
	assert_int_equal(nr, 1);

	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);
}

/* Interleaved numbering (CPU c on node c % 4) with a tie: from node 0, nodes 1 and 2 are
 * both at 20. numa-hops puts them in one hop, CPUs in id order across the two nodes;
 * nearest-node takes node 1 whole, then node 2 (ties to the lower id). */
static void test_ties_and_interleaving(void **state)
{
	(void)state;
	const int node_of[8] = {0, 1, 2, 3, 0, 1, 2, 3};
	const int dist[16] = {
		10, 20, 20, 30, 20, 10, 30, 20, 20, 30, 10, 20, 30, 20, 20, 10,
	};
	struct ts_topology *t = hand_topo(8, 4, node_of, dist);
	struct ts_numa_levels nl;
	levels_init(&nl, t);
	struct ts_cpumask *on = all_online(t);

	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 0, "0 4 1 2 5 6 3 7");
	assert_order(&nl, on, TS_SPREAD_NEAREST_NODE, 0, "0 4 1 5 2 6 3 7");
	assert_order(&nl, on, TS_SPREAD_PLAIN, 0, "0 4 1 2 3 5 6 7");
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 3, "3 7 1 2 5 6 0 4");
	assert_order(&nl, on, TS_SPREAD_NEAREST_NODE, 3, "3 7 1 5 2 6 0 4");
	assert_order(&nl, on, TS_SPREAD_NEAREST_NODE, 2, "2 6 0 4 3 7 1 5");

	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);
}

/* i wraps modulo the online count; NUMA_NO_NODE is plain id order for every policy;
 * offline CPUs are skipped; an empty online mask gives nr_cpus. */
static void test_wrap_no_node_online(void **state)
{
	(void)state;
	const int node_of[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
	struct ts_topology *t = hand_topo(16, 4, node_of, norov_dist);
	struct ts_numa_levels nl;
	levels_init(&nl, t);
	struct ts_cpumask *on = all_online(t);
	const enum ts_spread_policy pol[] = {TS_SPREAD_PLAIN, TS_SPREAD_NEAREST_NODE,
					     TS_SPREAD_NUMA_HOPS};

	for (int p = 0; p < 3; p++) {
		for (int node = 0; node < 4; node++) {
			for (int i = 0; i < 16; i++) {
				int base = ts_cpumask_local_spread(&nl, on, pol[p], i, node);
				assert_int_equal(
					ts_cpumask_local_spread(&nl, on, pol[p], i + 16, node),
					base);
				assert_int_equal(
					ts_cpumask_local_spread(&nl, on, pol[p], i + 160, node),
					base);
			}
		}
		for (int i = 0; i < 40; i++)
			assert_int_equal(
				ts_cpumask_local_spread(&nl, on, pol[p], i, TS_NUMA_NO_NODE),
				i % 16);
	}
	/* the 16-th index from node 0 (hops) is CPU 0 again */
	char *s = order(&nl, on, TS_SPREAD_NUMA_HOPS, 0, 14, 4);
	assert_string_equal(s, "14 15 0 1");
	free(s);

	/* Node 3 and CPU 9 offline: i wraps modulo the 11 online CPUs. */
	struct ts_cpumask *some = ts_cpumask_alloc(16);
	assert_non_null(some);
	struct ts_error err = {0};
	assert_int_equal(ts_cpumask_parse(some, "0-8,10-11", &err), 0);
	assert_order(&nl, some, TS_SPREAD_NUMA_HOPS, 0, "0 1 2 3 8 10 11 4 5 6 7");
	assert_order(&nl, some, TS_SPREAD_NUMA_HOPS, 3, "4 5 6 7 8 10 11 0 1 2 3");
	assert_order(&nl, some, TS_SPREAD_NEAREST_NODE, 3, "4 5 6 7 8 10 11 0 1 2 3");
	assert_order(&nl, some, TS_SPREAD_PLAIN, 2, "8 10 11 0 1 2 3 4 5 6 7");
	assert_order(&nl, some, TS_SPREAD_PLAIN, 3, "0 1 2 3 4 5 6 7 8 10 11");
	assert_int_equal(ts_cpumask_local_spread(&nl, some, TS_SPREAD_NUMA_HOPS, 11, 0), 0);
	assert_int_equal(ts_cpumask_local_spread(&nl, some, TS_SPREAD_NUMA_HOPS, 12, 0), 1);
	assert_int_equal(
		ts_cpumask_local_spread(&nl, some, TS_SPREAD_NUMA_HOPS, 4, TS_NUMA_NO_NODE), 4);
	assert_int_equal(
		ts_cpumask_local_spread(&nl, some, TS_SPREAD_NUMA_HOPS, 9, TS_NUMA_NO_NODE), 10);

	/* sched_numa_find_nth_cpu: past the last CPU of cpus gives nr_cpus (no wrap there) */
	assert_int_equal(ts_sched_numa_find_nth_cpu(&nl, some, 10, 0), 7);
	assert_int_equal(ts_sched_numa_find_nth_cpu(&nl, some, 11, 0), 16);
	assert_int_equal(ts_sched_numa_find_nth_cpu(&nl, some, 11, TS_NUMA_NO_NODE), 16);
	assert_int_equal(ts_sched_numa_find_nth_cpu(&nl, on, 4, 0), 8);

	ts_cpumask_zero(some);
	for (int p = 0; p < 3; p++) {
		assert_int_equal(ts_cpumask_local_spread(&nl, some, pol[p], 0, 0), 16);
		assert_int_equal(ts_cpumask_local_spread(&nl, some, pol[p], 5, TS_NUMA_NO_NODE),
				 16);
	}

	ts_cpumask_free(some);
	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);
}

/* A memory-only node spreads from the nearest node with CPUs (numa_nearest_node(N_CPU));
 * its distances take no part in the NUMA levels. */
static void test_cpuless_node(void **state)
{
	(void)state;
	/* node0 = 0-3, node1 memory only, node2 = 4-7; node 1 is nearer to node 2 (12 < 15) */
	const int node_of[8] = {0, 0, 0, 0, 2, 2, 2, 2};
	const int dist[9] = {
		10, 15, 20, 15, 10, 12, 20, 12, 10,
	};
	struct ts_topology *t = hand_topo(8, 3, node_of, dist);
	struct ts_numa_levels nl;
	levels_init(&nl, t);
	struct ts_cpumask *on = all_online(t);

	assert_int_equal(ts_topology_node_weight(t, 1), 0);
	assert_int_equal(nl.nr_levels, 2); /* 10 and 20: 12 and 15 involve the CPU-less node */
	assert_int_equal(nl.distance[1], 20);
	assert_int_equal(ts_numa_nearest_node(&nl, 1), 2);
	assert_int_equal(ts_numa_nearest_node(&nl, 0), 0);
	assert_null(ts_numa_mask(&nl, 0, 1)); /* as in the kernel: no masks for CPU-less nodes */

	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 1, "4 5 6 7 0 1 2 3");
	assert_order(&nl, on, TS_SPREAD_NEAREST_NODE, 1, "4 5 6 7 0 1 2 3");
	/* spread.c maps the node for the older flavours too (the kernel before 6.3 found no
	 * local CPUs and fell back to id order); this asserts the project's documented choice. */
	assert_order(&nl, on, TS_SPREAD_PLAIN, 1, "4 5 6 7 0 1 2 3");
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 0, "0 1 2 3 4 5 6 7");
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 2, "4 5 6 7 0 1 2 3");

	const struct ts_cpumask *m = ts_sched_numa_hop_mask(&nl, 1, 0);
	assert_non_null(m);
	assert_ptr_equal(m, ts_numa_mask(&nl, 0, 2));
	char *s = ts_cpumask_to_string(m);
	assert_string_equal(s, "4-7");
	free(s);
	assert_null(ts_sched_numa_hop_mask(&nl, 1, 2));

	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);

	/* equidistant CPU-less node: ties go to the lower node id */
	const int dist_tie[9] = {
		10, 15, 20, 15, 10, 15, 20, 15, 10,
	};
	t = hand_topo(8, 3, node_of, dist_tie);
	levels_init(&nl, t);
	on = all_online(t);
	assert_int_equal(ts_numa_nearest_node(&nl, 1), 0);
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 1, "0 1 2 3 4 5 6 7");
	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);
}

/* Kunpeng 920 (SLIT row of node 1: 16 10 25 32): node 1, then node 0, 2, 3. */
static void test_preset_kunpeng920(void **state)
{
	(void)state;
	struct ts_topology *t = preset("kunpeng920");
	struct ts_numa_levels nl;
	levels_init(&nl, t);
	struct ts_cpumask *on = all_online(t);

	assert_int_equal(ts_topo_distance(t, 1, 0), 16);
	assert_int_equal(ts_topo_distance(t, 1, 2), 25);
	assert_int_equal(ts_topo_distance(t, 1, 3), 32);
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 1, RANGES(32, 63, 0, 31, 64, 95, 96, 127));
	assert_order(&nl, on, TS_SPREAD_NEAREST_NODE, 1, RANGES(32, 63, 0, 31, 64, 95, 96, 127));
	assert_order(&nl, on, TS_SPREAD_PLAIN, 1, RANGES(32, 63, 0, 31, 64, 127));
	/* node 3 (row 33 32 16 10): 96-127, 64-95, 32-63, 0-31 */
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 3, RANGES(96, 127, 64, 95, 32, 63, 0, 31));
	/* the last two levels (32, 33) both cover every CPU from node 1 */
	const char *want[] = {"32-63", "0-63", "0-95", "0-127", "0-127"};
	int hop;
	const struct ts_cpumask *m;
	ts_for_each_numa_hop_mask(&nl, m, 1, on, hop)
	{
		assert_true(hop < 5);
		char *s = ts_cpumask_to_string(m);
		assert_string_equal(s, want[hop]);
		free(s);
	}
	assert_int_equal(hop, 5); /* 5 distinct distances: 10 16 25 32 33 */
	assert_int_equal(nl.nr_levels, 5);

	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);
}

/* EPYC 7601 (x86 split numbering, node0 = 0-7,64-71; SLIT 10/16/32): from node 0, its own
 * CPUs, then the other three nodes of socket 0 together in id order, then socket 1. */
static void test_preset_epyc_7601(void **state)
{
	(void)state;
	struct ts_topology *t = preset("epyc-7601");
	struct ts_numa_levels nl;
	levels_init(&nl, t);
	struct ts_cpumask *on = all_online(t);

	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 0,
		     RANGES(0, 7, 64, 71, 8, 31, 72, 95, 32, 63, 96, 127));
	/* node by node instead: node 1 = 8-15,72-79 comes whole before node 2 */
	assert_order(&nl, on, TS_SPREAD_NEAREST_NODE, 0,
		     RANGES(0, 7, 64, 71, 8, 15, 72, 79, 16, 23, 80, 87, 24, 31, 88, 95, 32, 39, 96,
			    103, 40, 47, 104, 111, 48, 55, 112, 119, 56, 63, 120, 127));
	assert_order(&nl, on, TS_SPREAD_NUMA_HOPS, 5,
		     RANGES(40, 47, 104, 111, 32, 39, 48, 63, 96, 103, 112, 127, 0, 31, 64, 95));
	ts_cpumask_free(on);
	ts_numa_levels_destroy(&nl);
	ts_topology_free(t);
}

/* Model: each policy sorts the online CPUs by a key; check every preset and node, with all
 * CPUs online and with a fixed pseudo-random subset. */
struct keyed {
	int k1, k2, cpu;
};
static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static void check_model(const struct ts_numa_levels *nl, const struct ts_cpumask *on,
			enum ts_spread_policy p, int node)
{
	const struct ts_topology *t = nl->topo;
	int w = ts_cpumask_weight(on), n = 0, cpu;
	struct keyed *k = calloc((size_t)w, sizeof(*k));
	assert_non_null(k);
	int from = ts_numa_nearest_node(nl, node);
	ts_for_each_cpu(cpu, on)
	{
		int cn = t->cpu[cpu].node;
		switch (p) {
		case TS_SPREAD_NUMA_HOPS:
			k[n] = (struct keyed){ts_topo_distance(t, from, cn), 0, cpu};
			break;
		case TS_SPREAD_NEAREST_NODE:
			k[n] = (struct keyed){ts_topo_distance(t, from, cn), cn, cpu};
			break;
		default:
			k[n] = (struct keyed){cn != from, 0, cpu};
			break;
		}
		n++;
	}
	qsort(k, (size_t)w, sizeof(*k), cmp_keyed);
	for (int i = 0; i < w; i++) {
		int got = ts_cpumask_local_spread(nl, on, p, i, node);
		if (got != k[i].cpu)
			fail_msg("%s %s node %d: i=%d gives CPU %d, model says %d", t->name,
				 ts_spread_policy_name(p), node, i, got, k[i].cpu);
	}
	free(k);
}

static void test_model_all_presets(void **state)
{
	(void)state;
	int count;
	const struct ts_preset *list = ts_preset_list(&count);
	assert_int_equal(count, 10);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < count; i++) {
		struct ts_topology *t = preset(list[i].name);
		struct ts_numa_levels nl;
		levels_init(&nl, t);
		struct ts_cpumask *on = all_online(t), *some = ts_cpumask_alloc(t->nr_cpus);
		assert_non_null(some);
		for (int c = 0; c < t->nr_cpus; c++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (x % 3)
				ts_cpumask_set(some, c);
		}
		for (int node = 0; node < t->nr_nodes; node++) {
			for (int p = 0; p < 3; p++) {
				check_model(&nl, on, (enum ts_spread_policy)p, node);
				check_model(&nl, some, (enum ts_spread_policy)p, node);
			}
		}
		ts_cpumask_free(some);
		ts_cpumask_free(on);
		ts_numa_levels_destroy(&nl);
		ts_topology_free(t);
	}
}

static void test_policy_parse(void **state)
{
	(void)state;
	const struct {
		const char *name;
		enum ts_spread_policy p;
	} ok[] = {
		{"plain", TS_SPREAD_PLAIN},
		{"nearest-node", TS_SPREAD_NEAREST_NODE},
		{"numa-hops", TS_SPREAD_NUMA_HOPS},
	};
	for (size_t i = 0; i < 3; i++) {
		struct ts_error err = {0};
		enum ts_spread_policy p = (enum ts_spread_policy) - 1;
		assert_int_equal(ts_spread_policy_parse(ok[i].name, &p, &err), 0);
		assert_int_equal(p, ok[i].p);
		assert_int_equal(err.code, 0);
		assert_string_equal(ts_spread_policy_name(p), ok[i].name);
	}
	const char *bad[] = {"bogus", "", "numa", "numa-hops ", "PLAIN"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ts_error err = {0};
		enum ts_spread_policy p = TS_SPREAD_PLAIN;
		assert_int_equal(ts_spread_policy_parse(bad[i], &p, &err), -EINVAL);
		assert_int_equal(p, TS_SPREAD_PLAIN); /* untouched */
		char quoted[64];
		snprintf(quoted, sizeof(quoted), "'%s'", bad[i]);
		if (!strstr(err.msg, quoted) || !strstr(err.msg, "unknown") ||
		    !strstr(err.msg, "numa-hops"))
			fail_msg(
				"policy '%s': message '%s' must name it, say unknown, list choices",
				bad[i], err.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_example_commit_numbering),
		cmocka_unit_test(test_reference_example_4x4),
		cmocka_unit_test(test_ties_and_interleaving),
		cmocka_unit_test(test_wrap_no_node_online),
		cmocka_unit_test(test_cpuless_node),
		cmocka_unit_test(test_preset_kunpeng920),
		cmocka_unit_test(test_preset_epyc_7601),
		cmocka_unit_test(test_model_all_presets),
		cmocka_unit_test(test_policy_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
