/* The machine physics the engine charges (docs/model.md): a pinned pipe pair, run as lmbench
 * lat_pipe runs it (--pin-cpus), shows the Kunpeng 920 hand-off figures it was derived from
 * (other cluster +1.61 us, other die +7.07 us per round trip over the same cluster; on the
 * 6-cluster machine both tasks on one CPU +1.70 us over two CPUs of one cluster); tasks
 * alternating on one CPU, or on two SMT threads of one core, evict each other's working set; a
 * waker pays its enqueue on a busy CPU; load balancing costs CPU time; and bad pin_cpus input is
 * refused. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/sim.h"

#include "sim/engine.h"

#include "sim_machine.h"
#include "test_support.h"

#define MS 1000000ULL

/* lmbench lat_pipe's round trip in us for `pairs` pipe pairs on machine m, task k pinned to
 * cpus[k % n]; the metric is the window over all round trips. Without background activity
 * (a tick or softirq adds ~50 ns to a round trip) when `quiet`, as the derivations take
 * the pairs. */
static double pipe_rt_for(const struct machine *m, const int *cpus, int n, int pairs, bool quiet)
{
	const struct ts_workload *w = ts_workload_find("pipe");
	assert_non_null(w);
	struct ts_sim_config cfg = sim_config(m, w, pairs);
	cfg.pin_cpus = cpus;
	cfg.nr_pin_cpus = n;
	cfg.warmup_ns = 2 * MS;
	cfg.duration_ns = 10 * MS;
	cfg.no_background = quiet;
	struct ts_sim_result r = sim_run_ok(&cfg);
	assert_true(r.marks > 100);
	return r.metric;
}

static double pipe_rt(const struct machine *m, const int *cpus, int n, int pairs)
{
	return pipe_rt_for(m, cpus, n, pairs, false);
}

static double pair_rt(const struct machine *m, int a, int b)
{
	int cpus[2] = {a, b};
	return pipe_rt_for(m, cpus, 2, 1, true);
}

/* kunpeng920 (8 clusters of 4 per node): CPU 1 <-> 0, 4, 32 as in the wayca-scheduler log. */
static void test_pinned_pair_kunpeng920(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	double cluster = pair_rt(&m, 1, 0), other = pair_rt(&m, 1, 4), die = pair_rt(&m, 1, 32);
	print_message("kunpeng920 lat_pipe: same cluster %.3f, other cluster %.3f, other die %.3f "
		      "us\n",
		      cluster, other, die);
	assert_near(cluster, 5.797, 0.03); /* ctx_switch is derived from it */
	assert_near(other - cluster, 7.406 - 5.797, 0.03);
	assert_near(die - cluster, 12.870 - 5.797, 0.05);
	/* every other cluster of the die alike */
	for (int c = 8; c < 32; c += 4)
		assert_near(pair_rt(&m, 1, c), other, 0.03);
	machine_free(&m);
}

/* kunpeng920-48 (6 clusters per node): one CPU slower than one cluster, by 1.70 us. */
static void test_pinned_pair_one_cpu_kunpeng920_48(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920-48");
	double cluster = pair_rt(&m, 0, 1), one_cpu = pair_rt(&m, 0, 0);
	print_message("kunpeng920-48 lat_pipe: same cluster %.3f, one CPU %.3f us\n", cluster,
		      one_cpu);
	assert_true(one_cpu > cluster);
	assert_near(cluster, 10.18, 0.03); /* its own ctx_switch is derived from it */
	assert_near(one_cpu - cluster, 11.88 - 10.18, 0.03);
	machine_free(&m);
}

/* Two pairs on one CPU: each task comes back after three other runs instead of one, and
 * refetches more of its working set; without a working set (cache.run_kib = 0) the CPU time
 * per round trip does not depend on how many pairs share the CPU. */
static void test_eviction_on_one_cpu(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	int one[1] = {2};
	double rt1 = pipe_rt(&m, one, 1, 1), rt2 = pipe_rt(&m, one, 1, 2);
	print_message("one CPU: 1 pair %.3f us, 2 pairs %.3f us per round trip\n", rt1, rt2);
	/* each of a round trip's two runs comes back after three other runs of 142 KiB instead
	 * of one: with its own, 568 KiB against the 512-KiB L2 (least recently used) where 284
	 * fit, so it refetches 56 KiB: 2 x 56 x refill.llc (57.12 ns/KiB) ~ 6.4 us more when
	 * the two pairs alternate strictly, on top of the other pair's runs in between; they do
	 * not always (measured ~4.0 us more), and without a working set nothing (below) */
	assert_true(rt2 > rt1 + 3.0);
	struct ts_error err = {0};
	assert_int_equal(ts_cost_model_set(&m.costs, "cache.run_kib=0", &err), 0);
	double flat1 = pipe_rt(&m, one, 1, 1), flat2 = pipe_rt(&m, one, 1, 2);
	assert_near(flat2, flat1, 0.02 * flat1);
	machine_free(&m);
}

/* SMT threads share their core's L2: a pair on CPU 0 loses more of its working set when
 * another pair runs on its sibling (CPU 40) than when that pair runs on another core
 * (CPU 1). Without a working set (cache.run_kib = 0) only the sibling's share of the
 * core's throughput separates the two placements. */
static void test_smt_siblings_share_the_cache(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "broadwell-2s");
	assert_int_equal(m.topo->cpu[40].core, m.topo->cpu[0].core);
	int sibling[4] = {0, 0, 40, 40}, other[4] = {0, 0, 1, 1};
	double sib = pipe_rt(&m, sibling, 4, 2), oth = pipe_rt(&m, other, 4, 2);
	struct ts_error err = {0};
	assert_int_equal(ts_cost_model_set(&m.costs, "cache.run_kib=0", &err), 0);
	double sib_flat = pipe_rt(&m, sibling, 4, 2), oth_flat = pipe_rt(&m, other, 4, 2);
	print_message("broadwell-2s, a pair on CPU 0 and one on CPU 40 / 1: %.3f / %.3f us; "
		      "without a working set %.3f / %.3f us\n",
		      sib, oth, sib_flat, oth_flat);
	/* The sibling's share of the core slows every piece of work alike (the refetch
	 * too), so it leaves the ratio as without a working set; the shared L2 raises it:
	 * each run refetches ~115 KiB instead of ~61 from L3 (142 KiB x (1 - e^(-x/256)),
	 * x = 426 or 142 KiB run in between). */
	assert_true(sib / oth > 1.2 * (sib_flat / oth_flat));
	machine_free(&m);
}

/* A cost term's value, which must exist. */
static double cost(const struct ts_cost_model *c, const char *name)
{
	const struct ts_cost_term *t = ts_cost_model_term(c, name);
	assert_non_null(t);
	return t->value;
}

/* sim_refill_ns()'s total */
static double refill(const struct sim *m, const struct sim_task *t, int cpu)
{
	double moved;
	return sim_refill_ns(m, t, cpu, &moved);
}

/* The refill a task pays as it is switched in (sim_refill_ns()), by hand from broadwell-2s's
 * terms: back on its CPU the part of its working set the runs in between evicted from the
 * core's L2; on the SMT sibling that and its footprint from the sibling's L1; on any other
 * core all of its working set, whatever was evicted, at the tier's refill rate (the whole
 * 142-KiB run working set, or a larger footprint). */
static void test_refill_by_where_the_task_runs(void **state)
{
	(void)state;
	struct machine mc;
	machine_load(&mc, "broadwell-2s");
	const struct ts_cost_model *c = &mc.costs;
	struct sim *m = calloc(1, sizeof *m);
	assert_non_null(m);
	m->topo = mc.topo;
	m->costs = c;
	for (int r = 0; r < TS_REL_NR; r++)
		m->refill[r] = ts_cost_refill_per_kib(c, (enum ts_cpu_relation)r, 0);
	m->run_kib = cost(c, "cache.run_kib");
	m->evict_refill_per_kib = m->refill[TS_REL_LLC];
	double *caches = calloc((size_t)mc.topo->nr_cores, sizeof *caches);
	assert_non_null(caches);
	m->core_cache_kib = caches;
	struct ts_task_class small = {.name = "small", .footprint_kib = 16};
	struct ts_task_class big = {.name = "big", .footprint_kib = 256};
	struct sim_task t = {.cls = &small, .last_cpu = -1};
	assert_true(m->run_kib > 16 && m->run_kib < 256);
	assert_near(refill(m, &t, 0), 0, 0); /* its first run */
	/* it last ran on CPU 0 (core 0), and 300 KiB entered core 0's L2 since */
	t.last_cpu = 0;
	t.cache_mark = 100;
	caches[mc.topo->cpu[0].core] = 400;
	/* least recently used: of its 142 KiB, 300 newer KiB in a 256-KiB L2 leave none */
	double evicted = fmin(m->run_kib, m->run_kib + 300.0 - cost(c, "cache.capacity_kib")) *
			 cost(c, "refill.llc");
	assert_near(evicted, m->run_kib * cost(c, "refill.llc"), 1e-9);
	assert_near(refill(m, &t, 0), evicted, 1e-9);
	assert_near(refill(m, &t, 40), evicted + 16 * cost(c, "refill.smt"), 1e-9);
	/* on its core nothing counts as moved; on another core all of it does */
	double moved;
	assert_near(sim_refill_ns(m, &t, 40, &moved), evicted + 16 * cost(c, "refill.smt"), 1e-9);
	assert_near(moved, 0, 0);
	assert_near(sim_refill_ns(m, &t, 1, &moved), m->run_kib * cost(c, "refill.llc"), 1e-9);
	assert_near(moved, m->run_kib * cost(c, "refill.llc"), 1e-9);
	/* another core of the LLC, then of the other socket (SLIT 21): everything */
	assert_near(refill(m, &t, 1), m->run_kib * cost(c, "refill.llc"), 1e-9);
	assert_near(refill(m, &t, 20), m->run_kib * ts_cost_refill_between(c, mc.topo, 0, 20),
		    1e-9);
	assert_true(refill(m, &t, 20) > refill(m, &t, 1));
	/* nothing evicted: back on its CPU free, on another core the same */
	caches[mc.topo->cpu[0].core] = 100;
	assert_near(refill(m, &t, 0), 0, 1e-12);
	assert_near(refill(m, &t, 1), m->run_kib * cost(c, "refill.llc"), 1e-9);
	/* a program whose own footprint is larger refetches that */
	t.cls = &big;
	assert_near(refill(m, &t, 1), 256 * cost(c, "refill.llc"), 1e-9);
	free(caches);
	free(m);
	machine_free(&mc);
}

/* A waker that enqueues on a busy CPU pays wake_enqueue: two pairs on CPUs 0 and 4 keep both
 * CPUs busy, so a dearer remote enqueue slows them; one pair, whose wakee CPU is idle, not. */
static void test_wake_enqueue_busy_target(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	int cpus[2] = {0, 4};
	double busy = pipe_rt(&m, cpus, 2, 2), idle = pipe_rt(&m, cpus, 2, 1);
	struct ts_error err = {0};
	assert_int_equal(ts_cost_model_set(&m.costs, "wake_enqueue.llc=5000", &err), 0);
	double busy_dear = pipe_rt(&m, cpus, 2, 2), idle_dear = pipe_rt(&m, cpus, 2, 1);
	print_message("0,4: 2 pairs %.3f -> %.3f, 1 pair %.3f -> %.3f us\n", busy, busy_dear, idle,
		      idle_dear);
	assert_true(busy_dear > busy + 1.0);
	assert_near(idle_dear, idle, 1e-9);
	machine_free(&m);
}

/* Two pipe pairs on the CPUs pins[k % n], with every balance pass priced at `ns` per CPU
 * examined (NULL: the preset's price), 200 ms after 2 ms. */
static struct ts_sim_result pipe_balance_priced(struct machine *m, const int *pins, int n,
						const char *ns)
{
	static const char *const tiers[] = {"same_cpu", "cluster", "llc"};
	struct ts_error err = {0};
	char term[64];
	for (size_t i = 0; ns && i < sizeof(tiers) / sizeof(tiers[0]); i++) {
		snprintf(term, sizeof(term), "balance_per_cpu.%s=%s", tiers[i], ns);
		assert_int_equal(ts_cost_model_set(&m->costs, term, &err), 0);
	}
	struct ts_sim_config cfg = sim_config(m, ts_workload_find("pipe"), 2);
	cfg.pin_cpus = pins;
	cfg.nr_pin_cpus = n;
	cfg.warmup_ns = 2 * MS;
	cfg.duration_ns = 200 * MS;
	return sim_run_ok(&cfg);
}

/* A busy CPU's periodic balancing costs its task: each pair alone on its CPU (0 and 4) keeps
 * it busy; should_we_balance() leaves most passes to the idle CPUs of the cluster, but the
 * two cluster passes the busy CPUs make in the window cost 4 x 300 us each at 300 us per
 * CPU examined: 2.4 ms of the 400 ms of the two CPUs, +0.6 % on the round trip. */
static void test_periodic_balance_charged(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	static const int pins[4] = {0, 0, 4, 4};
	struct ts_sim_result base = pipe_balance_priced(&m, pins, 4, NULL),
			     dear = pipe_balance_priced(&m, pins, 4, "300000");
	print_message("0,0,4,4: %.3f us; with balance passes at 300 us a CPU %.3f us (%llu "
		      "busy passes)\n",
		      base.metric, dear.metric,
		      (unsigned long long)dear.lb.lb_count[TS_CPU_NOT_IDLE]);
	assert_true(dear.lb.lb_count[TS_CPU_NOT_IDLE] >= 1);
	assert_true(dear.metric > base.metric * 1.004);
	machine_free(&m);
}

/* Newly-idle balancing is timed and stops when dear: two pairs on CPUs 0, 4 and 8 (a0 and
 * b1 share CPU 0, b0 has CPU 4, a1 CPU 8) go newly idle about once a hop, and CPU 0's two
 * tasks keep the root domain overloaded, so passes run; the core times each one
 * (update_newidle_cost()) and stops walking once the cost exceeds the CPU's avg_idle, so
 * at 20 us per CPU examined almost none runs. (Whether a pass delays the pair depends on
 * a wake-up landing during it: the walk is the idle CPU's kernel work.) */
static void test_newidle_balance_cut_off(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	static const int pins[3] = {0, 4, 8};
	struct ts_sim_result cheap = pipe_balance_priced(&m, pins, 3, "200"),
			     dear = pipe_balance_priced(&m, pins, 3, "20000");
	uint64_t passes = cheap.lb.lb_count[TS_CPU_NEWLY_IDLE],
		 passes_dear = dear.lb.lb_count[TS_CPU_NEWLY_IDLE];
	print_message("0,4,8: newly-idle passes at 200 ns a CPU %llu, at 20 us %llu\n",
		      (unsigned long long)passes, (unsigned long long)passes_dear);
	assert_true(passes > 10000);
	assert_true(passes_dear * 100 < passes);
	machine_free(&m);
}

/* The work a run charges, by term (ts_sim_result.work_ns), on lat_pipe pairs whose every
 * hand-off is known: on two CPUs of one cluster each round trip switches two woken tasks in
 * after idle (ctx_switch and handoff.cluster each, no switch_out); on one CPU each switch-in
 * follows the other task (ctx_switch and switch_out, no hand-off between CPUs, and no
 * refill: the two runs fit the L2). Pinned, the tasks never scan and never move. Without
 * background activity, and at full speed (Kunpeng 920 has no turbo and no SMT), the terms
 * only tasks pay add up to the CPUs' busy time (balancing is partly an idle CPU's kernel
 * work, which is not busy time). */
static struct ts_sim_result pipe_pair_run(const struct machine *m, int a, int b)
{
	int cpus[2] = {a, b};
	struct ts_sim_config cfg = sim_config(m, ts_workload_find("pipe"), 1);
	cfg.pin_cpus = cpus;
	cfg.nr_pin_cpus = 2;
	cfg.warmup_ns = 2 * MS;
	cfg.duration_ns = 20 * MS;
	cfg.no_background = true;
	return sim_run_ok(&cfg);
}

static void test_work_by_term(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	const struct ts_cost_model *c = &m.costs;
	double ctx = cost(c, "ctx_switch"), out = cost(c, "switch_out");
	for (int one_cpu = 0; one_cpu < 2; one_cpu++) {
		struct ts_sim_result r = pipe_pair_run(&m, one_cpu ? 0 : 1, 0);
		const double *w = r.work_ns;
		double tasks = 0;
		for (int i = 0; i < TS_WORK_NR; i++) {
			print_message("%s %-14s %12.0f\n", one_cpu ? "0,0" : "1,0",
				      ts_sim_work_name((enum ts_sim_work)i), w[i]);
			assert_true(w[i] >= 0);
			if (i != TS_WORK_BALANCE && i != TS_WORK_KERNEL)
				tasks += w[i];
		}
		double switches = 2.0 * (double)r.marks; /* two switch-ins a round trip */
		assert_true(r.marks > 1000);
		assert_near(w[TS_WORK_CTX_SWITCH] / (switches * ctx), 1, 0.02);
		assert_near(w[TS_WORK_REFILL_MOVED], 0, 0);
		assert_near(w[TS_WORK_IDLE_SCAN], 0, 0);
		assert_true(w[TS_WORK_PROGRAM] > 0);
		if (one_cpu) {
			assert_near(w[TS_WORK_SWITCH_OUT] / (switches * out), 1, 0.02);
			assert_near(w[TS_WORK_HANDOFF], 0, 0);
			/* the two runs' 284 KiB fit the 512-KiB L2: nothing to refetch */
			assert_near(w[TS_WORK_REFILL_EVICTED], 0, 0);
		} else {
			assert_true(w[TS_WORK_SWITCH_OUT] < 0.01 * w[TS_WORK_CTX_SWITCH]);
			assert_near(w[TS_WORK_HANDOFF] / (switches * cost(c, "handoff.cluster")), 1,
				    0.02);
		}
		print_message("tasks' terms %.0f, busy %llu\n", tasks,
			      (unsigned long long)r.busy_ns);
		assert_near(tasks / (double)r.busy_ns, 1, 0.02);
	}
	assert_string_equal(ts_sim_work_name(TS_WORK_REFILL_MOVED), "refill_moved");
	assert_string_equal(ts_sim_work_name(TS_WORK_NR), "?");
	machine_free(&m);
}

static void test_pin_cpus_errors(void **state)
{
	(void)state;
	struct machine m;
	machine_load(&m, "kunpeng920");
	struct ts_sim_config cfg = sim_config(&m, ts_workload_find("pipe"), 1);
	struct ts_sim_result r;
	struct ts_error err = {0};
	int bad[2] = {0, 128};
	cfg.pin_cpus = bad;
	cfg.nr_pin_cpus = 2;
	assert_int_equal(ts_sim_run(&cfg, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "pin_cpus[1] = 128"));
	cfg.pin = m.node0; /* CPUs 0-31 */
	int outside[2] = {0, 40};
	cfg.pin_cpus = outside;
	ts_error_clear(&err);
	assert_int_equal(ts_sim_run(&cfg, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "outside the pin mask"));
	cfg.nr_pin_cpus = 0;
	ts_error_clear(&err);
	assert_int_equal(ts_sim_run(&cfg, &r, &err), -EINVAL);
	machine_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned_pair_kunpeng920),
		cmocka_unit_test(test_pinned_pair_one_cpu_kunpeng920_48),
		cmocka_unit_test(test_eviction_on_one_cpu),
		cmocka_unit_test(test_smt_siblings_share_the_cache),
		cmocka_unit_test(test_refill_by_where_the_task_runs),
		cmocka_unit_test(test_wake_enqueue_busy_target),
		cmocka_unit_test(test_periodic_balance_charged),
		cmocka_unit_test(test_newidle_balance_cut_off),
		cmocka_unit_test(test_work_by_term),
		cmocka_unit_test(test_pin_cpus_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
