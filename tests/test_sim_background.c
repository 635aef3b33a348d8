/* The kernel's own CPU time in the simulator (docs/engine.md, "Kernel time"): the tick and
 * the softirqs steal what the cost model says from a busy CPU, deterministically per seed;
 * --no-background (cfg.no_background) removes them; an idle CPU busy with kernel work
 * (its kept tick) makes a wake-up wait; newly-idle balancing is charged and its time
 * reaches the core (tests/test_balance.c checks max_newidle_lb_cost from the host's
 * newidle_time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/sim.h"

#include "sim_machine.h"
#include "test_support.h"

#define US 1000ULL
#define MS 1000000ULL

/* One CPU-bound task: 10 us of work per mark. */
static const struct ts_phase spin[] = {
	{.kind = TS_PH_RUN, .ns = 10 * US},
	{.kind = TS_PH_MARK},
};
static const struct ts_task_class spin_class[] = {
	{.name = "spin", .count = 1, .phases = spin, .nr_phases = 2},
};
static const struct ts_workload spinner = {
	.name = "test-spin",
	.classes = spin_class,
	.nr_classes = 1,
	.metric = TS_METRIC_TPS_PER_INSTANCE,
	.metric_name = "tps",
	.unit = "ops/s",
	.load_name = "instances",
};

static struct ts_sim_config one_cpu_config(struct ts_topology **t, struct ts_cost_model *k)
{
	struct ts_error err = {0};
	assert_int_equal(ts_topology_load("synthetic:pack:1 core:1 pu:1", t, &err), 0);
	assert_int_equal(ts_cost_model_for(*t, NULL, k, &err), 0);
	return (struct ts_sim_config){
		.topo = *t,
		.costs = k,
		.features = ts_features_default(),
		.workload = &spinner,
		.load = 1,
		.duration_ns = 400 * MS,
		.warmup_ns = 10 * MS,
		.seed = 1,
		.hz = 1000,
	};
}

/* A busy CPU loses the tick's interrupt every tick, a softirq now and then and the
 * kworker's run every second: the spinner's rate falls by that share of the CPU. */
static void test_tick_steals_time(void **state)
{
	(void)state;
	struct ts_topology *t = NULL;
	struct ts_cost_model k;
	struct ts_sim_config cfg = one_cpu_config(&t, &k);
	cfg.no_background = true;
	struct ts_sim_result quiet = sim_run_ok(&cfg);
	cfg.no_background = false;
	struct ts_sim_result noisy = sim_run_ok(&cfg);
	double lost = (k.noise_tick_busy.value * 1000 +
		       k.noise_softirq.value * k.noise_softirq_per_s.value) /
		      1e9;
	double ratio = noisy.metric / quiet.metric;
	print_message("spinner: %.1f ops/s quiet, %.1f with background (%.5f, tick and softirq "
		      "alone %.5f)\n",
		      quiet.metric, noisy.metric, ratio, 1 - lost);
	assert_true(ratio < 1);
	/* the kworker's run and its two switches: < 0.01 % per second, besides */
	assert_near(ratio, 1 - lost, 0.0003);
	/* off, nothing is stolen: 10 us per mark plus nothing */
	assert_near(quiet.metric, 1e9 / (10 * US), 1e9 / (10 * US) * 0.0005);
	ts_topology_free(t);
}

/* Same seed, same bytes; another seed moves the softirqs (and so the result). */
static void test_background_deterministic(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_config cfg = sim_config(&m, ts_workload_find("tbench"), 8);
	cfg.pin = m.node0;
	cfg.duration_ns = 20 * MS;
	struct ts_sim_result a = sim_run_ok(&cfg), b = sim_run_ok(&cfg);
	a.wall_s = b.wall_s = 0;
	assert_memory_equal(&a, &b, sizeof(a));
	cfg.no_background = true;
	struct ts_sim_result off = sim_run_ok(&cfg);
	print_message("tbench 8: %.2f MB/s with background, %.2f without\n", a.metric, off.metric);
	assert_true(off.metric != a.metric);
	machine_free(&m);
}

/* An idle CPU that keeps its tick leaves idle for it and runs it as kernel work; a
 * wake-up arriving meanwhile waits for the rest. A pinned pipe pair on two CPUs of one
 * cluster idles between its hand-offs (< a tick: the tick is kept); a dear idle tick
 * slows its round trips, and only through the idle CPUs (the busy tick unchanged). */
static void test_idle_tick_delays_wakeup(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	const struct ts_workload *w = ts_workload_find("pipe");
	assert_non_null(w);
	int cpus[2] = {0, 1};
	struct ts_sim_config cfg = sim_config(&m, w, 1);
	cfg.pin_cpus = cpus;
	cfg.nr_pin_cpus = 2;
	cfg.duration_ns = 20 * MS;
	cfg.hz = 1000;
	double base = sim_run_ok(&cfg).metric;
	struct ts_error err = {0};
	assert_int_equal(ts_cost_model_set(&m.costs, "noise.tick_idle=200000", &err), 0);
	double dear = sim_run_ok(&cfg).metric;
	print_message("lat_pipe CPUs 0,1: %.3f us, idle tick 200 us: %.3f us\n", base, dear);
	/* a tick finds a CPU of the pair idle about half the time, and the partner's next
	 * wake-up comes within microseconds: the pair stalls for most of the 200 us, some
	 * 200 us per ms of the two CPUs' ticks (the CPU left idle for longer than a tick
	 * stops its tick) */
	assert_true(dear > base * 1.15);
	machine_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tick_steals_time),
		cmocka_unit_test(test_background_deterministic),
		cmocka_unit_test(test_idle_tick_delays_wakeup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
