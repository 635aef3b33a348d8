/* The simulator's cache-line ownership model (src/sim/line_model.h) against hand-computed
 * sequences: repeated reads are free, a read of a remotely modified line and a write of a
 * remotely read line pay one transfer at the tier of the two CPUs' relation, a write to a
 * shared line pays its farthest sharer, a clean miss pays its nearest; every relation of
 * three presets maps to its cost-model tier (the remote one scaled by SLIT distance);
 * the counters add up; the table grows without losing state; results do not depend on
 * where the lines lie. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/line_model.h"
#include "sim_machine.h"
#include "test_support.h"

#define LINE_A ((uintptr_t)0x10000)
#define LINE_B ((uintptr_t)0x10040)

struct lm_world {
	struct machine m;
	struct sim_line_model lm;
	double now; /* ns; expect() advances it 1 us per access: no transfer is still busy */
};

static void world(struct lm_world *w, const char *preset)
{
	machine_load(&w->m, preset);
	struct ts_error err = {0};
	assert_int_equal(sim_line_model_init(&w->lm, w->m.topo, &w->m.costs, &err), 0);
}

static void world_free(struct lm_world *w)
{
	sim_line_model_free(&w->lm);
	machine_free(&w->m);
}

/* The first CPU after `from` with relation rel to cpu, or -1. */
static int cpu_with(const struct ts_topology *t, int cpu, enum ts_cpu_relation rel, int from)
{
	for (int c = from; c < t->nr_cpus; c++)
		if (ts_topology_relation(t, cpu, c) == rel)
			return c;
	return -1;
}

static double c2c(const struct lm_world *w, enum ts_cpu_relation rel)
{
	return ts_cost_c2c(&w->m.costs, rel, 0);
}

/* One access; checks its cost and the relation of its transfer (-1 = none). */
static void expect(struct lm_world *w, int cpu, uintptr_t line, bool write, double cost, int rel)
{
	int got_rel = -2;
	bool oom = false;
	double got = sim_line_access(&w->lm, cpu, line, write, w->now, &got_rel, NULL, &oom);
	w->now += 1000;
	assert_false(oom);
	if (got != cost || got_rel != rel)
		fail_msg("CPU %d %s line %#lx: cost %.3f relation %d, want %.3f relation %d", cpu,
			 write ? "writes" : "reads", (unsigned long)line, got, got_rel, cost, rel);
}

static void test_reads_are_free_once_held(void **state)
{
	(void)state;
	struct lm_world w;
	world(&w, "icelake-2s");
	int a = 0, r = cpu_with(w.m.topo, a, TS_REL_REMOTE, 0);
	assert_true(r > 0);
	w.now = 0;
	expect(&w, a, LINE_A, false, 0, -1);	 /* first touch: the cold miss is not modelled */
	expect(&w, a, LINE_A, false, 0, -1);	 /* read-read on one CPU */
	expect(&w, a, LINE_A + 8, false, 0, -1); /* another word of the same line */
	/* another CPU fetches the clean line from its nearest holder, once */
	expect(&w, r, LINE_A, false, c2c(&w, TS_REL_REMOTE), TS_REL_REMOTE);
	expect(&w, r, LINE_A, false, 0, -1);
	expect(&w, a, LINE_A, false, 0, -1);
	assert_true(sim_line_held(&w.lm, LINE_A, a) && sim_line_held(&w.lm, LINE_A, r));
	assert_int_equal(sim_line_owner(&w.lm, LINE_A), -1);
	assert_int_equal(w.lm.st.reads, 6);
	assert_int_equal(w.lm.st.writes, 0);
	assert_int_equal(w.lm.st.misses[TS_REL_REMOTE], 1);
	assert_near(w.lm.st.stall_ns, 110.9, 1e-9); /* icelake-2s c2c.remote */
	world_free(&w);
}

static void test_write_after_remote_read(void **state)
{
	(void)state;
	struct lm_world w;
	world(&w, "icelake-2s");
	const struct ts_topology *t = w.m.topo;
	int a = 0, s = cpu_with(t, a, TS_REL_SMT, 0), l = cpu_with(t, a, TS_REL_LLC, 0),
	    r = cpu_with(t, a, TS_REL_REMOTE, 0);
	assert_true(s > 0 && l > 0 && r > 0);
	double smt = c2c(&w, TS_REL_SMT), llc = c2c(&w, TS_REL_LLC), rem = c2c(&w, TS_REL_REMOTE);
	assert_near(smt, 8.3, 1e-9);
	assert_near(llc, 51.1, 1e-9);
	expect(&w, a, LINE_A, true, 0, -1); /* first touch, a owns it modified */
	expect(&w, a, LINE_A, true, 0, -1); /* the owner writes again: free */
	assert_int_equal(sim_line_owner(&w.lm, LINE_A), a);
	expect(&w, r, LINE_A, false, rem, TS_REL_REMOTE); /* from the modified owner */
	assert_int_equal(sim_line_owner(&w.lm, LINE_A), -1);
	expect(&w, a, LINE_A, false, 0, -1);		 /* a kept a shared copy */
	expect(&w, a, LINE_A, true, rem, TS_REL_REMOTE); /* invalidates r's copy */
	assert_false(sim_line_held(&w.lm, LINE_A, r));
	expect(&w, r, LINE_A, true, rem, TS_REL_REMOTE); /* RFO from the owner a */
	assert_int_equal(sim_line_owner(&w.lm, LINE_A), r);
	/* several sharers: a write waits for the farthest, a clean miss takes the nearest */
	expect(&w, s, LINE_A, false, rem, TS_REL_REMOTE); /* only r holds it */
	expect(&w, a, LINE_A, false, smt, TS_REL_SMT);	  /* s (smt) is nearer than r */
	expect(&w, l, LINE_A, false, llc, TS_REL_LLC);	  /* a and s are in l's LLC */
	expect(&w, a, LINE_A, true, rem, TS_REL_REMOTE);  /* r is the farthest sharer */
	expect(&w, s, LINE_A, false, smt, TS_REL_SMT);	  /* from the owner a */
	expect(&w, s, LINE_A, true, smt, TS_REL_SMT);	  /* only a to invalidate */
	expect(&w, s, LINE_A, true, 0, -1);
	/* the second line is independent */
	expect(&w, r, LINE_B, true, 0, -1);
	expect(&w, s, LINE_A, false, 0, -1);
	assert_int_equal(w.lm.st.misses[TS_REL_REMOTE], 5);
	assert_int_equal(w.lm.st.misses[TS_REL_SMT], 3);
	assert_int_equal(w.lm.st.misses[TS_REL_LLC], 1);
	assert_near(w.lm.st.stall_ns, 5 * rem + 3 * smt + llc, 1e-9);
	/* writes by a, a, a, r, a, s, s on LINE_A and r on LINE_B: LINE_A's writer moved
	 * between the sockets at a -> r and r -> a */
	assert_int_equal(w.lm.st.writes, 8);
	assert_int_equal(w.lm.st.remote_node_writes, 2);
	world_free(&w);
}

/* Every relation a machine has: the owner writes, a CPU of that relation reads, then
 * writes back; both transfers cost ts_cost_between() and count at the relation. */
static void check_tiers(const char *preset)
{
	struct lm_world w;
	world(&w, preset);
	const struct ts_topology *t = w.m.topo;
	uintptr_t line = LINE_A;
	int seen = 0;
	for (int rel = TS_REL_SMT; rel < TS_REL_NR; rel++) {
		int b = cpu_with(t, 0, (enum ts_cpu_relation)rel, 0);
		if (b < 0)
			continue;
		seen++;
		double want = ts_cost_between(&w.m.costs, t, 0, b);
		assert_true(want > 0);
		uint64_t before = w.lm.st.misses[rel];
		line += 64;
		expect(&w, 0, line, true, 0, -1);
		expect(&w, b, line, false, want, rel);
		expect(&w, b, line, true, want, rel); /* invalidates CPU 0 */
		expect(&w, 0, line, true, want, rel); /* RFO back */
		assert_int_equal(w.lm.st.misses[rel], before + 3);
	}
	assert_true(seen >= 3);
	world_free(&w);
}

static void test_relations_map_to_tiers(void **state)
{
	(void)state;
	check_tiers("icelake-2s"); /* smt, llc, remote */
	check_tiers("kunpeng920"); /* cluster, llc, package, remote at SLIT 25..33 */
	check_tiers("epyc-7601");  /* smt, llc, node, package, remote */
}

/* Sharers in two other-package nodes at different SLIT distances: a clean miss fetches
 * from the nearer, a write waits for the farther. */
static void test_remote_by_distance(void **state)
{
	(void)state;
	struct lm_world w;
	world(&w, "kunpeng920");
	const struct ts_topology *t = w.m.topo;
	int home = t->cpu[0].node, near = -1, far = -1;
	for (int n = 0; n < t->nr_nodes; n++) {
		int cpu = -1;
		for (int c = 0; c < t->nr_cpus && cpu < 0; c++)
			if (t->cpu[c].node == n && t->cpu[c].package != t->cpu[0].package)
				cpu = c;
		if (cpu < 0)
			continue;
		int d = ts_topo_distance(t, home, n);
		if (near < 0 || d < ts_topo_distance(t, home, t->cpu[near].node))
			near = cpu;
		if (far < 0 || d > ts_topo_distance(t, home, t->cpu[far].node))
			far = cpu;
	}
	assert_true(near >= 0 && far >= 0);
	int dn = ts_topo_distance(t, home, t->cpu[near].node),
	    df = ts_topo_distance(t, home, t->cpu[far].node);
	assert_true(dn < df);
	double cn = ts_cost_c2c(&w.m.costs, TS_REL_REMOTE, dn),
	       cf = ts_cost_c2c(&w.m.costs, TS_REL_REMOTE, df);
	assert_true(cn < cf);
	expect(&w, near, LINE_A, true, 0, -1);
	expect(&w, far, LINE_A, false, ts_cost_between(&w.m.costs, t, near, far),
	       (int)ts_topology_relation(t, near, far));
	expect(&w, 0, LINE_A, false, cn, TS_REL_REMOTE); /* the nearer copy */
	expect(&w, 0, LINE_A, true, cf, TS_REL_REMOTE);	 /* the farther sharer */
	world_free(&w);
}

/* Ownership changes of one line at one moment queue: each starts when the one before it
 * ends; clean copies wait for those but not for each other; a hit never waits; a line
 * that went quiet is free of its past. */
static void test_transfers_queue(void **state)
{
	(void)state;
	struct lm_world w;
	world(&w, "icelake-2s");
	const struct ts_topology *t = w.m.topo;
	int a = 0, s = cpu_with(t, a, TS_REL_SMT, 0), l = cpu_with(t, a, TS_REL_LLC, 0),
	    r = cpu_with(t, a, TS_REL_REMOTE, 0);
	double smt = c2c(&w, TS_REL_SMT), llc = c2c(&w, TS_REL_LLC), rem = c2c(&w, TS_REL_REMOTE);
	w.now = 5000;
	expect(&w, a, LINE_A, true, 0, -1);
	/* three writers at t = 10000: r takes it from a, then l from r, then s from l */
	double t0 = 10000;
	int rel;
	assert_near(sim_line_access(&w.lm, r, LINE_A, true, t0, &rel, NULL, NULL), rem, 1e-6);
	assert_near(sim_line_access(&w.lm, l, LINE_A, true, t0, &rel, NULL, NULL), rem + rem, 1e-6);
	assert_int_equal(rel, TS_REL_REMOTE);
	assert_near(sim_line_access(&w.lm, s, LINE_A, true, t0, &rel, NULL, NULL), 2 * rem + llc,
		    1e-6);
	assert_int_equal(rel, TS_REL_LLC);
	/* s holds it: a hit at the same moment does not wait */
	assert_near(sim_line_access(&w.lm, s, LINE_A, false, t0, &rel, NULL, NULL), 0, 1e-6);
	/* a reader half-way through the queue waits for its end; its read from the owner is
	 * an ownership change (s downgrades), so the reads after it wait for it too */
	double t1 = t0 + rem;
	assert_near(sim_line_access(&w.lm, a, LINE_A, false, t1, &rel, NULL, NULL), rem + llc + smt,
		    1e-6);
	/* copies of the now clean line, at one moment: each waits for a's transfer only */
	double busy = t0 + 2 * rem + llc + smt; /* the end of a's transfer */
	assert_near(sim_line_access(&w.lm, r, LINE_A, false, t1, &rel, NULL, NULL), busy - t1 + rem,
		    1e-6);
	assert_near(sim_line_access(&w.lm, l, LINE_A, false, t1, &rel, NULL, NULL), busy - t1 + llc,
		    1e-6);
	assert_near(w.lm.st.wait_ns, rem + (2 * rem) + (rem + llc) + 2 * (busy - t1), 1e-6);
	/* long after: no wait; the write invalidates l, a and s, the farthest is remote */
	assert_near(sim_line_access(&w.lm, r, LINE_A, true, t0 + 1e6, &rel, NULL, NULL), rem, 1e-6);
	assert_near(w.lm.st.stall_ns,
		    rem + 2 * rem + (2 * rem + llc) + (rem + llc + smt) + (busy - t1 + rem) +
			    (busy - t1 + llc) + rem,
		    1e-6);
	world_free(&w);
}

/* Many lines: the table grows and keeps every line's state. */
static void test_growth_keeps_state(void **state)
{
	(void)state;
	struct lm_world w;
	world(&w, "icelake-2s");
	int r = cpu_with(w.m.topo, 0, TS_REL_REMOTE, 0);
	enum { N = 5000 };
	for (int i = 0; i < N; i++)
		expect(&w, i % 2 ? r : 0, LINE_A + (uintptr_t)i * 64, true, 0, -1);
	assert_true(w.lm.cap >= 2 * N);
	for (int i = 0; i < N; i++)
		assert_int_equal(sim_line_owner(&w.lm, LINE_A + (uintptr_t)i * 64), i % 2 ? r : 0);
	double rem = c2c(&w, TS_REL_REMOTE);
	for (int i = 0; i < N; i++)
		expect(&w, i % 2 ? 0 : r, LINE_A + (uintptr_t)i * 64, false, rem, TS_REL_REMOTE);
	assert_int_equal(w.lm.st.misses[TS_REL_REMOTE], N);
	world_free(&w);
}

/* The same access pattern on lines elsewhere in memory gives the same statistics. */
static void run_pattern(struct lm_world *w, uintptr_t base, struct sim_line_stats *out)
{
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int cpu = (int)(x % (uint64_t)w->m.topo->nr_cpus);
		uintptr_t line = base + (uintptr_t)((x >> 20) % 37) * 64;
		sim_line_access(&w->lm, cpu, line, (x >> 40) % 4 == 0, 10.0 * i, NULL, NULL, NULL);
	}
	*out = w->lm.st;
}

static void test_independent_of_addresses(void **state)
{
	(void)state;
	struct sim_line_stats a, b;
	struct lm_world w;
	world(&w, "epyc-7601");
	run_pattern(&w, 0x7f0000001000, &a);
	world_free(&w);
	world(&w, "epyc-7601");
	run_pattern(&w, 0x40, &b);
	world_free(&w);
	assert_int_equal(a.reads, b.reads);
	assert_int_equal(a.writes, b.writes);
	for (int r = 0; r < TS_REL_NR; r++)
		assert_int_equal(a.misses[r], b.misses[r]);
	assert_int_equal(a.remote_node_writes, b.remote_node_writes);
	assert_true(a.stall_ns == b.stall_ns);
	assert_true(a.wait_ns == b.wait_ns && a.wait_ns > 0);
	assert_true(a.misses[TS_REL_REMOTE] > 0 && a.misses[TS_REL_LLC] > 0);
}

/* The queue is bounded: 40 CPUs writing one line at one moment wait rem, 2 rem, ... as
 * long as wait plus transfer stays within SIM_LINE_MAX_LATENCY_NS (5608 cycles at 2.3 GHz
 * = 2438.26 ns), then each pays exactly that bound; the line's queue never reaches
 * further ahead, so a writer one bound later waits for nothing. */
static void test_queue_is_bounded(void **state)
{
	(void)state;
	struct lm_world w;
	world(&w, "icelake-2s");
	const struct ts_topology *t = w.m.topo;
	double rem = c2c(&w, TS_REL_REMOTE);
	assert_near(SIM_LINE_MAX_LATENCY_NS, 2438.26, 0.01);
	/* alternate packages, so every hand-over is remote: CPUs 0..19 and 80..99 */
	int remote_peer = cpu_with(t, 0, TS_REL_REMOTE, 0);
	assert_true(remote_peer > 0);
	double t0 = 1000;
	int rel;
	for (int k = 0; k < 40; k++) {
		int cpu = k % 2 ? remote_peer + k / 2 : k / 2;
		/* the first takes an untouched line: free */
		double want = k == 0 ? 0 : (double)k * rem;
		if (want > SIM_LINE_MAX_LATENCY_NS)
			want = SIM_LINE_MAX_LATENCY_NS;
		assert_near(sim_line_access(&w.lm, cpu, LINE_A, true, t0, &rel, NULL, NULL), want,
			    1e-6);
	}
	/* 2438.26 / 110.9 = 21.99: the 22nd hand-over (k = 22) is the first at the bound */
	assert_true(21 * rem < SIM_LINE_MAX_LATENCY_NS && 22 * rem > SIM_LINE_MAX_LATENCY_NS);
	assert_near(sim_line_access(&w.lm, 1, LINE_A, true, t0 + SIM_LINE_MAX_LATENCY_NS, &rel,
				    NULL, NULL),
		    rem, 1e-6);
	world_free(&w);
}

/* A HITM is an access that finds the line modified in another CPU's cache (a read, or
 * the load of a locked add); a clean miss and a hit are not. */
static void test_hitm(void **state)
{
	(void)state;
	struct lm_world w;
	world(&w, "icelake-2s");
	int a = 0, r = cpu_with(w.m.topo, a, TS_REL_REMOTE, 0),
	    l = cpu_with(w.m.topo, a, TS_REL_LLC, 0);
	int rel;
	bool hitm = true;
	sim_line_access(&w.lm, a, LINE_A, true, 0, &rel, &hitm, NULL);
	assert_false(hitm); /* untouched */
	sim_line_access(&w.lm, r, LINE_A, false, 1e4, &rel, &hitm, NULL);
	assert_true(hitm); /* a holds it modified */
	sim_line_access(&w.lm, l, LINE_A, false, 2e4, &rel, &hitm, NULL);
	assert_false(hitm); /* clean now: a copy from a sharer */
	sim_line_access(&w.lm, l, LINE_A, false, 3e4, &rel, &hitm, NULL);
	assert_false(hitm); /* held */
	sim_line_access(&w.lm, l, LINE_A, true, 4e4, &rel, &hitm, NULL);
	assert_false(hitm); /* invalidating sharers: no modified copy */
	sim_line_access(&w.lm, a, LINE_A, true, 5e4, &rel, &hitm, NULL);
	assert_true(hitm); /* RFO from l's modified copy */
	assert_int_equal(w.lm.st.hitm_loads, 2);
	assert_near(w.lm.st.hitm_ns, c2c(&w, TS_REL_REMOTE) + c2c(&w, TS_REL_LLC), 1e-6);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_are_free_once_held),
		cmocka_unit_test(test_write_after_remote_read),
		cmocka_unit_test(test_relations_map_to_tiers),
		cmocka_unit_test(test_remote_by_distance),
		cmocka_unit_test(test_transfers_queue),
		cmocka_unit_test(test_queue_is_bounded),
		cmocka_unit_test(test_hitm),
		cmocka_unit_test(test_growth_keeps_state),
		cmocka_unit_test(test_independent_of_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
