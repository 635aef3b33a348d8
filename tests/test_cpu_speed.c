/* The CPU speed model (src/sim/cpu_speed.c, docs/model.md "SMT and frequency"): the clock
 * by active cores and SMT sharing, computed by hand from broadwell-2s's figures (E5-2698 v4:
 * 3,600 MHz with one active core, 100 MHz less per extra core, 2,700 MHz all-core; a busy
 * sibling pair yields 1.15 threads), the re-timing of a running segment when its sibling or
 * another core of the package starts, and the machines and overrides where the model is
 * off (speed 1, the engine keeps its exact old timing). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/engine.h"

#include "test_support.h"

static struct ts_cost_model model_of(const char *name)
{
	struct ts_cost_model m;
	struct ts_error err = {0};
	assert_int_equal(ts_cost_model_for(NULL, name, &m, &err), 0);
	return m;
}

static void test_freq_by_active_cores(void **state)
{
	(void)state;
	struct ts_cost_model m = model_of("broadwell-2s");
	assert_near(sim_freq_mhz(&m, 0), 3600, 1e-9); /* none counts as one */
	assert_near(sim_freq_mhz(&m, 1), 3600, 1e-9);
	assert_near(sim_freq_mhz(&m, 2), 3500, 1e-9);
	assert_near(sim_freq_mhz(&m, 9), 2800, 1e-9);  /* 3600 - 8 x 100 */
	assert_near(sim_freq_mhz(&m, 10), 2700, 1e-9); /* the all-core bin from here */
	assert_near(sim_freq_mhz(&m, 20), 2700, 1e-9);
	struct ts_cost_model k = model_of("kunpeng920");
	assert_near(sim_freq_mhz(&k, 1), 2600, 1e-9);
	assert_near(sim_freq_mhz(&k, 32), 2600, 1e-9);
	/* AMD: linear between max boost (1 core) and all-core boost (32 cores) */
	struct ts_cost_model a = model_of("epyc-7601");
	assert_near(sim_freq_mhz(&a, 31), 3200 - 30 * 16.13, 1e-9);
	assert_near(sim_freq_mhz(&a, 32), 2700, 1e-9); /* 3200 - 31 x 16.13 rounds below it */
}

static void test_speed_siblings_and_bins(void **state)
{
	(void)state;
	struct ts_cost_model m = model_of("broadwell-2s");
	assert_near(sim_cpu_speed(&m, 1, 1), 1.0, 1e-12);	    /* alone on the package */
	assert_near(sim_cpu_speed(&m, 1, 2), 0.575, 1e-12);	    /* 1.15 / 2 */
	assert_near(sim_cpu_speed(&m, 2, 1), 3500.0 / 3600, 1e-12); /* a second core active */
	assert_near(sim_cpu_speed(&m, 20, 1), 0.75, 1e-12);	    /* 2700 / 3600 */
	assert_near(sim_cpu_speed(&m, 20, 2), 0.75 * 0.575, 1e-12);
	struct ts_cost_model k = model_of("kunpeng920");
	for (int active = 1; active <= 32; active++)
		assert_near(sim_cpu_speed(&k, active, 1), 1.0, 0);
}

/* A bare engine on broadwell-2s: the topology, the costs, the CPUs and the event queue;
 * enough for sim_speed_* and the segment functions. */
struct bare {
	struct sim m;
	struct ts_topology *topo;
	struct ts_cost_model costs;
	struct sim_task task[2];
};

static void bare_init(struct bare *b, const char *machine, const char *override)
{
	memset(b, 0, sizeof(*b));
	struct ts_error err = {0};
	b->topo = ts_preset_find(machine)->build(&err);
	assert_non_null(b->topo);
	b->costs = model_of(machine);
	if (override)
		assert_int_equal(ts_cost_model_set(&b->costs, override, &err), 0);
	b->m.topo = b->topo;
	b->m.costs = &b->costs;
	b->m.nr_cpus = b->topo->nr_cpus;
	b->m.cpu = calloc((size_t)b->m.nr_cpus, sizeof(*b->m.cpu));
	assert_non_null(b->m.cpu);
	assert_int_equal(ts_eq_init(&b->m.q, 16), 0);
	assert_int_equal(sim_seg_ends_init(&b->m.ends, b->m.nr_cpus), 0);
	assert_int_equal(sim_speed_setup(&b->m), 0);
}

static void bare_free(struct bare *b)
{
	sim_speed_free(&b->m);
	ts_eq_destroy(&b->m.q);
	sim_seg_ends_destroy(&b->m.ends);
	free(b->m.cpu);
	ts_topology_free(b->topo);
}

/* The SMT sibling of cpu, and a CPU of another core of its package. */
static int sibling_of(const struct ts_topology *t, int cpu)
{
	for (int o = 0; o < t->nr_cpus; o++)
		if (o != cpu && t->cpu[o].core == t->cpu[cpu].core)
			return o;
	fail();
	return -1;
}

static int other_core_of(const struct ts_topology *t, int cpu)
{
	for (int o = 0; o < t->nr_cpus; o++)
		if (t->cpu[o].core != t->cpu[cpu].core && t->cpu[o].package == t->cpu[cpu].package)
			return o;
	fail();
	return -1;
}

/* The next event, as the engine's loop takes it. */
static struct ts_event next_live(struct bare *b)
{
	struct ts_event ev;
	if (!sim_next_event(&b->m, &ev))
		fail_msg("no event");
	return ev;
}

/* Runs cpu's segment to its end as the engine's loop does: a DONE that finds work left
 * (the CPU slowed down after posting it) posts the rest again. Returns the end time. */
static uint64_t run_to_end(struct bare *b, int cpu, int *early)
{
	*early = 0;
	for (;;) {
		struct ts_event ev = next_live(b);
		assert_int_equal(ev.kind, EV_DONE);
		assert_int_equal(ev.cpu, cpu);
		b->m.now = ev.time;
		sim_stop_segment(&b->m, cpu);
		if (b->m.cpu[cpu].curr->work == 0)
			return ev.time;
		++*early;
		sim_start_segment(&b->m, cpu);
	}
}

/* CPU 0 starts running `work` ns alone at t = 0. */
static void start_alone(struct bare *b, uint64_t work)
{
	b->task[0].work = work;
	b->m.cpu[0].curr = &b->task[0];
	sim_speed_busy(&b->m, 0, true);
	sim_start_segment(&b->m, 0);
}

/* CPU 0 runs 1,000 ns of work alone from t = 0; at t = 400 its sibling starts: 400 ns were
 * done at speed 1, the other 600 go at 1.15 / 2 = 0.575, 600 / 0.575 = 1,043.48 ns: the
 * segment ends at 1,444 (rounded up) with all of its work done. */
static void test_retime_when_sibling_starts(void **state)
{
	(void)state;
	struct bare b;
	bare_init(&b, "broadwell-2s", NULL);
	assert_non_null(b.m.speed);
	int sib = sibling_of(b.topo, 0);
	struct sim_task *t = &b.task[0];
	start_alone(&b, 1000);
	assert_near(b.m.cpu[0].speed, 1.0, 0);
	b.m.now = 400;
	b.m.cpu[sib].curr = &b.task[1];
	sim_speed_busy(&b.m, sib, true);
	assert_near(b.m.cpu[0].speed, 0.575, 1e-12);
	assert_near(b.m.cpu[sib].speed, 0.575, 1e-12);
	assert_near(b.m.cpu[0].seg_done, 400, 1e-9);
	/* the DONE posted for 1,000 fires early (400 + 600 x 0.575 = 745 done, 255 left), the
	 * rest takes 255 / 0.575 = 443.48 -> 444 ns */
	int early;
	assert_int_equal(run_to_end(&b, 0, &early), 1444);
	assert_int_equal(early, 1);
	assert_int_equal(t->work, 0);
	bare_free(&b);
}

/* The same segment stopped half-way keeps exactly the work not done; when the sibling stops
 * again the rest runs at full speed. 1,000 ns from t = 0, the sibling busy from 200 to 600:
 * 200 + 400 x 0.575 = 430 done at 600, 570 left at speed 1: DONE at 1,170. */
static void test_retime_when_sibling_stops(void **state)
{
	(void)state;
	struct bare b;
	bare_init(&b, "broadwell-2s", NULL);
	int sib = sibling_of(b.topo, 0);
	start_alone(&b, 1000);
	b.m.now = 200;
	sim_speed_busy(&b.m, sib, true);
	b.m.now = 600;
	sim_speed_busy(&b.m, sib, false);
	assert_near(b.m.cpu[0].speed, 1.0, 0);
	assert_near(b.m.cpu[0].seg_done, 430, 1e-9);
	struct ts_event ev = next_live(&b);
	assert_int_equal(ev.time, 1170);
	b.m.now = 700; /* preempted at 700: 430 + 100 done, 470 kept */
	sim_stop_segment(&b.m, 0);
	assert_int_equal(b.task[0].work, 470);
	bare_free(&b);
}

/* Another core of the package starts: the clock drops one bin, 3,600 -> 3,500 MHz, for
 * every busy CPU of the package; the other package is untouched. */
static void test_retime_when_package_clock_drops(void **state)
{
	(void)state;
	struct bare b;
	bare_init(&b, "broadwell-2s", NULL);
	int other = other_core_of(b.topo, 0);
	start_alone(&b, 3500);
	sim_speed_busy(&b.m, other, true);
	assert_near(b.m.cpu[0].speed, 3500.0 / 3600, 1e-12);
	assert_int_equal(b.m.speed->pkg_active[b.topo->cpu[0].package], 2);
	/* 3,500 / (3500/3600) = 3,600 ns: early at 3,500 (3,402.78 -> 3,403 done), the rest
	 * 97 / (3500/3600) = 99.8 -> 100 ns */
	int early;
	assert_int_equal(run_to_end(&b, 0, &early), 3600);
	assert_int_equal(early, 1);
	for (int cpu = 0; cpu < b.topo->nr_cpus; cpu++)
		if (b.topo->cpu[cpu].package != b.topo->cpu[0].package)
			assert_near(b.m.cpu[cpu].speed, 1.0, 0);
	bare_free(&b);
}

/* No SMT and a fixed clock (Kunpeng 920), or both mechanisms switched off by overrides:
 * the engine keeps no speed state and times segments exactly as before. */
static void test_off_where_nothing_changes_speed(void **state)
{
	(void)state;
	struct bare b;
	bare_init(&b, "kunpeng920", NULL);
	assert_null(b.m.speed);
	bare_free(&b);
	bare_init(&b, "jacobsville", NULL);
	assert_null(b.m.speed);
	bare_free(&b);
	bare_init(&b, "broadwell-2s", "smt.pair_yield=2");
	assert_non_null(b.m.speed); /* the clock still moves */
	bare_free(&b);
	bare_init(&b, "broadwell-2s", "freq.step_mhz=0");
	assert_non_null(b.m.speed); /* the siblings still share */
	struct ts_cost_model m = b.costs;
	assert_near(sim_cpu_speed(&m, 20, 1), 1.0, 0);
	bare_free(&b);
}

/* The stop of a re-timed segment rounds its work as llround() does, at the halves, just
 * below them, past 2^52 (every double an integer) and for random values. */
static void test_round_work_is_llround(void **state)
{
	(void)state;
	const double edge[] = {0,
			       0.5,
			       0.49999999999999994,
			       1.5,
			       2.5,
			       1e15 + 0.5,
			       4503599627370495.5,
			       4503599627370497.0,
			       9007199254740993.0,
			       1e18};
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		assert_int_equal(sim_round_work(edge[i]), (uint64_t)llround(edge[i]));
	rng_seed(5);
	for (int i = 0; i < 100000; i++) {
		double w = (double)(rng() >> 11) / (double)(1ULL << (rng() % 53));
		assert_int_equal(sim_round_work(w), (uint64_t)llround(w));
	}
}

/* Random starts and stops on the CPUs of 8 cores of each package of broadwell-2s (so that
 * the clock keeps crossing its bins, 1 to 8 active cores; nothing running, so only counts
 * and speeds move): after each, the incremental counts equal a recount, every busy CPU
 * sits in its package's busy list and runs at the recount's speed. */
static void test_counts_match_a_recount(void **state)
{
	(void)state;
	struct bare b;
	bare_init(&b, "broadwell-2s", "smt.pair_yield=1.3");
	const struct ts_topology *t = b.topo;
	struct sim_speed *s = b.m.speed;
	bool *busy = calloc((size_t)t->nr_cpus, sizeof(bool));
	int *pick = calloc((size_t)t->nr_cpus, sizeof(int));
	int *core_busy = calloc((size_t)t->nr_cores, sizeof(int));
	int *pkg_active = calloc((size_t)t->nr_packages, sizeof(int));
	int *pkg_cores = calloc((size_t)t->nr_packages, sizeof(int));
	assert_true(busy && pick && core_busy && pkg_active && pkg_cores);
	int n_pick = 0;
	for (int c = 0; c < t->nr_cpus; c++) /* a core's first CPU picks it and its sibling */
		if (sibling_of(t, c) > c && pkg_cores[t->cpu[c].package]++ < 8) {
			pick[n_pick++] = c;
			pick[n_pick++] = sibling_of(t, c);
		}
	rng_seed(3);
	for (int step = 0; step < 5000; step++) {
		int cpu = pick[rng() % (uint64_t)n_pick];
		busy[cpu] = !busy[cpu];
		sim_speed_busy(&b.m, cpu, busy[cpu]);
		memset(core_busy, 0, (size_t)t->nr_cores * sizeof(int));
		memset(pkg_active, 0, (size_t)t->nr_packages * sizeof(int));
		for (int c = 0; c < t->nr_cpus; c++)
			core_busy[t->cpu[c].core] += busy[c];
		for (int c = 0; c < t->nr_cpus; c++) /* a core counts once, at its first CPU */
			if (core_busy[t->cpu[c].core] && sibling_of(t, c) > c)
				pkg_active[t->cpu[c].package]++;
		for (int k = 0; k < t->nr_cores; k++)
			assert_int_equal(s->core_busy[k], core_busy[k]);
		for (int p = 0; p < t->nr_packages; p++) {
			int n = 0;
			for (int c = 0; c < t->nr_cpus; c++)
				n += busy[c] && t->cpu[c].package == p;
			assert_int_equal(s->pkg_active[p], pkg_active[p]);
			assert_int_equal(s->pkg_nbusy[p], n);
		}
		for (int c = 0; c < t->nr_cpus; c++) {
			int p = t->cpu[c].package, at = s->busy_at[c];
			assert_int_equal(at >= 0, busy[c]);
			if (!busy[c])
				continue;
			assert_int_equal(s->pkg_busy[s->pkg_first[p] + at], c);
			assert_near(
				b.m.cpu[c].speed,
				sim_cpu_speed(&b.costs, pkg_active[p], core_busy[t->cpu[c].core]),
				0);
		}
	}
	free(busy);
	free(pick);
	free(core_busy);
	free(pkg_active);
	free(pkg_cores);
	bare_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freq_by_active_cores),
		cmocka_unit_test(test_speed_siblings_and_bins),
		cmocka_unit_test(test_retime_when_sibling_starts),
		cmocka_unit_test(test_retime_when_sibling_stops),
		cmocka_unit_test(test_retime_when_package_clock_drops),
		cmocka_unit_test(test_off_where_nothing_changes_speed),
		cmocka_unit_test(test_counts_match_a_recount),
		cmocka_unit_test(test_round_work_is_llround),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
