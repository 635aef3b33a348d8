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
static void open_two_running(struct env *e, const struct ts_host_ops *ops)
{
	memset(stops, 0, sizeof(stops));
	env_open(e, preset("kunpeng920"), "", NULL, ops, ENV_MAX_TASKS);
	e->f.now = 1000 * MS;
	for (int cpu = 0; cpu < 2; cpu++)
		fake_run_on(e->s, &e->f, env_task(e, 0, NULL, cpu), cpu);
	e->f.now += MS;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_push_after_four_failures),
		cmocka_unit_test(test_pinned_not_pushed),
		cmocka_unit_test(test_no_stopper_no_push),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
