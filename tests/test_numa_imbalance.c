/* The NUMA imbalance each kernel generation lets stand (src/core/numa_imbalance.c), by
 * hand from kernel/sched/fair.c of each era (docs/kernels.md, "The NUMA imbalance"):
 *
 *   v5.4        fork: stay unless node 1's runnable load + the imbalance (NICE_0_LOAD x
 *               (125 - 100) / 100 = 256) is below node 0's (find_idlest_group() of v5.4)
 *   v5.5        fork: stay while the local node has an idle CPU; no allowance elsewhere
 *   v5.6-v5.10  balancing halves, then drops any imbalance while the busiest node runs <= 2
 *   v5.11-v5.17 fork: stay while local running < span / 4; balancing halves, then drops an
 *               imbalance <= 2 while the busiest node runs < a quarter of its CPUs
 *   v5.18-v5.19 imb_numa_nr (one-LLC node: span >> 2): fork stays while running + 1 <= it;
 *               balancing halves, then drops an imbalance <= 2 while local running + 1 <= it
 *   v6.0+       imb_numa_nr (one-LLC node: span >> 3, at least 1); fork stays while running
 *               + 1 <= it and the idle-CPU difference is <= 2; balancing drops, then halves
 *
 * The machine: broadwell-2s, 2 nodes of 40 CPUs (20 cores x SMT2), one LLC per node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "core/numa_imbalance.h"
#include "sched_env.h"

static void env_kernel(struct env *e, const char *v)
{
	struct ts_sched_config cfg = {.kernel = kernel(v)};
	env_start(e, preset("broadwell-2s"), NULL, &cfg);
}

/* The domain fork balancing starts from on CPU 0: the NUMA level over both nodes. */
static struct ts_sched_domain *numa_domain(struct env *e)
{
	struct ts_sched_domain *sd, *top = NULL;
	ts_for_each_domain(e->s->dom, 0, sd)
	{
		if (sd->flags & TS_SD_BALANCE_FORK)
			top = sd;
	}
	assert_non_null(top);
	assert_true(top->flags & TS_SD_NUMA);
	assert_int_equal(top->span_weight, 80);
	return top;
}

static void test_adjust_per_era(void **state)
{
	(void)state;
	/* v5.4-v5.5: nothing is allowed */
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_NONE, 5, 1, 0), 5);
	/* v5.6-v5.10: any imbalance while 2 run, none at 3 */
	static const enum ts_numa_imbalance pair[] = {TS_NUMA_IMB_PAIR_LB, TS_NUMA_IMB_PAIR_SRC,
						      TS_NUMA_IMB_PAIR_DST};
	for (size_t i = 0; i < sizeof(pair) / sizeof(pair[0]); i++) {
		assert_int_equal(ts_numa_adjust_imbalance(pair[i], 7, 2, 0), 0);
		assert_int_equal(ts_numa_adjust_imbalance(pair[i], 7, 3, 0), 7);
	}
	/* v5.11-v5.17, 32 CPUs: below 8 running, an imbalance up to 2 */
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_QUARTER, 2, 7, 32), 0);
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_QUARTER, 3, 7, 32), 3);
	assert_int_equal(ts_numa_adjust_imbalance(TS_NUMA_IMB_QUARTER, 1, 8, 32), 1);
	/* v5.18+, imb_numa_nr 4: up to 4 running (<=, the v6 fix of v5's off-by-one) */
	static const enum ts_numa_imbalance nr[] = {TS_NUMA_IMB_LLCS, TS_NUMA_IMB_CONSISTENT};
	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++) {
		assert_int_equal(ts_numa_adjust_imbalance(nr[i], 2, 4, 4), 0);
		assert_int_equal(ts_numa_adjust_imbalance(nr[i], 3, 4, 4), 3);
		assert_int_equal(ts_numa_adjust_imbalance(nr[i], 1, 5, 4), 1);
	}
}

/* build_sched_domains(): the first domain above the LLC (40 CPUs) is the package, of the
 * same span (one LLC, nr_llcs = 1): imb = 40 >> 3 = 5 (v6.0), 40 >> 2 = 10 (v5.18); the
 * NUMA level spans the first NUMA domain's 80 CPUs, factor 1. */
static void test_imb_numa_nr_per_era(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		long imb;
	} cases[] = {{"6.12", 5}, {"6.0", 5}, {"5.19", 10}, {"5.18", 10}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct env e;
		env_kernel(&e, cases[i].v);
		assert_int_equal(ts_numa_imb_nr(e.s, numa_domain(&e)), cases[i].imb);
		env_destroy(&e);
	}
}

/* A parent running on CPU 0 and running - 1 other tasks on other CPUs of node 0, node 1
 * idle: the node the child goes to. Local idle CPUs 40 - running, node 1's 40.
 *   running 3:  v6 leaves (idle difference 3 > 2); v5.18 stays (4 <= 10); v5.11 stays
 *               (3 < 20); v5.10 stays (idle CPUs left)
 *   running 12: v5.18 leaves (13 > 10); v5.11 stays (12 < 20); v5.10 stays
 *   running 25: v5.11 leaves (25 >= 20); v5.10 stays
 *   running 2:  every era stays (v6: 3 <= 5 and a difference of 2)
 *   v5.4: each task's runnable load is its weight, 1024, over node 0's 40 CPUs of capacity
 *   1024: 25.6 per task; it stays while 25.6 x running <= 256: 10 stays, 11 leaves (where
 *   v5.5 stays: idle CPUs left) */
static void test_fork_node_per_era(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		int running, node;
	} cases[] = {
		{"6.12", 2, 0},	 {"6.12", 3, 1},  {"5.18", 3, 0},  {"5.18", 12, 1}, {"5.11", 12, 0},
		{"5.17", 25, 1}, {"5.11", 25, 1}, {"5.10", 25, 0}, {"5.6", 25, 0},  {"5.5", 25, 0},
		{"5.4", 10, 0},	 {"5.4", 11, 1},  {"5.5", 11, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct env e;
		env_kernel(&e, cases[i].v);
		struct ts_sched_domain *sd = numa_domain(&e);
		struct ts_task *parent = NULL;
		int placed = 0;
		for (int c = 0; c < e.t->nr_cpus && placed < cases[i].running; c++) {
			if (e.t->cpu[c].node != 0)
				continue;
			struct ts_task *q = env_busy(&e, c);
			if (!parent)
				parent = q;
			placed++;
		}
		assert_int_equal(parent->cpu, 0);
		struct ts_task *child = env_task(&e, 0, NULL, 0);
		int cpu = ts_sched_balance_find_dst_cpu(e.s, sd, child, 0, 0, TS_SD_BALANCE_FORK);
		if (e.t->cpu[cpu].node != cases[i].node)
			fail_msg("kernel %s, %d running on node 0: the child went to node %d, not "
				 "%d",
				 cases[i].v, cases[i].running, e.t->cpu[cpu].node, cases[i].node);
		env_destroy(&e);
	}
}

/* calculate_imbalance() with spare capacity at the NUMA level (imb_numa_nr 5 in v6, 10 in
 * v5.18; 40 CPUs per node):
 *   difference 5, local 1 running, busiest 6: v6 adjust(5, 2, 5) = 5 (above 2), halved 2;
 *     v5.18 halves to 2, adjust(2, 2, 10) = 0; v5.11 halves to 2, busiest 6 < 10: 0;
 *     v5.7 halves to 2, busiest 6 > 2: 2; v5.5: 2
 *   difference 4, busiest 2: v6 adjust(4, 2, 5) = 4, halved 2; v5.6-v5.10: 0 (2 running);
 *     v5.11: halved 2, 2 < 10: 0; v5.5: 2
 * Below the NUMA level every era only halves. */
static void test_balance_imbalance_per_era(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		long diff;
		unsigned int busiest_running;
		long tasks;
	} cases[] = {
		{"6.12", 5, 6, 2}, {"6.0", 5, 6, 2},  {"5.18", 5, 6, 0}, {"5.11", 5, 6, 0},
		{"5.7", 5, 6, 2},  {"5.5", 5, 6, 2},  {"6.12", 4, 2, 2}, {"5.10", 4, 2, 0},
		{"5.6", 4, 2, 0},  {"5.11", 4, 2, 0}, {"5.5", 4, 2, 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct env e;
		env_kernel(&e, cases[i].v);
		struct ts_sched_domain *sd = numa_domain(&e);
		struct sg_lb_stats local = {.sum_nr_running = 1, .group_weight = 40};
		struct sg_lb_stats busiest = {.sum_nr_running = cases[i].busiest_running,
					      .group_weight = 40};
		long tasks = ts_numa_spare_imbalance(e.s, sd, cases[i].diff, &local, &busiest);
		if (tasks != cases[i].tasks)
			fail_msg(
				"kernel %s, difference %ld, busiest %u: %ld tasks to move, not %ld",
				cases[i].v, cases[i].diff, cases[i].busiest_running, tasks,
				cases[i].tasks);
		assert_int_equal(ts_numa_spare_imbalance(e.s, sd->child, 5, &local, &busiest), 2);
		env_destroy(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adjust_per_era),
		cmocka_unit_test(test_imb_numa_nr_per_era),
		cmocka_unit_test(test_fork_node_per_era),
		cmocka_unit_test(test_balance_imbalance_per_era),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
