/* The simulator's machine cost model (src/sim/cost_model.c, docs/model.md): every preset
 * yields a complete model whose tiers are positive and monotone by distance, whose n/a
 * tiers are exactly the relations the preset's topology lacks, and whose spot values are
 * the published figures; the generic model for other topologies; the pairwise getters
 * on kunpeng920; the --cost override syntax and each of its error classes; and
 * 'toposched machines --costs'. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "toposched/cost_model.h"
#include "toposched/topology.h"

#include "test_support.h"

#define EPS 1e-9

static struct ts_topology *load(const char *spec)
{
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	if (ts_topology_load(spec, &t, &err)) {
		print_message("load '%s': %s\n", spec, err.msg);
		fail();
	}
	return t;
}

static void model_for(const struct ts_topology *t, const char *name, struct ts_cost_model *m)
{
	struct ts_error err = {0};
	if (ts_cost_model_for(t, name, m, &err)) {
		print_message("cost model %s: %s\n", name ? name : "(generic)", err.msg);
		fail();
	}
}

static double term(const struct ts_cost_model *m, const char *name)
{
	const struct ts_cost_term *t = ts_cost_model_term(m, name);
	if (!t) {
		print_message("no term '%s'\n", name);
		fail();
	}
	return t->value;
}

static const char *source(const struct ts_cost_model *m, const char *name)
{
	const struct ts_cost_term *t = ts_cost_model_term(m, name);
	assert_non_null(t);
	return t->source;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *const source_kinds[] = {
	"measured: ", "derived: ",    "declared: ", "estimate: ",   "estimate (",
	"n/a: ",      "definition: ", "override: ", "calibrated: ",
};

static bool known_kind(const char *src)
{
	for (size_t i = 0; i < sizeof(source_kinds) / sizeof(source_kinds[0]); i++)
		if (starts_with(src, source_kinds[i]))
			return true;
	return false;
}

/* Terms that are zero by definition. */
static bool zero_by_definition(const char *name)
{
	return strcmp(name, "c2c.same_cpu") == 0 || strcmp(name, "refill.same_cpu") == 0 ||
	       strcmp(name, "handoff.same_cpu") == 0 ||
	       strcmp(name, "wake_enqueue.same_cpu") == 0 ||
	       strcmp(name, "balance_per_task.same_cpu") == 0;
}

struct check_ctx {
	const char *machine;
	int count;
};

static int check_term(const struct ts_cost_term_info *info, const struct ts_cost_term *t, void *arg)
{
	struct check_ctx *c = arg;
	c->count++;
	bool ok = isfinite(t->value) && t->value >= 0 && known_kind(t->source) &&
		  strlen(t->source) > 12 && info->unit[0] && info->meaning[0] &&
		  strlen(t->source) < TS_COST_SOURCE_MAX - 1; /* not cut short */
	if (ok && zero_by_definition(info->name))
		ok = t->value == 0 && starts_with(t->source, "definition: ");
	else if (ok && strcmp(info->name, "freq.step_mhz") == 0) /* 0: a fixed clock */
		ok = t->value >= 0;
	else if (ok)
		ok = t->value > 0;
	if (!ok) {
		print_message("%s: %s = %g [%s] '%s'\n", c->machine, info->name, t->value,
			      info->unit, t->source);
		fail();
	}
	return 0;
}

static void check_monotone(const char *machine, const struct ts_cost_term *tiers,
			   const char *family)
{
	for (int rel = TS_REL_SAME_CPU; rel < TS_REL_REMOTE; rel++)
		if (!(tiers[rel].value <= tiers[rel + 1].value + EPS)) {
			print_message("%s: %s.%s = %g > %s.%s = %g\n", machine, family,
				      ts_cpu_relation_name((enum ts_cpu_relation)rel),
				      tiers[rel].value, family,
				      ts_cpu_relation_name((enum ts_cpu_relation)(rel + 1)),
				      tiers[rel + 1].value);
			fail();
		}
}

/* Every preset: a complete model; all terms finite, >= 0, > 0 unless zero by definition,
 * each with a source of a known kind; tiers monotone by distance; n/a exactly where the
 * topology has no CPU pair of that relation. */
static void test_every_preset(void **state)
{
	(void)state;
	int count;
	const struct ts_preset *p = ts_preset_list(&count);
	assert_true(count >= 10);
	for (int i = 0; i < count; i++) {
		struct ts_topology *t = load(p[i].name);
		struct ts_cost_model m;
		model_for(t, p[i].name, &m);
		assert_false(m.generic);
		assert_string_equal(m.machine, p[i].name);
		struct check_ctx c = {p[i].name, 0};
		assert_int_equal(ts_cost_model_foreach(&m, check_term, &c), 0);
		assert_int_equal(c.count, ts_cost_term_count());
		check_monotone(p[i].name, m.c2c, "c2c");
		check_monotone(p[i].name, m.refill, "refill");
		check_monotone(p[i].name, m.bulk_per_kib, "bulk_per_kib");
		check_monotone(p[i].name, m.scan_per_cpu, "scan_per_cpu");
		check_monotone(p[i].name, m.handoff, "handoff");
		check_monotone(p[i].name, m.wake_enqueue, "wake_enqueue");
		check_monotone(p[i].name, m.balance_per_cpu, "balance_per_cpu");
		check_monotone(p[i].name, m.balance_per_task, "balance_per_task");
		for (int rel = 0; rel < TS_REL_NR; rel++) {
			assert_near(m.balance_per_cpu[rel].value, 2 * m.scan_per_cpu[rel].value,
				    EPS);
			assert_near(m.balance_per_task[rel].value, 2 * m.wake_enqueue[rel].value,
				    EPS);
		}
		/* the one calibrated value is the same everywhere */
		assert_true(starts_with(m.cache_run_kib.source, "calibrated: "));
		assert_true(m.cache_capacity_kib.value >= 128 &&
			    m.cache_capacity_kib.value <= 2048);
		assert_true(m.remote_distance.value > TS_LOCAL_DISTANCE);
		assert_true(m.remote_distance.value <= TS_MAX_DISTANCE);

		bool reachable[TS_REL_NR] = {true};
		for (int a = 0; a < t->nr_cpus; a++)
			for (int b = a + 1; b < t->nr_cpus; b++)
				reachable[ts_topology_relation(t, a, b)] = true;
		for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++) {
			bool na = starts_with(m.c2c[rel].source, "n/a: ");
			if (na == reachable[rel]) {
				print_message("%s: c2c.%s reachable=%d but source '%s'\n",
					      p[i].name,
					      ts_cpu_relation_name((enum ts_cpu_relation)rel),
					      reachable[rel], m.c2c[rel].source);
				fail();
			}
			/* a present tier's derived terms are derived, never "n/a" */
			if (reachable[rel]) {
				assert_false(starts_with(m.refill[rel].source, "n/a"));
				assert_false(starts_with(m.bulk_per_kib[rel].source, "n/a"));
				assert_false(starts_with(m.scan_per_cpu[rel].source, "n/a"));
			}
		}
		/* every measured c2c figure names its data set (a .csv file) */
		for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++)
			if (starts_with(m.c2c[rel].source, "measured") ||
			    starts_with(m.c2c[rel].source, "derived"))
				assert_non_null(strstr(m.c2c[rel].source, ".csv"));
		/* a preset model without a topology is the same model */
		struct ts_cost_model m2;
		model_for(NULL, p[i].name, &m2);
		assert_memory_equal(&m, &m2, sizeof(m));
		ts_topology_free(t);
	}
}

/* The published figures, where there are some (each preset's data set in cost_model.c). */
static void test_spot_values(void **state)
{
	(void)state;
	struct ts_cost_model m;

	model_for(NULL, "kunpeng920", &m);
	assert_near(term(&m, "c2c.cluster"), 34.5, EPS);
	assert_near(term(&m, "c2c.llc"), 35.7, EPS);
	assert_near(term(&m, "c2c.package"), 80.5, EPS);
	assert_near(term(&m, "mem.local"), 117, EPS);
	assert_near(term(&m, "idle_exit"), 1000, EPS);
	assert_true(starts_with(source(&m, "c2c.cluster"), "measured: "));
	assert_non_null(strstr(source(&m, "c2c.cluster"), "by-Concyclics.csv"));
	/* no cross-socket figure: an estimate, said so */
	assert_true(starts_with(source(&m, "c2c.remote"), "estimate: "));
	assert_near(term(&m, "c2c.remote"), 165, EPS);
	/* the cluster-vs-LLC tier of coherence-heavy transfers has no published figure */
	assert_true(starts_with(source(&m, "bulk_per_kib.cluster"), "estimate: "));
	assert_non_null(strstr(source(&m, "bulk_per_kib.cluster"), "no published figure"));
	assert_true(starts_with(source(&m, "bulk_per_kib.llc"), "estimate: "));
	assert_true(term(&m, "bulk_per_kib.cluster") < term(&m, "bulk_per_kib.llc"));
	assert_near(term(&m, "bulk_per_kib.cluster"), 16 * 30.0 / 10, EPS);
	assert_near(term(&m, "bulk_per_kib.llc"), 16 * 33.4 / 10, EPS);

	model_for(NULL, "kunpeng920-48", &m);
	assert_near(term(&m, "c2c.cluster"), 34.5, EPS);
	assert_near(term(&m, "mem.per_distance"), 8.35, EPS);
	assert_near(term(&m, "remote_distance"), 20, EPS);

	model_for(NULL, "epyc-7601", &m);
	assert_near(term(&m, "c2c.smt"), 12.0, EPS);
	assert_near(term(&m, "c2c.llc"), 38, EPS);
	assert_near(term(&m, "c2c.node"), 216, EPS);
	assert_near(term(&m, "c2c.package"), 244, EPS);
	assert_near(term(&m, "c2c.remote"), 367, EPS);
	assert_near(term(&m, "remote_distance"), 32, EPS);
	assert_near(term(&m, "mem.local"), 97, EPS);
	assert_near(term(&m, "refill.llc"), 16 * 16.0 / 10, EPS);  /* own-CCX L3 */
	assert_near(term(&m, "refill.node"), 16 * 92.0 / 10, EPS); /* other CCX's L3 */
	assert_true(starts_with(source(&m, "c2c.cluster"), "n/a: "));

	model_for(NULL, "epyc-7742", &m);
	assert_near(term(&m, "c2c.smt"), 8.0, EPS);
	assert_near(term(&m, "c2c.llc"), 25, EPS);
	assert_near(term(&m, "c2c.remote"), 267, EPS);
	assert_near(term(&m, "mem.local"), 122, EPS);

	model_for(NULL, "broadwell-2s", &m);
	assert_near(term(&m, "c2c.smt"), 8.3, EPS);
	assert_near(term(&m, "c2c.llc"), 45.2, EPS);
	assert_near(term(&m, "c2c.remote"), 127.5, EPS);
	assert_near(term(&m, "remote_distance"), 21, EPS);
	assert_near(term(&m, "mem.local"), 95, EPS);
	assert_near(term(&m, "idle_exit"), 2000, EPS);
	assert_true(starts_with(source(&m, "idle_exit"), "declared: "));
	assert_non_null(strstr(source(&m, "idle_exit"), "bdw_cstates"));
	assert_true(starts_with(source(&m, "mem.per_distance"), "estimate: "));

	model_for(NULL, "icelake-2s", &m);
	assert_near(term(&m, "c2c.llc"), 51.1, EPS);
	assert_near(term(&m, "c2c.remote"), 110.9, EPS);
	assert_true(starts_with(source(&m, "c2c.smt"), "estimate: ")); /* data set: SMT off */

	model_for(NULL, "spr-2s", &m);
	assert_near(term(&m, "c2c.llc"), 55.3, EPS);
	assert_true(starts_with(source(&m, "c2c.remote"), "estimate: "));

	model_for(NULL, "jacobsville", &m);
	assert_true(starts_with(source(&m, "c2c.cluster"), "estimate: "));
	assert_true(starts_with(source(&m, "c2c.llc"), "estimate: "));
	assert_true(starts_with(source(&m, "c2c.remote"), "n/a: "));
}

/* Topologies that are not presets get the generic model. */
static void test_generic(void **state)
{
	(void)state;
	const char *specs[] = {"pack:2 numa:2 l3:1 group:8 core:4 pu:1", "pack:1 core:4 pu:2",
			       "pack:4 l3:2 core:6 pu:1"};
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct ts_topology *t = load(specs[i]);
		struct ts_cost_model m;
		model_for(t, specs[i], &m);
		assert_true(m.generic);
		assert_string_equal(m.machine, "generic");
		struct check_ctx c = {specs[i], 0};
		ts_cost_model_foreach(&m, check_term, &c);
		check_monotone(specs[i], m.c2c, "c2c");
		check_monotone(specs[i], m.refill, "refill");
		check_monotone(specs[i], m.bulk_per_kib, "bulk_per_kib");
		check_monotone(specs[i], m.scan_per_cpu, "scan_per_cpu");
		check_monotone(specs[i], m.handoff, "handoff");
		check_monotone(specs[i], m.wake_enqueue, "wake_enqueue");
		for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++)
			assert_true(starts_with(m.c2c[rel].source, "estimate (generic)"));
		assert_near(term(&m, "remote_distance"), TS_REMOTE_DISTANCE, EPS);
		/* the same for a NULL name */
		struct ts_cost_model m2;
		model_for(t, NULL, &m2);
		assert_memory_equal(&m, &m2, sizeof(m));
		ts_topology_free(t);
	}

	/* remote_distance follows the topology's nearest other-package distance */
	struct ts_topology *t = load("pack:2 numa:2 core:2 pu:1");
	struct ts_error err = {0};
	assert_int_equal(ts_topology_parse_distance(t,
						    "10 12 32 34; 12 10 34 32; "
						    "32 34 10 12; 34 32 12 10",
						    &err),
			 0);
	struct ts_cost_model m;
	model_for(t, "synthetic", &m);
	assert_near(term(&m, "remote_distance"), 32, EPS);
	/* CPU 0 (node 0) to CPU 6 (node 3, distance 34): c2c.remote * 34 / 32 */
	assert_int_equal(ts_topology_relation(t, 0, 6), TS_REL_REMOTE);
	assert_near(ts_cost_between(&m, t, 0, 6), 140.0 * 34 / 32, EPS);
	assert_near(ts_cost_between(&m, t, 0, 4), 140.0, EPS);
	assert_int_equal(ts_topology_relation(t, 0, 2), TS_REL_PACKAGE);
	assert_near(ts_cost_between(&m, t, 0, 2), 120.0, EPS);
	assert_near(ts_cost_mem_between(&m, t, 0, 1), 100 + 4.5 * 2, EPS);
	ts_topology_free(t);

	/* a generic model needs a topology */
	err = (struct ts_error){0};
	assert_int_not_equal(ts_cost_model_for(NULL, "host-or-anything", &m, &err), 0);
	assert_non_null(strstr(err.msg, "host-or-anything"));
}

/* A preset's figures are refused for a topology of another shape. */
static void test_preset_shape_mismatch(void **state)
{
	(void)state;
	struct ts_topology *t = load("broadwell-2s");
	struct ts_cost_model m;
	struct ts_error err = {0};
	assert_int_equal(ts_cost_model_for(t, "kunpeng920", &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "kunpeng920"));
	assert_non_null(strstr(err.msg, "broadwell-2s"));
	assert_non_null(strstr(err.msg, "80 CPUs"));
	ts_topology_free(t);
}

/* ts_relation_of and the pairwise getters on kunpeng920 (CPU numbering: cluster = 4
 * consecutive CPUs, node = 32 consecutive CPUs, SLIT 10/16/32/33 / 16 10 25 32 / ...). */
static void test_kunpeng_pairs(void **state)
{
	(void)state;
	struct ts_topology *t = load("kunpeng920");
	struct ts_cost_model m;
	model_for(t, "kunpeng920", &m);

	static const struct {
		int a, b;
		enum ts_cpu_relation rel;
		double c2c;
	} pairs[] = {
		{0, 0, TS_REL_SAME_CPU, 0},
		{0, 1, TS_REL_CLUSTER, 34.5},
		{3, 0, TS_REL_CLUSTER, 34.5},
		{0, 4, TS_REL_LLC, 35.7},
		{5, 31, TS_REL_LLC, 35.7},
		{0, 32, TS_REL_PACKAGE, 80.5},		  /* node 1, the other die */
		{64, 127, TS_REL_PACKAGE, 80.5},	  /* nodes 2-3 */
		{0, 64, TS_REL_REMOTE, 165},		  /* node 2, SLIT 32 = remote_distance */
		{0, 96, TS_REL_REMOTE, 165.0 * 33 / 32},  /* node 3, SLIT 33 */
		{32, 64, TS_REL_REMOTE, 165.0 * 25 / 32}, /* node 1 - node 2, SLIT 25 */
		{127, 0, TS_REL_REMOTE, 165.0 * 33 / 32},
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		assert_int_equal(ts_topology_relation(t, pairs[i].a, pairs[i].b), pairs[i].rel);
		assert_near(ts_cost_between(&m, t, pairs[i].a, pairs[i].b), pairs[i].c2c, EPS);
		/* symmetric */
		assert_near(ts_cost_between(&m, t, pairs[i].b, pairs[i].a), pairs[i].c2c, EPS);
	}
	assert_near(ts_cost_refill_between(&m, t, 0, 0), 0, EPS);
	assert_near(ts_cost_refill_between(&m, t, 0, 1), 16 * 34.5 / 10, EPS);
	assert_near(ts_cost_refill_between(&m, t, 0, 4), 16 * 35.7 / 10, EPS);
	assert_near(ts_cost_bulk_between(&m, t, 0, 1), 16 * 30.0 / 10, EPS);
	assert_near(ts_cost_bulk_between(&m, t, 0, 96), 16 * 165.0 / 10 * 33 / 32, EPS);
	assert_near(ts_cost_scan_between(&m, t, 0, 2), 34.5, EPS);
	assert_near(ts_cost_scan_between(&m, t, 0, 8), 35.7, EPS);
	assert_near(ts_cost_mem_between(&m, t, 0, 0), 117, EPS);
	assert_near(ts_cost_mem_between(&m, t, 0, 3), 117 + 4.04 * 23, EPS);
	assert_near(ts_cost_mem_between(&m, t, 40, 2), 117 + 4.04 * 15, EPS);
	/* invalid CPUs and nodes */
	assert_near(ts_cost_between(&m, t, -1, 0), -1, EPS);
	assert_near(ts_cost_between(&m, t, 0, 128), -1, EPS);
	assert_near(ts_cost_mem_between(&m, t, 0, 4), -1, EPS);
	/* the remote rule never goes below the package tier */
	assert_near(ts_cost_c2c(&m, TS_REL_REMOTE, 11), 80.5, EPS);
	assert_near(ts_cost_c2c(&m, TS_REL_REMOTE, 0), 165, EPS);
	/* non-remote tiers ignore the distance */
	assert_near(ts_cost_c2c(&m, TS_REL_PACKAGE, 200), 80.5, EPS);
	assert_near(ts_cost_mem(&m, 10), 117, EPS);
	ts_topology_free(t);
}

/* docs/model.md's table of values per preset is the model: every term has a row, and
 * every preset column holds the model's value (markers ~ d † and parentheses aside). */
/* The wake-up terms written out: Kunpeng's hand-off tiers reproduce the lat_pipe
 * differences (a round trip is two hand-offs, each also paying the wake-up signal c2c),
 * the other presets' are the same line count times their c2c tiers, switch_out makes the
 * one-CPU pair dearer than the one-cluster pair by the 6-cluster figure, and eviction
 * follows random replacement. */
static void test_wakeup_terms(void **state)
{
	(void)state;
	const char *kp[] = {"kunpeng920", "kunpeng920-48"};
	double lines = 0;
	for (size_t i = 0; i < 2; i++) {
		struct ts_cost_model m;
		model_for(NULL, kp[i], &m);
		double cl = term(&m, "handoff.cluster") + term(&m, "c2c.cluster");
		/* round-trip differences: other cluster 7,406 - 5,797, other die 12,870 - 5,797 */
		assert_near(2 * (term(&m, "handoff.llc") + term(&m, "c2c.llc") - cl), 1609, 1e-6);
		assert_near(2 * (term(&m, "handoff.package") + term(&m, "c2c.package") - cl), 7073,
			    1e-6);
		lines = term(&m, "handoff.cluster") / 78.3;
		assert_near(lines, 8.30, 1e-9);
		assert_near(round(804.5 / (175.2 - 78.3) * 100) / 100, 8.30, 1e-9);
		assert_true(starts_with(source(&m, "handoff.cluster"), "derived: "));
		assert_non_null(strstr(source(&m, "handoff.cluster"), "wayca-scheduler"));
		/* one CPU vs one cluster: +1.70 us per round trip, 6 clusters/node */
		double one_cpu =
			term(&m, "switch_out") +
			ts_cost_evicted_kib(&m, term(&m, "cache.run_kib")) * term(&m, "refill.llc");
		double two_cpus = term(&m, "idle_exit") + term(&m, "c2c.cluster") +
				  term(&m, "handoff.cluster");
		assert_near(2 * (one_cpu - two_cpus), 1700, 0.02);
		assert_near(term(&m, "wake_enqueue.llc"), term(&m, "handoff.llc") * 3 / lines,
			    0.005);
		assert_near(term(&m, "cache.capacity_kib"), 512, EPS);
	}
	struct ts_cost_model m;
	model_for(NULL, "broadwell-2s", &m);
	assert_near(term(&m, "handoff.llc"), lines * 45.2, 0.005);
	assert_near(term(&m, "handoff.smt"), lines * 8.3, 0.005);
	struct ts_cost_model kpm;
	model_for(NULL, "kunpeng920", &kpm);
	assert_near(term(&m, "switch_out"), term(&kpm, "switch_out"), EPS); /* same ctx_switch */
	assert_true(starts_with(source(&m, "handoff.llc"), "derived: "));
	assert_near(term(&m, "cache.capacity_kib"), 256,
		    EPS); /* the core's, its 2 threads share it */
	model_for(NULL, "jacobsville", &m);
	assert_near(term(&m, "switch_out"), term(&kpm, "switch_out") * 2500 / 1500, 0.005);
	model_for(NULL, "spr-2s", &m);
	assert_true(starts_with(source(&m, "handoff.remote"), "estimate: "));
	assert_near(term(&m, "cache.capacity_kib"), 2048, EPS);

	/* eviction, least recently used: nothing lost while the run's working set and what
	 * entered after it fit the 512-KiB L2, then the overflow, at most the whole run */
	model_for(NULL, "kunpeng920", &m);
	double run = term(&m, "cache.run_kib");
	assert_near(ts_cost_evicted_kib(&m, 0), 0, EPS);
	assert_near(ts_cost_evicted_kib(&m, run), 0, EPS); /* one other run: 284 KiB fit */
	assert_near(ts_cost_evicted_kib(&m, 512 - run), 0, EPS);
	assert_near(ts_cost_evicted_kib(&m, 512 - run + 10), 10, 1e-9);
	assert_near(ts_cost_evicted_kib(&m, 512), run, 1e-9);
	assert_near(ts_cost_evicted_kib(&m, 1e9), run, 1e-9);

	/* ctx_switch: the rest of a same-cluster lat_pipe hand-off (5,797 ns a round trip) after
	 * the two pipe syscalls, the wake-up signal, the idle exit and the hand-off */
	assert_near(term(&m, "ctx_switch"),
		    5797.0 / 2 - (2 * 400 + 34.5 + 1000 + term(&m, "handoff.cluster")), 0.005);
	assert_true(starts_with(source(&m, "ctx_switch"), "derived: "));
	assert_near(term(&m, "numa.stop_latency"), 2 * term(&m, "ctx_switch"), EPS);
	model_for(NULL, "kunpeng920-48", &m); /* its own pair: 10,180 ns */
	assert_near(term(&m, "ctx_switch"),
		    10180.0 / 2 - (2 * 400 + 34.5 + 1000 + term(&m, "handoff.cluster")), 0.005);
	struct ts_cost_model kp920;
	model_for(NULL, "kunpeng920", &kp920);
	model_for(NULL, "icelake-2s", &m); /* no pair of its own: kunpeng920's */
	assert_near(term(&m, "ctx_switch"), term(&kp920, "ctx_switch"), EPS);
	assert_true(starts_with(source(&m, "ctx_switch"), "estimate: "));
	model_for(NULL, "jacobsville", &m);
	assert_near(term(&m, "ctx_switch"), term(&kp920, "ctx_switch") * 2500 / 1500, 0.005);
	model_for(NULL, "kunpeng920", &m);

	/* pairwise getters on the preset's topology */
	struct ts_topology *t = load("kunpeng920");
	assert_near(ts_cost_handoff_between(&m, t, 1, 0), term(&m, "handoff.cluster"), EPS);
	assert_near(ts_cost_handoff_between(&m, t, 1, 4), term(&m, "handoff.llc"), EPS);
	assert_near(ts_cost_handoff_between(&m, t, 1, 32), term(&m, "handoff.package"), EPS);
	assert_near(ts_cost_handoff_between(&m, t, 3, 3), 0, EPS);
	assert_near(ts_cost_wake_enqueue_between(&m, t, 0, 8), term(&m, "wake_enqueue.llc"), EPS);
	assert_true(ts_cost_handoff_between(&m, t, 0, 999) < 0);
	ts_topology_free(t);
}

static void test_doc_table(void **state)
{
	(void)state;
	size_t len;
	char *doc = slurp(TS_SOURCE_DIR "/docs/model.md", &len);
	const char *hdr = strstr(doc, "| term | unit | ");
	assert_non_null(hdr);
	/* the column names */
	char cols[16][32];
	int ncols = 0;
	const char *p = hdr + strlen("| term | unit | ");
	while (*p && *p != '\n' && ncols < 16) {
		const char *bar = strchr(p, '|');
		assert_non_null(bar);
		int n = (int)(bar - p);
		while (n > 0 && p[n - 1] == ' ')
			n--;
		snprintf(cols[ncols++], sizeof(cols[0]), "%.*s", n, p);
		p = bar + 1;
		while (*p == ' ')
			p++;
	}
	assert_true(ncols >= 10);
	for (int i = 0; i < ts_cost_term_count(); i++) {
		const char *name = ts_cost_term_info(i)->name;
		char want[80];
		snprintf(want, sizeof(want), "| `%s` | ", name);
		const char *row = strstr(hdr, want);
		if (!row) {
			print_message("docs/model.md: no row for %s\n", name);
			fail();
		}
		const char *c = strchr(row + strlen(want), '|'); /* after the unit */
		for (int k = 0; k < ncols; k++) {
			assert_non_null(c);
			c++;
			while (*c == ' ' || *c == '(')
				c++;
			char *end;
			double v = strtod(c, &end);
			assert_true(end != c);
			if (ts_preset_find(cols[k])) {
				struct ts_cost_model m;
				model_for(NULL, cols[k], &m);
				if (fabs(term(&m, name) - v) > 1e-6) {
					print_message("docs/model.md: %s %s = %g, model %g\n",
						      cols[k], name, v, term(&m, name));
					fail();
				}
			}
			c = strchr(end, '|');
		}
	}
	free(doc);
}

static void test_term_table(void **state)
{
	(void)state;
	int n = ts_cost_term_count();
	assert_true(n >= 33);
	for (int i = 0; i < n; i++) {
		const struct ts_cost_term_info *a = ts_cost_term_info(i);
		assert_non_null(a);
		for (int j = i + 1; j < n; j++)
			assert_string_not_equal(a->name, ts_cost_term_info(j)->name);
	}
	assert_null(ts_cost_term_info(n));
	assert_null(ts_cost_term_info(-1));
	/* the names the documentation and --cost use */
	const char *names[] = {"c2c.cluster",	   "c2c.llc",	       "idle_exit",
			       "ctx_switch",	   "bulk_per_kib.llc", "refill.remote",
			       "scan_per_cpu.llc", "mem.local",	       "mem.per_distance",
			       "remote_distance"};
	struct ts_cost_model m;
	model_for(NULL, "kunpeng920", &m);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(ts_cost_model_term(&m, names[i]));
	assert_null(ts_cost_model_term(&m, "c2c"));
	assert_null(ts_cost_model_term(&m, "c2c.llc2"));
	assert_ptr_equal(ts_cost_model_term(&m, "c2c.llc"), &m.c2c[TS_REL_LLC]);
	assert_ptr_equal(ts_cost_model_term(&m, "mem.per_distance"), &m.mem_per_distance);
	assert_string_equal(ts_cpu_relation_name(TS_REL_CLUSTER), "cluster");
	assert_string_equal(ts_cpu_relation_name(TS_REL_REMOTE), "remote");
}

static int stop_at_third(const struct ts_cost_term_info *info, const struct ts_cost_term *t,
			 void *arg)
{
	(void)info;
	(void)t;
	return ++*(int *)arg == 3 ? 42 : 0;
}

static void test_foreach_stops(void **state)
{
	(void)state;
	struct ts_cost_model m;
	model_for(NULL, "epyc-7601", &m);
	int calls = 0;
	assert_int_equal(ts_cost_model_foreach(&m, stop_at_third, &calls), 42);
	assert_int_equal(calls, 3);
}

static void test_override_valid(void **state)
{
	(void)state;
	struct ts_cost_model m;
	struct ts_error err = {0};
	model_for(NULL, "kunpeng920", &m);
	assert_int_equal(ts_cost_model_set(&m, "c2c.llc=50", &err), 0);
	assert_near(term(&m, "c2c.llc"), 50, EPS);
	assert_string_equal(source(&m, "c2c.llc"), "override: --cost c2c.llc=50");
	assert_int_equal(ts_cost_model_set(&m, "idle_exit=1.5e3", &err), 0);
	assert_near(term(&m, "idle_exit"), 1500, EPS);
	assert_int_equal(ts_cost_model_set(&m, "mem.per_distance=0", &err), 0);
	assert_near(term(&m, "mem.per_distance"), 0, EPS);
	assert_int_equal(ts_cost_model_set(&m, "refill.remote=.5", &err), 0);
	assert_near(term(&m, "refill.remote"), 0.5, EPS);
	assert_int_equal(ts_cost_model_set(&m, "remote_distance=21", &err), 0);
	assert_near(term(&m, "remote_distance"), 21, EPS);
	assert_int_equal(ts_cost_model_set(&m, "scan_per_cpu.cluster=+7", &err), 0);
	assert_near(term(&m, "scan_per_cpu.cluster"), 7, EPS);
	/* the scaling rule uses the overridden remote_distance */
	assert_near(ts_cost_c2c(&m, TS_REL_REMOTE, 42), 165.0 * 42 / 21, EPS);
	assert_int_equal(err.code, 0);
}

/* Each error class: non-zero return, a message naming the input and the problem, and the
 * model unchanged. */
static void expect_set_error(const char *input, const char *words1, const char *words2)
{
	struct ts_cost_model m, before;
	model_for(NULL, "kunpeng920", &m);
	before = m;
	struct ts_error err = {0};
	int rc = ts_cost_model_set(&m, input, &err);
	bool ok = rc < 0 && err.code == rc && strstr(err.msg, input) && strstr(err.msg, words1) &&
		  (!words2 || strstr(err.msg, words2)) && memcmp(&m, &before, sizeof(m)) == 0;
	if (!ok) {
		print_message("'%s': rc %d, message '%s'\n", input, rc, err.msg);
		fail();
	}
}

static void test_override_errors(void **state)
{
	(void)state;
	expect_set_error("c2c.llc", "missing '='", NULL);
	expect_set_error("=5", "empty name", NULL);
	expect_set_error("c2c.llx=5", "unknown term 'c2c.llx'", "--costs");
	expect_set_error("C2C.LLC=5", "unknown term", NULL);
	expect_set_error("c2c.llc=", "missing value", NULL);
	expect_set_error("c2c.llc=abc", "'abc' is not a number", NULL);
	expect_set_error("c2c.llc= 5", "is not a number", NULL);
	expect_set_error("c2c.llc=inf", "is not a number", NULL);
	expect_set_error("c2c.llc=nan", "is not a number", NULL);
	expect_set_error("c2c.llc=0x10", "not a decimal number", NULL);
	expect_set_error("c2c.llc=-1", "negative", NULL);
	expect_set_error("c2c.llc=5ns", "trailing characters 'ns'", NULL);
	expect_set_error("c2c.llc=5 ", "trailing characters", NULL);
	expect_set_error("c2c.llc=5=6", "trailing characters '=6'", NULL);
	expect_set_error("c2c.llc=1e999", "not a finite number", NULL);
	expect_set_error("c2c.llc=2e9", "at most", NULL);
	expect_set_error("remote_distance=10", "more than 10", NULL);
	expect_set_error("remote_distance=255", "at most 254", NULL);

	struct ts_cost_model m;
	model_for(NULL, "kunpeng920", &m);
	struct ts_error err = {0};
	assert_int_not_equal(ts_cost_model_set(&m, NULL, &err), 0);
	/* a long input is cut in the message, not overflowed */
	char big[2000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	err = (struct ts_error){0};
	assert_int_not_equal(ts_cost_model_set(&m, big, &err), 0);
	assert_true(strlen(err.msg) < TS_ERR_MSG_MAX);
}

/* ---- the CLI ---------------------------------------------------------------------------- */

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_cli_costs(void **state)
{
	(void)state;
	struct run r = ts_run_cli(ts_tmpdir, ARGS("machines", "--costs", "kunpeng920"), 60);
	if (r.status != 0 || r.err[0])
		print_message("exit %d: %s\n", r.status, r.err);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	/* a title, a header and one line per term */
	assert_int_equal(count_lines(r.out), ts_cost_term_count() + 2);
	for (int i = 0; i < ts_cost_term_count(); i++) {
		char want[80];
		snprintf(want, sizeof(want), "\n%s ", ts_cost_term_info(i)->name);
		if (!strstr(r.out, want)) {
			print_message("no line for %s\n", ts_cost_term_info(i)->name);
			fail();
		}
	}
	const char *line = strstr(r.out, "\nc2c.cluster ");
	assert_non_null(line);
	const char *eol = strchr(line + 1, '\n');
	char buf[1024];
	snprintf(buf, sizeof(buf), "%.*s", (int)(eol - line - 1), line + 1);
	assert_non_null(strstr(buf, " 34.5 "));
	assert_non_null(strstr(buf, " ns "));
	assert_non_null(strstr(buf, "measured: "));
	assert_non_null(strstr(r.out, "by-Concyclics.csv"));
	assert_non_null(strstr(r.out, "ns/KiB"));
	run_free(&r);

	r = ts_run_cli(ts_tmpdir, ARGS("machines", "--costs", "kunpeng920", "--format", "json"),
		       60);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(count_substr(r.out, "\"name\": "), ts_cost_term_count());
	assert_non_null(strstr(r.out, "\"machine\": \"kunpeng920\""));
	assert_non_null(strstr(r.out, "\"model\": \"preset\""));
	assert_non_null(strstr(r.out, "\"name\": \"c2c.cluster\",\n      \"value\": 34.5,\n"
				      "      \"unit\": \"ns\",\n      \"source\": \"measured: "));
	run_free(&r);

	/* overrides show up with their source */
	r = ts_run_cli(ts_tmpdir,
		       ARGS("machines", "--costs", "kunpeng920", "--cost", "c2c.llc=40", "--cost",
			    "idle_exit=500"),
		       60);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "override: --cost c2c.llc=40"));
	assert_non_null(strstr(r.out, "override: --cost idle_exit=500"));
	run_free(&r);

	/* any topology spec: the generic model */
	r = ts_run_cli(ts_tmpdir,
		       ARGS("machines", "--costs", "pack:2 core:2 pu:2", "--format", "json"), 60);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"model\": \"generic\""));
	run_free(&r);

	/* without --costs: the preset list, as before; --format json lists them too */
	r = ts_run_cli(ts_tmpdir, ARGS("machines"), 60);
	assert_int_equal(r.status, 0);
	int count;
	ts_preset_list(&count);
	assert_int_equal(count_lines(r.out), count);
	run_free(&r);
	r = ts_run_cli(ts_tmpdir, ARGS("machines", "--format", "json"), 60);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_substr(r.out, "\"description\": "), count);
	run_free(&r);
}

static void expect_cli_error(const char *const *args, const char *words)
{
	struct run r = ts_run_cli(ts_tmpdir, args, 60);
	bool ok = r.status == 2 && r.out[0] == '\0' &&
		  strncmp(r.err, "toposched machines: error: ", 27) == 0 && strstr(r.err, words) &&
		  count_lines(r.err) == 1;
	if (!ok) {
		print_message("exit %d, stdout '%s', stderr '%s'\n", r.status, r.out, r.err);
		run_free(&r);
		fail();
	}
	run_free(&r);
}

static void test_cli_costs_errors(void **state)
{
	(void)state;
	expect_cli_error(ARGS("machines", "--costs", "no-such-machine"), "no-such-machine");
	expect_cli_error(ARGS("machines", "--costs", "kunpeng920", "--cost", "c2c.llx=1"),
			 "--cost: cost override 'c2c.llx=1': unknown term 'c2c.llx'");
	expect_cli_error(ARGS("machines", "--costs", "kunpeng920", "--cost", "c2c.llc"),
			 "missing '='");
	expect_cli_error(ARGS("machines", "--costs", "kunpeng920", "--cost", "c2c.llc=-3"),
			 "negative");
	expect_cli_error(ARGS("machines", "--cost", "c2c.llc=1"), "--cost needs --costs");
	expect_cli_error(ARGS("machines", "--costs"), "needs a value");
	expect_cli_error(ARGS("machines", "--costs", "kunpeng920", "--format", "yaml"),
			 "--format 'yaml'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_preset),   cmocka_unit_test(test_spot_values),
		cmocka_unit_test(test_generic),	       cmocka_unit_test(test_preset_shape_mismatch),
		cmocka_unit_test(test_kunpeng_pairs),  cmocka_unit_test(test_term_table),
		cmocka_unit_test(test_doc_table),      cmocka_unit_test(test_foreach_stops),
		cmocka_unit_test(test_override_valid), cmocka_unit_test(test_override_errors),
		cmocka_unit_test(test_cli_costs),      cmocka_unit_test(test_cli_costs_errors),
		cmocka_unit_test(test_wakeup_terms),
	};
	return cmocka_run_group_tests(tests, ts_tmpdir_setup, ts_tmpdir_teardown);
}
