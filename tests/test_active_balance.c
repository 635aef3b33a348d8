/* Active balancing (balance.c): on Kunpeng 920 (clusters of 4 in a 32-CPU LLC), two tasks
 * running on CPUs 0 and 1 of cluster 0 while cluster 1 idles is an imbalance periodic
 * balancing cannot fix by pulling (what would move is running): CPU 4's cluster-level
 * balance fails, and on the failure that takes nr_balance_failed past cache_nice_tries + 2
 * = 3 (the 4th) it queues a push on CPU 0's stopper; the stop work then moves the task
 * CPU 0 was running to CPU 4. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched_env.h"
#include "toposched/sched.h"

#define MS 1000000ULL

static int stops[TS_MAX_CPUS]; /* stop_one_cpu() calls per CPU */

static void record_stop(void *h, int cpu)
{
	(void)h;
	stops[cpu]++;
}

/* The fake host with a stopper that only records its calls. */
static struct ts_host_ops stop_ops_of_fake(void)
{
	struct ts_host_ops ops = fake_ops;
	ops.stop_one_cpu = record_stop;
	return ops;
}

/* Kunpeng 920 with a task running on CPU 0 and one on CPU 1, cache cold; every domain is
 * due from the start. */
static void open_two_running_on(struct env *e, const struct ts_host_ops *ops,
				const struct ts_sched_config *cfg)
{
	memset(stops, 0, sizeof(stops));
	env_open(e, preset("kunpeng920"), "", cfg, ops, ENV_MAX_TASKS);
	e->f.now = 1000 * MS;
	for (int cpu = 0; cpu < 2; cpu++)
		fake_run_on(e->s, &e->f, env_task(e, 0, NULL, cpu), cpu);
	e->f.now += MS;
}

static void open_two_running(struct env *e, const struct ts_host_ops *ops)
{
	open_two_running_on(e, ops, NULL);
}

static struct ts_sched_domain *llc_of(struct env *e, int cpu)
{
	struct ts_sched_domain *sd = e->s->dom->cpu[cpu].sd_llc;
	assert_non_null(sd);
	assert_int_equal(sd->span_weight, 32);
	assert_int_equal(sd->cache_nice_tries, 1);
	return sd;
}

/* One periodic balance of CPU 4, a balance interval of the LLC level later. */
static void balance_cpu4(struct env *e)
{
	e->f.now += 100 * MS;
	ts_balance_tick(e->s, 4);
	assert_int_equal(e->f.lock_errors, 0);
	for (int c = 0; c < e->f.nr_cpus; c++)
		assert_int_equal(e->f.locked[c], 0);
}

static void test_push_after_four_failures(void **state)
{
	(void)state;
	struct env e;
	struct ts_host_ops ops = stop_ops_of_fake();
	open_two_running(&e, &ops);
	struct ts_sched_domain *llc = llc_of(&e, 4);
	for (unsigned i = 1; i <= 3; i++) {
		balance_cpu4(&e);
		assert_int_equal(llc->nr_balance_failed, i);
		assert_int_equal(stops[0] + stops[1], 0);
	}
	balance_cpu4(&e);	       /* 4 > cache_nice_tries + 2 */
	assert_int_equal(stops[0], 1); /* the first CPU with the most tasks */
	assert_int_equal(stops[1], 0);
	assert_true(e.s->rq[0].active_balance);
	assert_int_equal(e.s->rq[0].push_cpu, 4);
	balance_cpu4(&e); /* one push queued per CPU at a time */
	assert_int_equal(stops[0], 1);

	struct ts_task *p = &e.task[0];
	unsigned resched0 = e.f.resched[0], resched4 = e.f.resched[4];
	assert_ptr_equal(ts_active_load_balance_cpu_stop(e.s, 0), p);
	assert_int_equal(e.f.lock_errors, 0);
	assert_int_equal(p->cpu, 4);
	assert_null(e.s->rq[0].curr);
	assert_int_equal(e.s->rq[0].nr_running, 0);
	assert_int_equal(e.s->rq[4].nr_running, 1);
	assert_false(e.s->rq[0].active_balance);
	assert_true(e.f.resched[0] > resched0); /* CPU 0 picks again */
	assert_true(e.f.resched[4] > resched4); /* the pushed task preempts CPU 4's idle */
	assert_int_equal(ts_stat_read(&llc->stats.alb_pushed), 1);
	assert_int_equal(llc->nr_balance_failed, 0);
	/* The stop work runs once: nothing is queued any more. */
	assert_null(ts_active_load_balance_cpu_stop(e.s, 0));
	env_destroy(&e);
}

/* The push is queued only where the running task may go; a task pinned to its CPU stays
 * and the balance interval grows (out_one_pinned). */
static void test_pinned_not_pushed(void **state)
{
	(void)state;
	struct env e;
	struct ts_host_ops ops = stop_ops_of_fake();
	memset(stops, 0, sizeof(stops));
	env_open(&e, preset("kunpeng920"), "", NULL, &ops, ENV_MAX_TASKS);
	e.f.now = 1000 * MS;
	struct ts_cpumask *only = ts_cpumask_alloc(e.f.nr_cpus);
	assert_non_null(only);
	for (int cpu = 0; cpu < 2; cpu++) {
		ts_cpumask_zero(only);
		ts_cpumask_set(only, cpu);
		fake_run_on(e.s, &e.f, env_task(&e, 0, only, cpu), cpu);
	}
	e.f.now += MS;
	struct ts_sched_domain *llc = llc_of(&e, 4);
	for (int i = 0; i < 6; i++)
		balance_cpu4(&e);
	assert_int_equal(stops[0] + stops[1], 0);
	assert_false(e.s->rq[0].active_balance);
	assert_int_equal(e.task[0].cpu, 0);
	assert_true(llc->balance_interval > llc->min_interval);
	ts_cpumask_free(only);
	env_destroy(&e);
}

/* Without the host's stop_one_cpu (the runtime) a running task is never pushed. */
static void test_no_stopper_no_push(void **state)
{
	(void)state;
	struct env e;
	open_two_running(&e, NULL);
	for (int i = 0; i < 6; i++)
		balance_cpu4(&e);
	assert_false(e.s->rq[0].active_balance);
	assert_int_equal(e.task[0].cpu, 0);
	assert_int_equal(e.task[1].cpu, 1);
	env_destroy(&e);
}

/* Two nodes of two CPUs, node 0 overloaded: CPUs 0 and 1 each run a task with five queued
 * that may run only there (their new tasks' utilisation, half the spare capacity each,
 * sums past 80 % of the node's); node 1 idles. CPU 2's NUMA-level balance finds
 * spare capacity next to an overloaded node (migrate_util), tries CPU 0, whose queued task
 * may not leave and whose running one cannot be pulled: a failure every time. From v5.12
 * (e9b9734b7465) only an even spread of tasks (migrate_task) earns a push, so nothing is
 * pushed; before, the failure past cache_nice_tries + 2 (the 5th: 2 tries at NUMA levels)
 * pushes CPU 0's running task to CPU 2, the pushing
 * balancer doubles its interval, and (before v5.13, 23fb06d9602b) sets nr_balance_failed
 * to cache_nice_tries + 1 so that its next balances may move cache-hot tasks. */
static void push_for_spare_capacity(const char *version, bool pushes)
{
	struct env e;
	struct ts_host_ops ops = stop_ops_of_fake();
	memset(stops, 0, sizeof(stops));
	struct ts_sched_config cfg = {.kernel = kernel(version)};
	struct ts_topology *t = NULL;
	struct ts_error err = {0};
	assert_int_equal(ts_topology_load("synthetic:pack:2 numa:1 l3:1 core:2 pu:1", &t, &err), 0);
	env_open(&e, t, "", &cfg, &ops, ENV_MAX_TASKS);
	e.f.now = 1000 * MS;
	struct ts_cpumask *only0 = ts_cpumask_alloc(e.f.nr_cpus);
	assert_non_null(only0);
	ts_cpumask_set(only0, 0);
	struct ts_cpumask *only1 = ts_cpumask_alloc(e.f.nr_cpus);
	assert_non_null(only1);
	ts_cpumask_set(only1, 1);
	/* the running tasks first, then the pinned ones queued behind them (no schedule: the
	 * running task stays what it is, whatever the era's pick) */
	for (int cpu = 0; cpu < 2; cpu++) {
		fake_run_on(e.s, &e.f, env_task(&e, 0, NULL, cpu), cpu);
		for (int k = 0; k < 5; k++) {
			struct ts_task *p = env_task(&e, 0, cpu ? only1 : only0, cpu);
			fake_lock(&e.f, cpu);
			ts_activate_task(e.s, cpu, p, 0);
			fake_unlock(&e.f, cpu);
		}
	}
	struct ts_sched_domain *numa = NULL, *sd;
	ts_for_each_domain(e.s->dom, 2, sd)
	{
		if (sd->flags & TS_SD_NUMA)
			numa = sd;
	}
	assert_non_null(numa);
	unsigned int pushed_at = 0;
	for (unsigned int i = 1; i <= 6 && !pushed_at; i++) {
		/* 100 ms of ticks on the busy CPUs, their running tasks kept (the core's
		 * resched requests not acted on), so that node 0's utilisation builds up */
		for (int ms = 0; ms < 100; ms++) {
			e.f.now += MS;
			for (int cpu = 0; cpu < 2; cpu++) {
				fake_lock(&e.f, cpu);
				ts_sched_tick(e.s, cpu);
				fake_unlock(&e.f, cpu);
			}
		}
		ts_balance_tick(e.s, 2);
		assert_int_equal(e.f.lock_errors, 0);
		if (stops[0])
			pushed_at = i;
	}
	print_message("v%s: pushed at balance %u, nr_balance_failed %u, interval %u (min %u)\n",
		      version, pushed_at, numa->nr_balance_failed, numa->balance_interval,
		      numa->min_interval);
	if (!pushes) {
		assert_int_equal(pushed_at, 0);
		assert_int_equal(numa->balance_interval, numa->min_interval);
	} else {
		assert_int_equal(pushed_at, numa->cache_nice_tries + 3); /* 2 at NUMA levels */
		assert_true(e.s->rq[0].active_balance);
		assert_int_equal(e.s->rq[0].push_cpu, 2);
		assert_int_equal(numa->balance_interval, 2 * numa->min_interval);
		assert_int_equal(numa->nr_balance_failed, numa->cache_nice_tries + 1);
	}
	ts_cpumask_free(only0);
	ts_cpumask_free(only1);
	env_destroy(&e);
}

static void test_push_for_spare_capacity_by_kernel(void **state)
{
	(void)state;
	push_for_spare_capacity("6.12", false);
	push_for_spare_capacity("5.12", false);
	push_for_spare_capacity("5.11", true);
	push_for_spare_capacity("5.6", true);
}

/* The migrate_task push on v5.12, before 23fb06d9602b (v5.13): queueing it sets the
 * level's nr_balance_failed to cache_nice_tries + 1 (2 here, not the 4 failures counted),
 * so the next balances may move cache-hot tasks; the interval is reset (an even spread of
 * tasks is the v5.12 case that pushes, as from then on). v5.12 has no CLS level
 * (778c558f49a2, v5.16), so Kunpeng's LLC would have single CPUs for groups, which no
 * single running task unbalances; the same imbalance between the LLC's groups is two tasks
 * running on the two SMT siblings of Broadwell's core 0 (CPUs 0 and 40) while core 1 idles,
 * found by CPU 1's MC level (prefer_sibling: 2 > 0 + 1 tasks, half the difference, 1, to
 * move; nothing movable). */
static void test_push_forces_hot_moves_before_v5_13(void **state)
{
	(void)state;
	struct env e;
	struct ts_host_ops ops = stop_ops_of_fake();
	struct ts_sched_config cfg = {.kernel = kernel("5.12")};
	memset(stops, 0, sizeof(stops));
	env_open(&e, preset("broadwell-2s"), "", &cfg, &ops, ENV_MAX_TASKS);
	e.f.now = 1000 * MS;
	fake_run_on(e.s, &e.f, env_task(&e, 0, NULL, 0), 0);
	fake_run_on(e.s, &e.f, env_task(&e, 0, NULL, 40), 40);
	e.f.now += MS;
	struct ts_sched_domain *llc = e.s->dom->cpu[1].sd_llc;
	assert_int_equal(llc->span_weight, 40);
	assert_int_equal(llc->cache_nice_tries, 1);
	for (int i = 0; i < 4; i++) {
		e.f.now += 100 * MS;
		ts_balance_tick(e.s, 1);
		assert_int_equal(e.f.lock_errors, 0);
	}
	assert_int_equal(stops[0], 1);
	assert_int_equal(e.s->rq[0].push_cpu, 1);
	assert_int_equal(llc->nr_balance_failed, llc->cache_nice_tries + 1);
	assert_int_equal(llc->balance_interval, llc->min_interval);
	env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_after_four_failures),
		cmocka_unit_test(test_pinned_not_pushed),
		cmocka_unit_test(test_no_stopper_no_push),
		cmocka_unit_test(test_push_for_spare_capacity_by_kernel),
		cmocka_unit_test(test_push_forces_hot_moves_before_v5_13),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
