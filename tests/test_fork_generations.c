/* Fork and exec placement of v5.4 (find_idlest_group() before 57abff067a08, v5.5) and the
 * runnable load it reads (cfs_rq->avg.runnable_load_avg of v5.4: the PELT load of the
 * queued entities only), by hand from kernel/sched/fair.c of v5.4.
 *
 * Broadwell-2s, node 0 (20 SMT cores, CPUs c and c + 40, capacity 1024 each): the MC level
 * (40 CPUs, groups = cores, capacity 2048) decides, in every era (v5.4 has no CLS level,
 * and Broadwell's clusters would be its LLC). imbalance_pct 117 (an LLC):
 * imbalance = 1024 x 17 / 100 = 174, imbalance_scale = 100 + 17 / 2 = 108. A new task's
 * load_avg is its weight (init_entity_runnable_average()): 1024 at nice 0, 15 at nice 19.
 * The NUMA level (2 nodes of 40 CPUs) for exec and fork across nodes.
 *
 * Below the chosen core the walk goes on at the SMT level of the CPU picked there (the
 * core's first idle CPU), whose groups are single CPUs: imbalance_pct 110, so imbalance
 * 102 and imbalance_scale 105; with every load 0 there, the sibling is "idlest" and
 * neither final test keeps the local one (0 > 0 + 102 is false; 0 < 0 + 102 holds but
 * 100 x 0 < 105 x 0 does not), so v5.4 moves the child to the sibling: the second idle
 * CPU of an idle core. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched_env.h"

#define MS 1000000ULL

static void env_kernel(struct env *e, const char *preset_name, const char *v)
{
	struct ts_sched_config cfg = {.kernel = kernel(v)};
	env_start(e, preset(preset_name), NULL, &cfg);
}

/* CPUs first..last. */
static struct ts_cpumask *cpus(struct env *e, int first, int last)
{
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	assert_non_null(m);
	for (int c = first; c <= last; c++)
		ts_cpumask_set(m, c);
	return m;
}

/* A task of nice `nice` running (or queued) on cpu, allowed `allowed`. */
static struct ts_task *busy(struct env *e, int cpu, int nice, const struct ts_cpumask *allowed)
{
	struct ts_task *p = env_task(e, nice, allowed, cpu);
	fake_run_on(e->s, &e->f, p, cpu);
	return p;
}

/* cpu's current task goes to sleep; cpu schedules. */
static void sleep_curr(struct env *e, int cpu)
{
	fake_lock(&e->f, cpu);
	ts_schedule_deactivate(e->s, cpu, TS_TASK_SLEEPING);
	fake_unlock(&e->f, cpu);
	assert_int_equal(e->f.lock_errors, 0);
}

/* The CPU fork balancing gives a child of the task running on CPU 0 (allowed `allowed`). */
static int fork_from_cpu0(struct env *e, const struct ts_cpumask *allowed, struct ts_task *parent)
{
	struct ts_task *child = env_task(e, 0, allowed, 0);
	struct ts_placement pl = ts_wake_up_new_task(e->s, child, 0, parent);
	assert_int_equal(pl.reason, TS_PLACE_SLOW_PATH);
	return pl.cpu;
}

/* The parent (nice 0) runs on CPU 0; two nice-19 tasks run on core 1 (CPUs 1 and 41), one
 * nice-0 task on CPU 2 (core 2); the child may use cores 0-2 only.
 *   v5.4: runnable loads per capacity: local 1024 x 1024 / 2048 = 512, core 1
 *     2 x 15 x 1024 / 2048 = 15, core 2 512. Core 1 is the idlest (first, and core 2 is not
 *     lower by the imbalance); 15 + 174 < 512, so the child leaves for it, though both its
 *     CPUs are busy: no idle CPU, so the one of least runnable load, the first (CPU 1,
 *     15); at the SMT level its sibling's 15 is no lower by 102 and the local 15 is lower
 *     than 105/100 of it: CPU 1 stays, beside the nice-19 task.
 *   v5.5: core 1 has no idle CPU, cores 0 and 2 one each: the idlest remote group is core 2
 *     and the local one has as many idle CPUs, so the child stays in core 0: CPU 40. */
static void test_v5_4_weighs_runnable_load_not_idle_cpus(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		int cpu;
	} cases[] = {{"5.4", 1}, {"5.5", 40}, {"6.12", 40}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct env e;
		env_kernel(&e, "broadwell-2s", cases[i].v);
		struct ts_cpumask *cores012 = cpus(&e, 0, 2);
		for (int c = 40; c <= 42; c++)
			ts_cpumask_set(cores012, c);
		struct ts_task *parent = busy(&e, 0, 0, cores012);
		busy(&e, 1, 19, NULL);
		busy(&e, 41, 19, NULL);
		busy(&e, 2, 0, NULL);
		if (!e.s->kernel.idlest_group_by_type) {
			assert_int_equal(ts_cpu_runnable_load(e.s, 0), 1024);
			assert_int_equal(ts_cpu_runnable_load(e.s, 41), 15);
		}
		int cpu = fork_from_cpu0(&e, cores012, parent);
		if (cpu != cases[i].cpu)
			fail_msg("kernel %s: the child went to CPU %d, not %d", cases[i].v, cpu,
				 cases[i].cpu);
		ts_cpumask_free(cores012);
		env_destroy(&e);
	}
}

/* Between remote groups of close runnable loads v5.4 takes the one of lower load_avg,
 * blocked load included. A task ran on CPU 1 (core 1) and sleeps: core 1's runnable load
 * is 0 but its load_avg 1024 x 1024 / 2048 = 512. Core 1 is the first idlest (runnable 0,
 * load 512), core 2 has runnable 0 < 0 + 174 and 100 x 512 > 108 x 0: the child goes to
 * core 2, CPU 2, then at the SMT level to CPU 42. Without the sleeper core 1 wins, CPU 1,
 * then 41. */
static void test_v5_4_blocked_load_decides_between_close_groups(void **state)
{
	(void)state;
	for (int with_sleeper = 0; with_sleeper <= 1; with_sleeper++) {
		struct env e;
		env_kernel(&e, "broadwell-2s", "5.4");
		struct ts_cpumask *node0 = cpus(&e, 0, 19);
		for (int c = 40; c <= 59; c++)
			ts_cpumask_set(node0, c);
		struct ts_task *parent = busy(&e, 0, 0, node0);
		if (with_sleeper) {
			busy(&e, 1, 0, node0);
			sleep_curr(&e, 1);
			assert_int_equal(ts_cpu_runnable_load(e.s, 1), 0);
			assert_int_equal(ts_cpu_load(e.s, 1), 1024);
		}
		assert_int_equal(fork_from_cpu0(&e, node0, parent), with_sleeper ? 42 : 41);
		ts_cpumask_free(node0);
		env_destroy(&e);
	}
}

/* Outside fork balancing v5.4 first weighs spare capacity: the local node keeps an exec
 * while its most spare CPU (1024, nothing runs there) is above half of p's utilisation and
 * 108 x 1024 > 100 x the other node's most spare (1024). The same state (11 nice-0 tasks on
 * node 0's first CPUs, the parent on CPU 0) sends a fork to node 1: node 0's runnable load
 * 11 x 1024 x 1024 / 40960 = 281 is above 0 + 256 (NUMA: imbalance_pct 125). */
static void test_v5_4_exec_weighs_spare_capacity(void **state)
{
	(void)state;
	struct env e;
	env_kernel(&e, "broadwell-2s", "5.4");
	struct ts_sched_domain *sd, *top = NULL;
	ts_for_each_domain(e.s->dom, 0, sd)
	{
		if (sd->flags & TS_SD_BALANCE_FORK)
			top = sd;
	}
	assert_non_null(top);
	assert_true(top->flags & TS_SD_NUMA);
	assert_int_equal(top->imbalance_pct, 125);
	struct ts_task *parent = NULL;
	for (int c = 0, placed = 0; placed < 11; c++) {
		if (e.t->cpu[c].node != 0)
			continue;
		struct ts_task *q = busy(&e, c, 0, NULL);
		parent = parent ? parent : q;
		placed++;
	}
	int exec_cpu = ts_sched_balance_find_dst_cpu(e.s, top, parent, 0, 0, TS_SD_BALANCE_EXEC);
	assert_int_equal(e.t->cpu[exec_cpu].node, 0);
	struct ts_task *child = env_task(&e, 0, NULL, 0);
	int fork_cpu = ts_sched_balance_find_dst_cpu(e.s, top, child, 0, 0, TS_SD_BALANCE_FORK);
	assert_int_equal(e.t->cpu[fork_cpu].node, 1);
	env_destroy(&e);
}

/* The runnable load follows the queue: two nice-0 tasks on CPU 4 run 20 ms (each half of
 * it), then one sleeps. Until then runnable_load_avg and load_avg agree (every entity is
 * queued); after, they differ by the sleeper's load, to the rounding of the two sums
 * (each at most 1 per update). 20 ms later the sleeper's blocked load has decayed in
 * load_avg (y^20 ~ 0.65) and is still absent from the runnable load. Other kernels keep no
 * runnable load. */
static void test_runnable_load_avg_follows_the_queue(void **state)
{
	(void)state;
	struct env e;
	env_kernel(&e, "kunpeng920", "5.4");
	struct ts_task *a = busy(&e, 4, 0, NULL), *b = busy(&e, 4, 0, NULL);
	struct ts_rq *rq = ts_cpu_rq(e.s, 4);
	for (int ms = 0; ms < 20; ms++) {
		e.f.now += MS;
		fake_lock(&e.f, 4);
		ts_sched_tick(e.s, 4);
		ts_schedule(e.s, 4);
		fake_unlock(&e.f, 4);
	}
	assert_true(rq->cfs.runnable_load_avg + 2 >= rq->cfs.avg.load_avg &&
		    rq->cfs.runnable_load_avg <= rq->cfs.avg.load_avg + 2);
	struct ts_task *sleeper = rq->curr;
	assert_true(sleeper == a || sleeper == b);
	unsigned long sleeper_load = sleeper->se.avg.load_avg;
	sleep_curr(&e, 4);
	long diff = (long)rq->cfs.avg.load_avg - (long)rq->cfs.runnable_load_avg;
	if (diff < (long)sleeper_load - 2 || diff > (long)sleeper_load + 2)
		fail_msg("load_avg %lu - runnable_load_avg %lu = %ld, not the sleeper's %lu",
			 rq->cfs.avg.load_avg, rq->cfs.runnable_load_avg, diff, sleeper_load);
	assert_int_equal(ts_cpu_runnable_load(e.s, 4), rq->cfs.runnable_load_avg);
	assert_int_equal(rq->cfs.runnable_weight, 1024);
	/* 20 ms on: the sleeper's blocked load decays in load_avg only */
	unsigned long load_before = rq->cfs.avg.load_avg;
	for (int ms = 0; ms < 20; ms++) {
		e.f.now += MS;
		fake_lock(&e.f, 4);
		ts_sched_tick(e.s, 4);
		fake_unlock(&e.f, 4);
	}
	diff = (long)rq->cfs.avg.load_avg - (long)rq->cfs.runnable_load_avg;
	assert_true(diff > 0 && (unsigned long)diff < sleeper_load * 3 / 4);
	assert_true(rq->cfs.avg.load_avg < load_before);
	/* the last task sleeps: nothing queued, nothing runnable */
	sleep_curr(&e, 4);
	assert_int_equal(rq->cfs.runnable_weight, 0);
	assert_true(rq->cfs.runnable_load_avg <= 2);
	env_destroy(&e);

	env_kernel(&e, "kunpeng920", "5.5");
	busy(&e, 4, 0, NULL);
	rq = ts_cpu_rq(e.s, 4);
	assert_int_equal(rq->cfs.runnable_weight, 0);
	assert_int_equal(rq->cfs.runnable_load_avg, 0);
	assert_int_equal(ts_cpu_runnable_load(e.s, 4), 0);
	env_destroy(&e);
}

/* v5.4's calc_group_runnable(): a group entity's runnable weight is its shares scaled by
 * the share of its queue's load that is queued, max(runnable_load_avg, runnable_weight)
 * over max(load_avg, load.weight), within [MIN_SHARES, shares]. Two nice-0 tasks of group
 * "app" (shares 1024, all its load on CPU 4, so the entity's weight is 1024) run 20 ms on
 * CPU 4: everything is queued and the runnable weight is the weight. Then one sleeps and
 * the other runs 20 ms on: the group's queue has runnable weight 1024 and a load_avg with
 * the sleeper's decaying blocked load (y^20 ~ 0.65 of it), so the entity's runnable weight
 * is 1024 x 1024 / (the runner's load + that), about 1024 / 1.65 ~ 620, and the root
 * queue's runnable weight, the entity's alone, with it. Before, the core took it as 1024. */
static void test_v5_4_group_runnable(void **state)
{
	(void)state;
	struct env e;
	env_kernel(&e, "kunpeng920", "5.4");
	struct ts_task_group *tg = NULL;
	struct ts_error err = {0};
	assert_int_equal(ts_sched_group_create(e.s, NULL, "app", 1024, &tg, &err), 0);
	for (int i = 0; i < 2; i++) {
		struct ts_task *p = env_task(&e, 0, NULL, 4);
		assert_int_equal(ts_task_set_group(e.s, p, tg), 0);
		fake_run_on(e.s, &e.f, p, 4);
	}
	struct ts_rq *rq = ts_cpu_rq(e.s, 4);
	struct ts_cfs_rq *g = ts_tg_cfs_rq(tg, 4);
	struct ts_sched_entity *se = ts_tg_se(tg, 4);
	for (int ms = 0; ms < 40; ms++) {
		if (ms == 20) {
			assert_int_equal(se->load.weight, 1024);
			assert_int_equal(g->owner_runnable_weight, 1024);
			assert_int_equal(rq->cfs.runnable_weight, 1024);
			sleep_curr(&e, 4);
		}
		e.f.now += MS;
		fake_lock(&e.f, 4);
		ts_sched_tick(e.s, 4);
		if (ms < 20)
			ts_schedule(e.s, 4);
		fake_unlock(&e.f, 4);
	}
	unsigned long shares = se->load.weight;
	unsigned long load = g->avg.load_avg > g->load.weight ? g->avg.load_avg : g->load.weight;
	unsigned long runnable = g->runnable_load_avg > g->runnable_weight ? g->runnable_load_avg
									   : g->runnable_weight;
	assert_int_equal(shares, 1024);
	assert_int_equal(g->runnable_weight, 1024);
	assert_true(load > 1024 + 1024 / 2); /* the sleeper's blocked load */
	assert_int_equal(g->owner_runnable_weight, runnable * shares / load);
	assert_true(g->owner_runnable_weight > 1024 / 2 && g->owner_runnable_weight < 1024 * 3 / 4);
	assert_int_equal(rq->cfs.runnable_weight, g->owner_runnable_weight);
	print_message("    group queue: load_avg %lu, runnable_load_avg %lu; entity runnable "
		      "weight %lu of %lu\n",
		      g->avg.load_avg, g->runnable_load_avg, g->owner_runnable_weight, shares);
	env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v5_4_weighs_runnable_load_not_idle_cpus),
		cmocka_unit_test(test_v5_4_blocked_load_decides_between_close_groups),
		cmocka_unit_test(test_v5_4_exec_weighs_spare_capacity),
		cmocka_unit_test(test_runnable_load_avg_follows_the_queue),
		cmocka_unit_test(test_v5_4_group_runnable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
