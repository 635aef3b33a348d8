/* ts_wake_up_new_task_on(): wake_up_new_task() on a CPU the host chose. The new task gets
 * exactly the PELT start, EEVDF placement and run-queue state of ts_wake_up_new_task()
 * landing on the same CPU (two identical fake-host worlds, the normal path steered there
 * by affinity), post_init_entity_util_avg() is computed from the cfs_rq the task joins
 * (its group's, not the root's, checked against values computed by hand), the task moves
 * to the CPU without counting a migration, the rq lock is taken and released by the call,
 * and an idle target is asked to reschedule. Virtual time only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sched_env.h"

#define MS 1000000ULL

struct world {
	struct env env;
	struct ts_task *busy, *p;
	struct ts_task_group *g; /* NULL: the tasks are root tasks */
};

/* Two CPUs of one package; a CPU-bound task (in group g of `shares` when shares != 0)
 * has run busy_ms on CPU 1, so its queues there have a history. */
static void world_init(struct world *w, unsigned long shares, int busy_ms)
{
	memset(w, 0, sizeof(*w));
	struct env *e = &w->env;
	env_open(e, load_topology("synthetic:pack:1 core:2 pu:1"), NULL, NULL, NULL, 2);
	struct ts_error err = {0};
	if (shares && ts_sched_group_create(e->s, NULL, "g", shares, &w->g, &err))
		fail_msg("group: %s", err.msg);
	w->busy = env_task(e, 0, NULL, 1);
	if (w->g)
		assert_int_equal(ts_task_set_group(e->s, w->busy, w->g), 0);
	fake_run_on(e->s, &e->f, w->busy, 1);
	for (int i = 0; i < busy_ms; i++) {
		e->f.now += 1 * MS;
		fake_lock(&e->f, 1);
		ts_sched_tick(e->s, 1);
		fake_unlock(&e->f, 1);
	}
	/* Every queue of CPU 1 at `now`: the calls below then have nothing left to age, so
	 * the values read here are the ones post_init_entity_util_avg() sees. */
	fake_lock(&e->f, 1);
	ts_update_rq_load(e->s, ts_cpu_rq(e->s, 1), e->f.now);
	fake_unlock(&e->f, 1);
}

/* The new task p, initialised on init_cpu (allowed: only CPU 1 when pin1), in the group. */
static void new_task(struct world *w, int init_cpu, bool pin1)
{
	struct env *e = &w->env;
	struct ts_cpumask *m = NULL;
	if (pin1) {
		m = ts_cpumask_alloc(e->t->nr_cpus);
		assert_non_null(m);
		ts_cpumask_set(m, 1);
	}
	w->p = env_task(e, 0, m, init_cpu);
	ts_cpumask_free(m);
	if (w->g)
		assert_int_equal(ts_task_set_group(e->s, w->p, w->g), 0);
}

static void world_free(struct world *w)
{
	struct env *e = &w->env;
	assert_int_equal(e->f.lock_errors, 0);
	for (int c = 0; c < e->f.nr_cpus; c++)
		assert_int_equal(e->f.locked[c], 0);
	env_destroy(e);
}

static void assert_avg_equal(const struct ts_sched_avg *a, const struct ts_sched_avg *b)
{
	assert_int_equal(a->last_update_time, b->last_update_time);
	assert_int_equal(a->load_sum, b->load_sum);
	assert_int_equal(a->runnable_sum, b->runnable_sum);
	assert_int_equal(a->util_sum, b->util_sum);
	assert_int_equal(a->period_contrib, b->period_contrib);
	assert_int_equal(a->load_avg, b->load_avg);
	assert_int_equal(a->runnable_avg, b->runnable_avg);
	assert_int_equal(a->util_avg, b->util_avg);
}

/* post_init_entity_util_avg() by hand from the cfs_rq values before the wake-up. */
static unsigned long expected_util(unsigned long capacity, unsigned long cfs_util,
				   unsigned long cfs_load, unsigned long weight)
{
	long cap = ((long)capacity - (long)cfs_util) / 2;
	if (cap <= 0)
		return 0; /* the task keeps its initial util_avg, 0 */
	if (!cfs_util)
		return (unsigned long)cap;
	unsigned long u = cfs_util * weight / (cfs_load + 1);
	return u > (unsigned long)cap ? (unsigned long)cap : u;
}

/* The normal path steered onto CPU 1 by affinity against _on(1) with the same task: every
 * PELT, EEVDF and run-queue field the wake-up writes is the same. */
static void same_as_normal_path(unsigned long shares)
{
	struct world a, b;
	world_init(&a, shares, 12);
	world_init(&b, shares, 12);
	new_task(&a, 1, true);
	new_task(&b, 1, true);

	struct ts_placement pl = ts_wake_up_new_task(a.env.s, a.p, 0, NULL);
	assert_int_equal(pl.cpu, 1);
	ts_wake_up_new_task_on(b.env.s, b.p, 1);

	assert_int_equal(a.p->state, TS_TASK_RUNNABLE);
	assert_int_equal(b.p->state, TS_TASK_RUNNABLE);
	assert_int_equal(a.p->cpu, b.p->cpu);
	assert_avg_equal(&a.p->se.avg, &b.p->se.avg);
	assert_int_equal(a.p->se.vruntime, b.p->se.vruntime);
	assert_int_equal(a.p->se.deadline, b.p->se.deadline);
	assert_int_equal(a.p->se.vlag, b.p->se.vlag);
	/* the queues p joined, at every level */
	for (const struct ts_sched_entity *x = &a.p->se, *y = &b.p->se; x || y;
	     x = x->parent, y = y->parent) {
		assert_non_null(x);
		assert_non_null(y);
		assert_avg_equal(&x->cfs_rq->avg, &y->cfs_rq->avg);
		assert_int_equal(x->cfs_rq->load.weight, y->cfs_rq->load.weight);
		assert_int_equal(x->cfs_rq->nr_queued, y->cfs_rq->nr_queued);
	}
	struct ts_rq *ra = ts_cpu_rq(a.env.s, 1), *rb = ts_cpu_rq(b.env.s, 1);
	assert_int_equal(ra->nr_running, 2);
	assert_int_equal(rb->nr_running, 2);
	assert_int_equal(ts_cpu_load(a.env.s, 1), ts_cpu_load(b.env.s, 1));
	assert_int_equal(ts_cpu_util(a.env.s, 1), ts_cpu_util(b.env.s, 1));
	assert_int_equal(a.env.f.resched[1], b.env.f.resched[1]);
	world_free(&a);
	world_free(&b);
}

static void test_same_as_wake_up_new_task_root(void **state)
{
	(void)state;
	same_as_normal_path(0);
}

static void test_same_as_wake_up_new_task_group(void **state)
{
	(void)state;
	same_as_normal_path(256);
}

/* In a group, post_init_entity_util_avg() reads the group's cfs_rq on the CPU (cfs_rq_of(se)),
 * whose load differs from the root's: the task's util is the group-based value. */
static void test_util_from_the_group_cfs_rq(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, 128, 8);
	new_task(&w, 0, false);
	struct ts_rq *rq = ts_cpu_rq(w.env.s, 1);
	const struct ts_cfs_rq *gcfs = ts_tg_cfs_rq(w.g, 1);
	unsigned long weight = w.p->se.load.weight;
	unsigned long want =
		expected_util(rq->cpu_capacity, gcfs->avg.util_avg, gcfs->avg.load_avg, weight);
	unsigned long root_based =
		expected_util(rq->cpu_capacity, rq->cfs.avg.util_avg, rq->cfs.avg.load_avg, weight);
	/* preconditions: the history is there and the two queues give different answers */
	assert_true(gcfs->avg.util_avg > 0);
	assert_int_not_equal(want, root_based);

	ts_wake_up_new_task_on(w.env.s, w.p, 1);
	assert_ptr_equal(w.p->se.cfs_rq, gcfs);
	assert_int_equal(w.p->se.avg.util_avg, want);
	assert_int_equal(w.p->se.avg.runnable_avg, want);
	/* init_entity_runnable_average(): load_avg starts at the weight (attach keeps it) */
	assert_int_equal(w.p->se.avg.load_avg, weight);
	world_free(&w);
}

/* Initialised on CPU 0, woken on CPU 1: __set_task_cpu() (no migration counted), queued
 * and running state on CPU 1 only, root task's util from the root cfs_rq. */
static void test_moves_without_migration(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, 0, 20);
	new_task(&w, 0, false);
	assert_int_equal(w.p->cpu, 0);
	struct ts_rq *rq = ts_cpu_rq(w.env.s, 1);
	unsigned long want = expected_util(rq->cpu_capacity, rq->cfs.avg.util_avg,
					   rq->cfs.avg.load_avg, w.p->se.load.weight);
	uint64_t migrations_before = ts_stat_read(&rq->stats.migrations);

	ts_wake_up_new_task_on(w.env.s, w.p, 1);
	assert_int_equal(w.p->cpu, 1);
	assert_int_equal(w.p->recent_used_cpu, 1);
	assert_int_equal(w.p->nr_migrations, 0);
	assert_int_equal(ts_stat_read(&rq->stats.migrations), migrations_before);
	assert_ptr_equal(w.p->se.cfs_rq, &rq->cfs);
	assert_true(w.p->se.on_rq);
	assert_int_equal(w.p->se.avg.util_avg, want);
	assert_int_equal(rq->nr_running, 2);
	assert_int_equal(ts_rq_nr_running(w.env.s, 1), 2); /* published */
	assert_int_equal(ts_cpu_rq(w.env.s, 0)->nr_running, 0);
	assert_int_equal(ts_rq_nr_running(w.env.s, 0), 0);
	world_free(&w);
}

/* An idle target: the wake-up always asks it to reschedule, and says so. */
static void test_idle_target_rescheds(void **state)
{
	(void)state;
	struct world w;
	world_init(&w, 0, 2);
	new_task(&w, 1, false);
	unsigned before = w.env.f.resched[0];
	assert_true(ts_wake_up_new_task_on(w.env.s, w.p, 0));
	assert_int_equal(w.env.f.resched[0], before + 1);
	assert_int_equal(w.p->cpu, 0);
	/* an idle CPU's empty queue: half the capacity */
	assert_int_equal(w.p->se.avg.util_avg, ts_capacity_of(w.env.s, 0) / 2);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_wake_up_new_task_root),
		cmocka_unit_test(test_same_as_wake_up_new_task_group),
		cmocka_unit_test(test_util_from_the_group_cfs_rq),
		cmocka_unit_test(test_moves_without_migration),
		cmocka_unit_test(test_idle_target_rescheds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
