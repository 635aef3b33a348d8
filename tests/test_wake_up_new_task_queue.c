/* ts_wake_up_new_task_or_queue() and ts_wake_up_new_task_queued(): wake_up_new_task() for a
 * host that lets the chosen CPU activate the new task itself, under ttwu_queue_cond()'s
 * rules (another LLC, or an idle CPU of the forking CPU's LLC). By hand, on two CPUs:
 *
 * - the choice is fork balancing's, as ts_wake_up_new_task()'s: a parent running on CPU 0
 *   and CPU 1 idle send the child to CPU 1 (sched_balance_find_dst_group(): CPU 0 has no
 *   idle CPU, CPU 1 has one);
 * - queued there, the child is counted in CPU 1's ttwu_pending only: CPU 1 runs nothing
 *   and is no longer idle, so a second child stays on the parent's CPU (both groups have
 *   spare capacity and no idle CPU: the local group is kept);
 * - once CPU 1 activates it, the child's PELT, EEVDF and run-queue state is exactly what
 *   ts_wake_up_new_task() gives (a twin world), and the forking CPU is its recent_used_cpu;
 * - a busy CPU of the same LLC is not queued on (activated by the forking CPU, as the
 *   kernel's wake_up_new_task()), a busy CPU of another LLC is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sched_env.h"

#define ONE_LLC	 "synthetic:pack:1 l3:1 core:2 pu:1"
#define TWO_LLCS "synthetic:pack:1 l3:2 core:1 pu:1"

static unsigned pending(struct env *e, int cpu)
{
	return atomic_load_explicit(&ts_cpu_rq(e->s, cpu)->ro.ttwu_pending, memory_order_relaxed);
}

static void assert_clean(struct env *e)
{
	assert_int_equal(e->f.lock_errors, 0);
	for (int c = 0; c < e->f.nr_cpus; c++)
		assert_int_equal(e->f.locked[c], 0);
}

/* Queued on the idle CPU 1, then activated there: the same state as the direct path. */
static void test_queued_on_an_idle_cpu_then_activated_there(void **state)
{
	(void)state;
	struct env a, b;
	env_start(&a, load_topology(ONE_LLC), NULL, NULL);
	env_start(&b, load_topology(ONE_LLC), NULL, NULL);
	struct ts_task *pa = env_busy(&a, 0), *pb = env_busy(&b, 0);
	struct ts_task *ca = env_task(&a, 0, NULL, 0), *cb = env_task(&b, 0, NULL, 0);

	struct ts_placement pl;
	ts_wake_up_new_task_or_queue(&pl, a.s, ca, 0, pa);
	assert_int_equal(pl.cpu, 1);
	assert_true(pl.ttwu_queued);
	assert_int_equal(pending(&a, 1), 1);
	assert_int_equal(ts_rq_nr_running(a.s, 1), 0);
	assert_false(ts_idle_cpu(a.s, 1)); /* ttwu_pending: not idle to other choices */
	assert_false(ca->se.on_rq);
	assert_int_equal(ca->recent_used_cpu, 0);

	/* a.f.now is b.f.now: the twin is activated at the same virtual time */
	assert_true(ts_wake_up_new_task_queued(a.s, ca, 1)); /* the idle CPU reschedules */
	struct ts_placement direct = ts_wake_up_new_task(b.s, cb, 0, pb);
	assert_int_equal(direct.cpu, 1);
	assert_false(direct.ttwu_queued);

	assert_int_equal(pending(&a, 1), 0);
	assert_true(ca->se.on_rq);
	assert_int_equal(ca->cpu, 1);
	assert_int_equal(ca->recent_used_cpu, 0); /* the forking CPU */
	assert_int_equal(ca->nr_migrations, cb->nr_migrations);
	assert_int_equal(ca->se.avg.util_avg, cb->se.avg.util_avg);
	assert_int_equal(ca->se.avg.load_avg, cb->se.avg.load_avg);
	assert_int_equal(ca->se.avg.last_update_time, cb->se.avg.last_update_time);
	assert_int_equal(ca->se.vruntime, cb->se.vruntime);
	assert_int_equal(ca->se.deadline, cb->se.deadline);
	assert_int_equal(ts_rq_nr_running(a.s, 1), 1);
	assert_int_equal(ts_rq_nr_running(b.s, 1), 1);
	assert_int_equal(ts_cpu_util(a.s, 1), ts_cpu_util(b.s, 1));
	assert_int_equal(a.f.resched[1], b.f.resched[1]);
	assert_clean(&a);
	assert_clean(&b);
	env_destroy(&a);
	env_destroy(&b);
}

/* While the first child is pending on CPU 1, a second one stays on the parent's CPU; had
 * CPU 1 looked idle (no ttwu_pending), it would have gone there too. */
static void test_a_pending_cpu_does_not_draw_the_next_child(void **state)
{
	(void)state;
	struct env e;
	env_start(&e, load_topology(ONE_LLC), NULL, NULL);
	struct ts_task *parent = env_busy(&e, 0);
	struct ts_task *first = env_task(&e, 0, NULL, 0), *second = env_task(&e, 0, NULL, 0);
	struct ts_placement pl;
	ts_wake_up_new_task_or_queue(&pl, e.s, first, 0, parent);
	assert_int_equal(pl.cpu, 1);
	assert_true(pl.ttwu_queued);

	ts_wake_up_new_task_or_queue(&pl, e.s, second, 0, parent);
	assert_int_equal(pl.cpu, 0);
	assert_false(pl.ttwu_queued); /* the forking CPU itself: activated here */
	assert_true(second->se.on_rq);
	assert_int_equal(ts_rq_nr_running(e.s, 0), 2);

	ts_wake_up_new_task_queued(e.s, first, 1);
	assert_int_equal(pending(&e, 1), 0);
	assert_clean(&e);
	env_destroy(&e);
}

/* The parent and two more tasks on CPU 0 against one task on CPU 1, for 40 ms of ticks:
 * CPU 0 is overloaded (runnable ~3 x 1024 > 1024 x 117 %), CPU 1 is not (one task), so the
 * child goes to CPU 1, which is busy. One LLC: activated by the forking CPU; two LLCs:
 * queued all the same (ttwu_queue_cond(): no shared cache). */
static void busy_target(const char *topology, bool want_queued)
{
	struct env e;
	env_start(&e, load_topology(topology), NULL, NULL);
	struct ts_task *parent = env_busy(&e, 0);
	env_busy(&e, 0);
	env_busy(&e, 0);
	env_busy(&e, 1);
	for (int ms = 0; ms < 40; ms++) {
		e.f.now += 1000000;
		for (int c = 0; c < 2; c++) {
			fake_lock(&e.f, c);
			ts_sched_tick(e.s, c);
			fake_unlock(&e.f, c);
		}
	}
	assert_ptr_equal(ts_cpu_rq(e.s, 0)->curr, parent);
	struct ts_task *child = env_task(&e, 0, NULL, 0);
	struct ts_placement pl;
	ts_wake_up_new_task_or_queue(&pl, e.s, child, 0, parent);
	assert_int_equal(pl.cpu, 1);
	assert_int_equal(pl.ttwu_queued, want_queued);
	assert_int_equal(pending(&e, 1), want_queued ? 1 : 0);
	assert_int_equal(ts_rq_nr_running(e.s, 1), want_queued ? 1 : 2);
	assert_int_equal(child->se.on_rq, !want_queued);
	if (want_queued) {
		ts_wake_up_new_task_queued(e.s, child, 1);
		assert_int_equal(ts_rq_nr_running(e.s, 1), 2);
		assert_int_equal(pending(&e, 1), 0);
	}
	assert_clean(&e);
	env_destroy(&e);
}

static void test_busy_cpu_of_the_llc_activated_by_the_forking_cpu(void **state)
{
	(void)state;
	busy_target(ONE_LLC, false);
}

static void test_busy_cpu_of_another_llc_queued(void **state)
{
	(void)state;
	busy_target(TWO_LLCS, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queued_on_an_idle_cpu_then_activated_there),
		cmocka_unit_test(test_a_pending_cpu_does_not_draw_the_next_child),
		cmocka_unit_test(test_busy_cpu_of_the_llc_activated_by_the_forking_cpu),
		cmocka_unit_test(test_busy_cpu_of_another_llc_queued),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
