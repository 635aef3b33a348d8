/* Which CPU executes a wake-up's activation: the core's ttwu_queue_cond() (ttwu.h), the one
 * rule the simulator's cache-line model (engine: the executing CPU of the accesses under
 * the target's lock) and the runtime's wake path (ts_placement.ttwu_queued, counted by
 * rt_do_ttwu()) both use. On a 2-LLC grid (CPUs 0-1 and 2-3, one LLC and node each) over
 * the fake host: the kernel's cases in order (not allowed, another LLC, the waker's own
 * CPU, an idle target, a busy one), and ts_try_to_wake_up() reporting the same decision
 * for a real wake-up; ts_try_to_wake_up_or_list() handing an idle target's activation to
 * the host and keeping a busy one's; the window between the choice and the queue, with
 * the waker's set_task_cpu() in it. test_rt_ttwu.c runs the cases through the runtime,
 * test_sim_groups.c's whole runs through the simulator's line model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "numa_env.h"
#include "toposched/ttwu.h"

static void open_env(struct env *e)
{
	env_grid(e, 2, 2, "10 20; 20 10", "");
}

static struct ts_cpumask *only(struct env *e, int cpu)
{
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	assert_non_null(m);
	ts_cpumask_set(m, cpu);
	return m;
}

/* p blocks on its CPU (deactivated, the CPU picks the next task or goes idle). */
static void block(struct env *e, struct ts_task *p)
{
	int cpu = p->cpu;
	fake_lock(&e->f, cpu);
	ts_deactivate_curr(e->s, cpu, TS_TASK_SLEEPING);
	ts_schedule(e->s, cpu);
	fake_unlock(&e->f, cpu);
}

static void test_cond_cases(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_task p;
	struct ts_error err = {0};
	assert_int_equal(ts_task_init(e.s, &p, 0, NULL, 0, &err), 0);
	/* another LLC: the target's wakelist, busy or idle */
	assert_true(ts_ttwu_queue_cond(e.s, &p, 0, 2));
	assert_int_equal(ts_ttwu_activate_cpu(e.s, &p, 0, 2), 2);
	env_spawn(&e, 2, NULL, NULL);
	assert_true(ts_ttwu_queue_cond(e.s, &p, 0, 2));
	/* the waker's own CPU: the waker, even when idle */
	assert_false(ts_ttwu_queue_cond(e.s, &p, 0, 0));
	assert_int_equal(ts_ttwu_activate_cpu(e.s, &p, 0, 0), 0);
	/* same LLC, idle target: offloaded to it */
	assert_true(ts_ttwu_queue_cond(e.s, &p, 0, 1));
	assert_int_equal(ts_ttwu_activate_cpu(e.s, &p, 0, 1), 1);
	/* same LLC, busy target: the waker activates on the remote queue itself */
	env_spawn(&e, 1, NULL, NULL);
	assert_false(ts_ttwu_queue_cond(e.s, &p, 0, 1));
	assert_int_equal(ts_ttwu_activate_cpu(e.s, &p, 0, 1), 0);
	/* symmetric in the LLC relation */
	assert_false(ts_ttwu_queue_cond(e.s, &p, 3, 2));
	assert_true(ts_ttwu_queue_cond(e.s, &p, 2, 0));
	/* a CPU p may not use: never the wakelist */
	struct ts_task q;
	struct ts_cpumask *m = only(&e, 0);
	assert_int_equal(ts_task_init(e.s, &q, 0, m, 0, &err), 0);
	assert_false(ts_ttwu_queue_cond(e.s, &q, 0, 2));
	assert_int_equal(ts_ttwu_activate_cpu(e.s, &q, 0, 2), 0);
	ts_cpumask_free(m);
	ts_task_destroy(&q);
	ts_task_destroy(&p);
	env_destroy(&e);
}

/* ts_try_to_wake_up() decides it between select and the target's lock: a task that may
 * run only on CPU 2, woken from CPU 0, goes to the other LLC's wakelist; one that may run
 * only on CPU 1, busy, is activated by the waker; one woken onto CPU 0 by CPU 0 too. */
static void test_try_to_wake_up_reports_it(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_cpumask *m2 = only(&e, 2), *m1 = only(&e, 1), *m0 = only(&e, 0);
	struct ts_task *far = env_spawn(&e, 2, m2, NULL);
	struct ts_task *near = env_spawn(&e, 1, m1, NULL);
	struct ts_task *here = env_spawn(&e, 0, m0, NULL);
	block(&e, far);
	block(&e, here);
	struct ts_placement pl = ts_try_to_wake_up(e.s, far, 0, NULL, 0);
	assert_int_equal(pl.cpu, 2);
	assert_true(pl.ttwu_queued);
	pl = ts_try_to_wake_up(e.s, here, 0, NULL, 0);
	assert_int_equal(pl.cpu, 0);
	assert_false(pl.ttwu_queued);
	/* near blocks while another task runs on CPU 1 */
	env_spawn(&e, 1, m1, NULL);
	block(&e, near);
	assert_true(ts_rq_nr_running(e.s, 1) > 0);
	pl = ts_try_to_wake_up(e.s, near, 0, NULL, 0);
	assert_int_equal(pl.cpu, 1);
	assert_false(pl.ttwu_queued);
	ts_cpumask_free(m2);
	ts_cpumask_free(m1);
	ts_cpumask_free(m0);
	env_destroy(&e);
}

/* With a host that models the wakelist (ops->wakelist_ipi, the simulator), a wake-up that
 * ttwu_queue_cond() sends to an idle CPU of the waker's LLC stays off that CPU's run queue
 * until the CPU takes the IPI (kernel/sched/core.c: __ttwu_queue_wakelist() queues it,
 * sched_ttwu_pending() on the target activates it): no balancer can pull it meanwhile. By
 * hand: CPU 0 runs the waker, p blocked on CPU 1, both LLC 0; p's wake-up targets its idle
 * prev CPU 1, queued. Until ts_sched_ttwu_pending(1): CPU 1 has nr_running 0 and
 * ttwu_pending 1 (not idle for the wake-up paths), p sleeps on CPU 1's wake list, one IPI
 * went to CPU 1. After: p is runnable on CPU 1, the list empty. A host without the op (the
 * runtime, the old engine) gets p activated at once. */
static int ipis[4];

static void count_ipi(void *host, int cpu)
{
	(void)host;
	ipis[cpu]++;
}

static void test_wakelist_defers_activation(void **state)
{
	(void)state;
	for (int with_ipi = 0; with_ipi < 2; with_ipi++) {
		struct env e;
		open_env(&e);
		memset(ipis, 0, sizeof(ipis));
		if (with_ipi)
			e.s->ops.wakelist_ipi = count_ipi;
		env_spawn(&e, 0, NULL, NULL);
		struct ts_task *p = env_spawn(&e, 1, NULL, NULL);
		block(&e, p);
		struct ts_placement pl = ts_try_to_wake_up(e.s, p, 0, NULL, TS_WF_SYNC);
		assert_int_equal(pl.cpu, 1);
		assert_true(pl.ttwu_queued);
		const struct ts_rq *rq = ts_cpu_rq(e.s, 1);
		if (with_ipi) {
			assert_int_equal(ipis[1], 1);
			assert_int_equal(ts_rq_nr_running(e.s, 1), 0);
			assert_int_equal(atomic_load(&rq->ro.ttwu_pending), 1);
			assert_false(ts_idle_cpu(e.s, 1));
			assert_ptr_equal(rq->wake_list, p);
			assert_int_equal(p->state, TS_TASK_SLEEPING);
			fake_lock(&e.f, 1);
			ts_sched_ttwu_pending(e.s, 1);
			fake_unlock(&e.f, 1);
		}
		assert_int_equal(ipis[1], with_ipi);
		assert_int_equal(ts_rq_nr_running(e.s, 1), 1);
		assert_int_equal(atomic_load(&rq->ro.ttwu_pending), 0);
		assert_null(rq->wake_list);
		assert_int_equal(p->state, TS_TASK_RUNNABLE);
		assert_int_equal(p->cpu, 1);
		env_destroy(&e);
	}
}

/* ts_try_to_wake_up_or_list() (the runtime's wake path): where ttwu_queue_cond() holds and
 * the target runs nothing, the activation is left to the target (true): p sleeps, off
 * every queue and wake list, counted woken and in the target's ttwu_pending (so the target
 * no longer looks idle) until ts_ttwu_listed_activate() on it; a busy target, the waker's
 * own CPU and a busy CPU of another LLC are activated at once by the waker (false). */
static void test_listed_wakeups(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_cpumask *m1 = only(&e, 1), *m2 = only(&e, 2), *m0 = only(&e, 0);
	/* each blocks as its CPU's current task; then the waker runs on CPU 0 */
	struct ts_task *near = env_spawn(&e, 1, m1, NULL);
	struct ts_task *far = env_spawn(&e, 2, m2, NULL);
	struct ts_task *here = env_spawn(&e, 0, m0, NULL);
	block(&e, near);
	block(&e, far);
	block(&e, here);
	env_spawn(&e, 0, NULL, NULL);
	const struct ts_rq *rq1 = ts_cpu_rq(e.s, 1);
	struct ts_placement pl;
	/* an idle target of the waker's LLC */
	assert_true(ts_try_to_wake_up_or_list(&pl, e.s, near, 0, NULL, TS_WF_SYNC));
	assert_int_equal(pl.cpu, 1);
	assert_true(pl.ttwu_queued);
	assert_int_equal(near->state, TS_TASK_SLEEPING);
	assert_int_equal(ts_rq_nr_running(e.s, 1), 0);
	assert_int_equal(atomic_load(&rq1->ro.ttwu_pending), 1);
	assert_false(ts_idle_cpu(e.s, 1));
	assert_null(rq1->wake_list);
	assert_int_equal(near->nr_wakeups, 1);
	fake_lock(&e.f, 0); /* another CPU's lock held: the activation takes its own */
	ts_ttwu_listed_activate(e.s, near, 1);
	fake_unlock(&e.f, 0);
	assert_int_equal(near->state, TS_TASK_RUNNABLE);
	assert_int_equal(near->cpu, 1);
	assert_int_equal(ts_rq_nr_running(e.s, 1), 1);
	assert_int_equal(atomic_load(&rq1->ro.ttwu_pending), 0);
	/* an idle target of another LLC */
	assert_true(ts_try_to_wake_up_or_list(&pl, e.s, far, 0, NULL, 0));
	assert_int_equal(pl.cpu, 2);
	ts_ttwu_listed_activate(e.s, far, 2);
	assert_int_equal(ts_rq_nr_running(e.s, 2), 1);
	/* the waker's own CPU */
	assert_false(ts_try_to_wake_up_or_list(&pl, e.s, here, 0, NULL, 0));
	assert_false(pl.ttwu_queued);
	assert_int_equal(here->state, TS_TASK_RUNNABLE);
	assert_int_equal(ts_rq_nr_running(e.s, 0), 2);
	/* busy targets, of this LLC and of the other: near and far run, block, and another
	 * task runs on their CPUs */
	for (int cpu = 1; cpu <= 2; cpu++) {
		fake_lock(&e.f, cpu);
		ts_schedule(e.s, cpu);
		fake_unlock(&e.f, cpu);
	}
	assert_ptr_equal(ts_cpu_rq(e.s, 1)->curr, near);
	assert_ptr_equal(ts_cpu_rq(e.s, 2)->curr, far);
	block(&e, near);
	env_spawn(&e, 1, m1, NULL);
	assert_false(ts_try_to_wake_up_or_list(&pl, e.s, near, 0, NULL, 0));
	assert_false(pl.ttwu_queued);
	assert_int_equal(near->state, TS_TASK_RUNNABLE);
	block(&e, far);
	env_spawn(&e, 2, m2, NULL);
	assert_int_equal(ts_rq_nr_running(e.s, 2), 1);
	assert_false(ts_try_to_wake_up_or_list(&pl, e.s, far, 0, NULL, 0));
	assert_true(pl.ttwu_queued); /* the kernel's rule, which the waker carried out */
	assert_int_equal(ts_rq_nr_running(e.s, 2), 2);
	assert_int_equal(atomic_load(&ts_cpu_rq(e.s, 2)->ro.ttwu_pending), 0);
	ts_cpumask_free(m1);
	ts_cpumask_free(m2);
	ts_cpumask_free(m0);
	env_destroy(&e);
}

/* try_to_wake_up() in its three steps (ts_ttwu_select(), ts_ttwu_set_task_cpu(),
 * ts_ttwu_queue()): on one LLC of 4 CPUs, p blocked on CPU 1, CPUs 0 (the waker) and 1
 * busy, p's wake-up chooses idle CPU 2 or 3 (the LLC scan). The waker's set_task_cpu() moves p
 * there (WF_MIGRATED) while p stays on no queue and the chosen CPU still looks idle to other wakers
 * (nothing marks it before ttwu_queue()); the queue activates p there, a migrated wake-up counted
 * once in the task and the target's statistics. */
static void test_window_before_queue(void **state)
{
	(void)state;
	struct env e;
	env_grid(&e, 1, 4, "10", "NO_SIS_UTIL"); /* a fresh LLC's SIS_UTIL budget is 0 */
	struct ts_task *p = env_spawn(&e, 1, NULL, NULL);
	block(&e, p);
	env_spawn(&e, 1, NULL, NULL);
	struct ts_task *waker = env_spawn(&e, 0, NULL, NULL);
	struct ts_placement pl;
	int flags = ts_ttwu_select(&pl, e.s, p, 0, waker, 0);
	assert_true(pl.cpu == 2 || pl.cpu == 3);
	assert_int_equal(p->cpu, 1);
	assert_false(flags & TS_WF_MIGRATED);
	flags = ts_ttwu_set_task_cpu(e.s, p, pl.cpu, flags);
	assert_true(flags & TS_WF_MIGRATED);
	assert_int_equal(p->cpu, pl.cpu);
	assert_int_equal(p->state, TS_TASK_SLEEPING);
	assert_true(ts_idle_cpu(e.s, pl.cpu));
	assert_int_equal(ts_rq_nr_running(e.s, pl.cpu), 0);
	/* a second call moves nothing: p is on that CPU already */
	assert_int_equal(ts_ttwu_set_task_cpu(e.s, p, pl.cpu, 0), 0);
	uint64_t arrived = ts_stat_read(&ts_cpu_rq(e.s, pl.cpu)->stats.migrations);
	ts_ttwu_queue(&pl, e.s, p, 0, waker, flags);
	/* asked again at the queue: an idle target of the waker's LLC (the fake host has no
	 * wakelist IPI, so the waker carried the activation out) */
	assert_true(pl.ttwu_queued);
	assert_int_equal(p->state, TS_TASK_RUNNABLE);
	assert_int_equal(ts_rq_nr_running(e.s, pl.cpu), 1);
	assert_false(ts_idle_cpu(e.s, pl.cpu));
	assert_int_equal(p->nr_wakeups_migrate, 1);
	assert_int_equal(p->nr_wakeups, 1);
	assert_int_equal(ts_stat_read(&ts_cpu_rq(e.s, pl.cpu)->stats.migrations), arrived + 1);
	env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cond_cases),
		cmocka_unit_test(test_try_to_wake_up_reports_it),
		cmocka_unit_test(test_wakelist_defers_activation),
		cmocka_unit_test(test_listed_wakeups),
		cmocka_unit_test(test_window_before_queue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
