/* Built-in machines: counts, SLIT, and the CPU numbering Linux shows on the real boxes
 * (the sources each preset names in src/topo/presets.c); plus the regular-machine builder's
 * numbering and input validation. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/topology.h"
/* The builder is internal to src/topo; the presets are its only public face. */
#include "../src/topo/topo_build.h"

struct expect {
	const char *name;
	int cpus, cores, clusters, llcs, nodes, packages;
	bool smt, clusters_flag;
	bool smt_split;	 /* x86 numbering: CPU c + nr_cores is the sibling of CPU c */
	int distinct[6]; /* sorted distinct SLIT values, 0-terminated */
};

static const struct expect expected[] = {
	{"kunpeng920", 128, 128, 32, 4, 4, 2, false, true, false, {10, 16, 25, 32, 33}},
	{"kunpeng920-48", 96, 96, 24, 4, 4, 2, false, true, false, {10, 12, 20, 22, 24}},
	{"epyc-7601", 128, 64, 64, 16, 8, 2, true, false, true, {10, 16, 32}},
	{"epyc-7742", 256, 128, 128, 32, 2, 2, true, false, true, {10, 32}},
	{"epyc-7742-nps4", 256, 128, 128, 32, 8, 2, true, false, true, {10, 12, 32}},
	{"broadwell-2s", 80, 40, 40, 2, 2, 2, true, false, true, {10, 21}},
	{"icelake-2s", 160, 80, 80, 2, 2, 2, true, false, true, {10, 20}},
	{"spr-2s", 224, 112, 112, 2, 2, 2, true, false, true, {10, 21}},
	{"spr-2s-snc4", 224, 112, 112, 8, 8, 2, true, false, true, {10, 12, 21}},
	{"jacobsville", 24, 24, 6, 1, 1, 1, false, true, false, {10}},
};
#define NR_EXPECTED ((int)(sizeof(expected) / sizeof(expected[0])))

static struct ts_topology *build(const char *name)
{
	const struct ts_preset *p = ts_preset_find(name);
	struct ts_error err = {0};

	assert_non_null(p);
	struct ts_topology *t = p->build(&err);
	if (!t)
		fail_msg("preset %s: %s", name, err.msg);
	assert_int_equal(err.code, 0);
	return t;
}

static int id_of(const struct ts_cpu_topo *c, int level)
{
	switch (level) {
	case 0:
		return c->core;
	case 1:
		return c->cluster;
	case 2:
		return c->llc;
	case 3:
		return c->node;
	default:
		return c->package;
	}
}

/* Ids are dense and appear in order of each object's lowest CPU; all objects of a level
 * have the same size (the machines are regular). */
static void check_level(const struct ts_topology *t, int level, int count)
{
	int next = 0, size[TS_MAX_CPUS];

	memset(size, 0, sizeof(size));
	for (int i = 0; i < t->nr_cpus; i++) {
		int id = id_of(&t->cpu[i], level);

		assert_in_range(id, 0, count - 1);
		if (size[id] == 0) {
			assert_int_equal(id, next);
			next++;
		}
		size[id]++;
	}
	assert_int_equal(next, count);
	for (int k = 0; k < count; k++)
		assert_int_equal(size[k], t->nr_cpus / count);
}

static void check_preset(const struct expect *e)
{
	struct ts_topology *t = build(e->name);

	assert_string_equal(t->name, e->name);
	assert_string_equal(t->description, ts_preset_find(e->name)->description);
	assert_int_equal(t->nr_cpus, e->cpus);
	assert_int_equal(t->nr_cores, e->cores);
	assert_int_equal(t->nr_clusters, e->clusters);
	assert_int_equal(t->nr_llcs, e->llcs);
	assert_int_equal(t->nr_nodes, e->nodes);
	assert_int_equal(t->nr_packages, e->packages);
	assert_int_equal(t->has_smt, e->smt);
	assert_int_equal(t->has_clusters, e->clusters_flag);

	check_level(t, 0, e->cores);
	check_level(t, 1, e->clusters);
	check_level(t, 2, e->llcs);
	check_level(t, 3, e->nodes);
	check_level(t, 4, e->packages);
	for (int i = 0; i < t->nr_cpus; i++) {
		assert_int_equal(t->cpu[i].os_index, i);
		assert_int_equal(t->cpu[i].capacity, TS_CAPACITY_SCALE);
		if (e->smt_split && i < t->nr_cores)
			assert_int_equal(t->cpu[i + t->nr_cores].core, t->cpu[i].core);
	}

	/* Symmetric, 10 on the diagonal, and exactly the expected distinct values. */
	bool seen[TS_MAX_DISTANCE + 1] = {false};
	for (int a = 0; a < t->nr_nodes; a++) {
		assert_int_equal(ts_topo_distance(t, a, a), TS_LOCAL_DISTANCE);
		for (int b = 0; b < t->nr_nodes; b++) {
			int d = ts_topo_distance(t, a, b);

			assert_int_equal(d, ts_topo_distance(t, b, a));
			assert_in_range(d, TS_LOCAL_DISTANCE, TS_MAX_DISTANCE);
			assert_true(a == b || d > TS_LOCAL_DISTANCE);
			seen[d] = true;
		}
	}
	int k = 0;
	for (int d = 0; d <= TS_MAX_DISTANCE; d++) {
		if (!seen[d])
			continue;
		assert_true(k < 6);
		assert_int_equal(d, e->distinct[k]);
		k++;
	}
	assert_true(k == 6 || e->distinct[k] == 0);

	ts_topology_free(t);
}

static void test_all_presets(void **state)
{
	(void)state;
	for (int i = 0; i < NR_EXPECTED; i++)
		check_preset(&expected[i]);
}

static void test_list(void **state)
{
	int count = -1;
	const struct ts_preset *list = ts_preset_list(&count);

	(void)state;
	assert_int_equal(count, 10);
	assert_int_equal(count, NR_EXPECTED);
	for (int i = 0; i < count; i++) {
		assert_string_equal(list[i].name, expected[i].name);
		assert_non_null(list[i].description);
		assert_true(strlen(list[i].description) <
			    sizeof(((struct ts_topology *)0)->description));
		assert_ptr_equal(ts_preset_find(list[i].name), &list[i]);
	}
	assert_non_null(ts_preset_list(NULL));
}

static void test_find_unknown(void **state)
{
	(void)state;
	assert_null(ts_preset_find("no-such-machine"));
	assert_null(ts_preset_find(""));
	assert_null(ts_preset_find("Kunpeng920")); /* case-sensitive */
	assert_null(ts_preset_find("kunpeng92"));  /* exact, not a prefix */
	assert_null(ts_preset_find(NULL));
}

#define SAME(t, field, a, b) assert_int_equal((t)->cpu[a].field, (t)->cpu[b].field)
#define DIFF(t, field, a, b) assert_int_not_equal((t)->cpu[a].field, (t)->cpu[b].field)

static void test_kunpeng920_numbering(void **state)
{
	struct ts_topology *t = build("kunpeng920");

	(void)state;
	SAME(t, cluster, 0, 1);
	SAME(t, cluster, 0, 3);
	DIFF(t, cluster, 0, 4);
	SAME(t, llc, 0, 4);
	SAME(t, llc, 0, 31);
	DIFF(t, llc, 0, 32);
	assert_int_equal(t->cpu[31].node, 0);
	assert_int_equal(t->cpu[32].node, 1);
	assert_int_equal(t->cpu[32].package, 0);
	assert_int_equal(t->cpu[64].node, 2);
	assert_int_equal(t->cpu[64].package, 1);
	assert_int_equal(t->cpu[127].node, 3);
	/* XA320 V2 SLIT, asymmetric-looking but symmetric: 0<->3 is the farthest. */
	assert_int_equal(ts_topo_distance(t, 0, 1), 16);
	assert_int_equal(ts_topo_distance(t, 1, 2), 25);
	assert_int_equal(ts_topo_distance(t, 0, 3), 33);
	ts_topology_free(t);

	t = build("kunpeng920-48");
	assert_int_equal(t->cpu[23].node, 0);
	assert_int_equal(t->cpu[24].node, 1);
	assert_int_equal(t->cpu[48].node, 2);
	assert_int_equal(t->cpu[72].node, 3);
	SAME(t, cluster, 20, 23);
	DIFF(t, cluster, 23, 24);
	assert_int_equal(ts_topo_distance(t, 1, 3), 24); /* the 1-0-2-3 chain */
	assert_int_equal(ts_topo_distance(t, 0, 2), 20);
	ts_topology_free(t);
}

static void test_epyc_numbering(void **state)
{
	struct ts_topology *t = build("epyc-7601");

	(void)state;
	/* node0 = 0-7,64-71; node4 = 32-39,96-103 */
	SAME(t, core, 0, 64);
	assert_int_equal(t->cpu[64].node, 0);
	assert_int_equal(t->cpu[71].node, 0);
	assert_int_equal(t->cpu[8].node, 1);
	assert_int_equal(t->cpu[72].node, 1);
	assert_int_equal(t->cpu[32].node, 4);
	assert_int_equal(t->cpu[96].node, 4);
	assert_int_equal(t->cpu[32].package, 1);
	/* CCX = 4 cores = the LLC; no cluster level below it */
	SAME(t, llc, 0, 3);
	SAME(t, llc, 0, 67);
	DIFF(t, llc, 0, 4);
	SAME(t, node, 0, 4);
	DIFF(t, cluster, 0, 1);
	SAME(t, cluster, 0, 64);
	assert_int_equal(ts_topo_distance(t, 0, 3), 16);
	assert_int_equal(ts_topo_distance(t, 0, 4), 32);
	ts_topology_free(t);

	t = build("epyc-7742");
	SAME(t, core, 0, 128);
	assert_int_equal(t->cpu[191].node, 0);
	assert_int_equal(t->cpu[64].node, 1);
	assert_int_equal(t->cpu[192].node, 1);
	DIFF(t, llc, 3, 4);
	ts_topology_free(t);

	t = build("epyc-7742-nps4");
	/* ARCHER2: node0 = 0-15,128-143 */
	assert_int_equal(t->cpu[15].node, 0);
	assert_int_equal(t->cpu[143].node, 0);
	assert_int_equal(t->cpu[16].node, 1);
	assert_int_equal(t->cpu[144].node, 1);
	assert_int_equal(t->cpu[64].node, 4);
	assert_int_equal(ts_topo_distance(t, 0, 3), 12);
	assert_int_equal(ts_topo_distance(t, 3, 4), 32);
	ts_topology_free(t);
}

static void test_intel_numbering(void **state)
{
	struct ts_topology *t = build("broadwell-2s");

	(void)state;
	SAME(t, core, 0, 40);
	assert_int_equal(t->cpu[59].node, 0);
	assert_int_equal(t->cpu[20].node, 1);
	SAME(t, llc, 0, 59);
	ts_topology_free(t);

	t = build("icelake-2s");
	SAME(t, core, 0, 80);
	assert_int_equal(t->cpu[119].node, 0);
	assert_int_equal(t->cpu[40].node, 1);
	ts_topology_free(t);

	t = build("spr-2s");
	SAME(t, core, 0, 112);
	SAME(t, llc, 0, 55);
	SAME(t, llc, 0, 167); /* 112 CPUs in one LLC */
	assert_int_equal(t->cpu[56].node, 1);
	ts_topology_free(t);

	t = build("spr-2s-snc4");
	SAME(t, core, 0, 112);
	assert_int_equal(t->cpu[13].node, 0);
	assert_int_equal(t->cpu[125].node, 0);
	assert_int_equal(t->cpu[14].node, 1);
	assert_int_equal(t->cpu[126].node, 1);
	assert_int_equal(t->cpu[14].package, 0);
	assert_int_equal(t->cpu[56].node, 4);
	assert_int_equal(t->cpu[56].package, 1);
	DIFF(t, llc, 13, 14); /* LLC split at the SNC node boundary */
	SAME(t, llc, 0, 125);
	assert_int_equal(ts_topo_distance(t, 0, 1), 12);
	assert_int_equal(ts_topo_distance(t, 0, 4), 21);
	ts_topology_free(t);
}

static void test_jacobsville(void **state)
{
	struct ts_topology *t = build("jacobsville");

	(void)state;
	assert_int_equal(t->nr_clusters, 6);
	assert_int_equal(t->nr_llcs, 1);
	SAME(t, cluster, 0, 3);
	DIFF(t, cluster, 3, 4);
	SAME(t, cluster, 20, 23);
	SAME(t, llc, 0, 23);
	assert_int_equal(ts_topo_distance(t, 0, 0), 10);
	ts_topology_free(t);
}

static const struct ts_regular_machine small = {
	.name = "small",
	.description = "test machine",
	.packages = 1,
	.nodes_per_package = 2,
	.llcs_per_node = 1,
	.clusters_per_llc = 1,
	.cores_per_cluster = 2,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = NULL,
};

static void test_regular_numbering(void **state)
{
	struct ts_regular_machine m = small;
	struct ts_error err = {0};
	struct ts_topology *t = ts_topology_build_regular(&m, &err);

	(void)state;
	assert_non_null(t);
	assert_string_equal(t->name, "small");
	assert_string_equal(t->description, "test machine");
	/* split: cores 0-3 get CPUs 0-3, their second threads 4-7 */
	SAME(t, core, 0, 4);
	DIFF(t, core, 0, 1);
	assert_int_equal(t->cpu[1].node, 0);
	assert_int_equal(t->cpu[2].node, 1);
	assert_int_equal(t->cpu[5].node, 0);
	assert_int_equal(t->nr_clusters, t->nr_cores);
	assert_false(t->has_clusters);
	/* no SLIT given: Linux's 10/20 */
	assert_int_equal(ts_topo_distance(t, 0, 1), TS_REMOTE_DISTANCE);
	ts_topology_free(t);

	m.smt_numbering = TS_SMT_ADJACENT;
	t = ts_topology_build_regular(&m, &err);
	assert_non_null(t);
	SAME(t, core, 0, 1);
	DIFF(t, core, 1, 2);
	assert_int_equal(t->cpu[3].node, 0);
	assert_int_equal(t->cpu[4].node, 1);
	ts_topology_free(t);

	/* clusters of 2 cores inside a 4-core LLC */
	m = small;
	m.nodes_per_package = 1;
	m.clusters_per_llc = 2;
	m.threads_per_core = 1;
	t = ts_topology_build_regular(&m, &err);
	assert_non_null(t);
	assert_int_equal(t->nr_clusters, 2);
	assert_true(t->has_clusters);
	SAME(t, cluster, 0, 1);
	DIFF(t, cluster, 1, 2);
	ts_topology_free(t);
}

static void expect_invalid(const struct ts_regular_machine *m, const char *needle)
{
	struct ts_error err = {0};

	assert_null(ts_topology_build_regular(m, &err));
	assert_int_equal(err.code, -EINVAL);
	if (!strstr(err.msg, needle))
		fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void test_regular_invalid(void **state)
{
	struct ts_regular_machine m = small;

	(void)state;
	m.cores_per_cluster = 0;
	expect_invalid(&m, "cores_per_cluster");
	m = small;
	m.packages = -3;
	expect_invalid(&m, "packages");
	m = small;
	m.threads_per_core = 0;
	expect_invalid(&m, "threads_per_core");
	m = small;
	m.cores_per_cluster = TS_MAX_CPUS; /* 2 nodes x 8192 x 2 threads */
	expect_invalid(&m, "CPUs");
	m = small;
	m.packages = INT_MAX; /* must not overflow on the way to the check */
	m.nodes_per_package = INT_MAX;
	m.cores_per_cluster = INT_MAX;
	expect_invalid(&m, "nodes");
	m = small;
	m.llcs_per_node = INT_MAX;
	m.clusters_per_llc = INT_MAX;
	m.cores_per_cluster = INT_MAX;
	expect_invalid(&m, "CPUs");
	m = small;
	m.smt_numbering = (enum ts_smt_numbering)7;
	expect_invalid(&m, "SMT");

	/* a bad SLIT is caught by ts_topology_finish() */
	static const int bad[] = {10, 20, 20, 12}; /* node 1 to itself: not 10 */
	struct ts_error err = {0};
	m = small;
	m.distance = bad;
	assert_null(ts_topology_build_regular(&m, &err));
	assert_true(err.code < 0);
	assert_non_null(strstr(err.msg, "small"));

	assert_null(ts_topology_build_regular(NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_presets),	cmocka_unit_test(test_list),
		cmocka_unit_test(test_find_unknown),	cmocka_unit_test(test_kunpeng920_numbering),
		cmocka_unit_test(test_epyc_numbering),	cmocka_unit_test(test_intel_numbering),
		cmocka_unit_test(test_jacobsville),	cmocka_unit_test(test_regular_numbering),
		cmocka_unit_test(test_regular_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
