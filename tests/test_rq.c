/* Run-queue operations of the core (src/core/rq.c) through the fake host: activation,
 * __schedule(), the tick, sleep and wake-up, PELT wiring, migration and preemption. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fake_host.h"
#include "topo_fixture.h"

#define MS 1000000ULL

static void new_task(struct ts_sched *s, struct ts_task *p, int nice, int cpu)
{
	struct ts_error err = {0};
	assert_int_equal(ts_task_init(s, p, nice, NULL, cpu, &err), 0);
}

static void test_create(void **state)
{
	(void)state;
	struct ts_topology *t = preset("kunpeng920");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	assert_non_null(s);
	assert_int_equal(s->nr_cpus, 128);
	/* 0.70 ms x (1 + ilog2(min(128, 8))) */
	assert_int_equal(s->base_slice, 2800000);
	assert_int_equal(s->tick_nsec, 1000000);
	for (int c = 0; c < 128; c++) {
		assert_true(ts_idle_cpu(s, c));
		assert_int_equal(ts_capacity_of(s, c), 1024);
	}
	assert_false(atomic_load(&s->overloaded));
	ts_sched_destroy(s);
	struct ts_error err = {0};
	struct ts_host_ops bad = {0};
	assert_int_not_equal(ts_sched_create(t, ts_features_default(), &bad, &f, NULL, &s, &err),
			     0);
	assert_non_null(strstr(err.msg, "clock"));
	ts_topology_free(t);
}

static void test_activate_schedule_idle(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_task p;
	new_task(s, &p, 0, 3);
	/* a new task's activation (wake_up_new_task()'s activate_task()) and its first run
	 * leave the idle period open: idle_stamp and avg_idle unchanged */
	f.now += MS;
	uint64_t went_idle = f.now, avg_new = ts_cpu_rq(s, 3)->avg_idle;
	ts_rq_set_idle_stamp(ts_cpu_rq(s, 3), went_idle);
	f.now += MS;
	fake_lock(&f, 3);
	assert_true(ts_activate_task(s, 3, &p, 0)); /* idle CPU: resched */
	assert_int_equal(f.resched[3], 1);
	assert_int_equal(ts_rq_nr_running(s, 3), 1);
	assert_false(ts_idle_cpu(s, 3));
	assert_ptr_equal(ts_schedule(s, 3), &p);
	assert_ptr_equal(ts_cpu_rq(s, 3)->curr, &p);
	fake_unlock(&f, 3);
	assert_int_equal(ts_cpu_rq(s, 3)->idle_stamp, went_idle);
	assert_int_equal(ts_cpu_rq(s, 3)->avg_idle, avg_new);
	fake_run_cpu(s, &f, 3, 50 * MS);
	assert_true(ts_cpu_util(s, 3) > 0);
	/* block: the CPU goes idle and records when */
	fake_lock(&f, 3);
	ts_deactivate_curr(s, 3, TS_TASK_SLEEPING);
	assert_null(ts_schedule(s, 3));
	assert_true(ts_idle_cpu(s, 3));
	assert_int_equal(ts_cpu_rq(s, 3)->idle_stamp, f.now);
	fake_unlock(&f, 3);
	/* wake after 2 ms: the idle period feeds avg_idle and SIS_PROP's wake_avg_idle */
	uint64_t avg_before = ts_cpu_rq(s, 3)->avg_idle;
	f.now += 2 * MS;
	fake_lock(&f, 3);
	ts_activate_task(s, 3, &p, 0);
	fake_unlock(&f, 3);
	struct ts_rq *rq = ts_cpu_rq(s, 3);
	assert_int_equal(rq->idle_stamp, 0);
	uint64_t want = avg_before + (uint64_t)(((int64_t)(2 * MS) - (int64_t)avg_before) / 8);
	if (want > 2 * rq->max_idle_balance_cost) /* capped at twice the balance cost */
		want = 2 * rq->max_idle_balance_cost;
	assert_int_equal(rq->avg_idle, want);
	assert_int_equal(atomic_load(&rq->ro.wake_avg_idle), rq->avg_idle / 2);
	assert_int_equal(atomic_load(&rq->ro.wake_stamp), f.now / s->tick_nsec);
	assert_int_equal(f.lock_errors, 0);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

static void test_weights_share_one_cpu(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_task a, b;
	new_task(s, &a, 0, 0);
	new_task(s, &b, 5, 0);
	fake_lock(&f, 0);
	ts_activate_task(s, 0, &a, 0);
	ts_activate_task(s, 0, &b, 0);
	assert_true(atomic_load(&s->overloaded)); /* two runnable on one rq */
	ts_schedule(s, 0);
	fake_unlock(&f, 0);
	fake_run_cpu(s, &f, 0, 20000 * MS);
	double ra = (double)a.se.sum_exec_runtime, rb = (double)b.se.sum_exec_runtime;
	double want = 1024.0 / (1024.0 + 335.0);
	assert_true(ra / (ra + rb) > want * 0.99 && ra / (ra + rb) < want * 1.01);
	assert_int_equal(f.lock_errors, 0);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

static void test_pelt_wiring(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_task p;
	new_task(s, &p, 0, 1);
	fake_run_on(s, &f, &p, 1);
	fake_run_cpu(s, &f, 1, 400 * MS);
	/* always running: util and load converge to full scale */
	assert_true(ts_cpu_util(s, 1) >= 1000);
	assert_true(ts_cpu_load(s, 1) >= 1000);
	fake_lock(&f, 1);
	ts_deactivate_curr(s, 1, TS_TASK_SLEEPING);
	ts_schedule(s, 1);
	fake_unlock(&f, 1);
	/* blocked load of the idle CPU decays: halved in 32 ms (within rounding) */
	unsigned long u0 = ts_cpu_util(s, 1);
	f.now += 32 * 1024 * 1024ULL; /* 32 PELT periods */
	fake_lock(&f, 1);
	ts_sched_tick(s, 1);
	fake_unlock(&f, 1);
	unsigned long u1 = ts_cpu_util(s, 1);
	assert_true(u1 > u0 / 2 - 16 && u1 < u0 / 2 + 16);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

static void test_wake_migration_moves_load(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_task p;
	new_task(s, &p, 0, 0);
	fake_run_on(s, &f, &p, 0);
	fake_run_cpu(s, &f, 0, 300 * MS);
	fake_lock(&f, 0);
	ts_deactivate_curr(s, 0, TS_TASK_SLEEPING);
	ts_schedule(s, 0);
	fake_unlock(&f, 0);
	unsigned long util_p = p.se.avg.util_avg;
	assert_true(util_p > 900);
	/* woken on CPU 5: the load leaves CPU 0 (removed, folded at its next update) */
	fake_lock(&f, 5);
	ts_activate_task(s, 5, &p, 0);
	fake_unlock(&f, 5);
	assert_int_equal(p.cpu, 5);
	assert_int_equal(p.nr_migrations, 1);
	assert_int_equal(ts_stat_read(&ts_cpu_rq(s, 5)->stats.migrations), 1);
	assert_true(ts_cpu_util(s, 5) >= util_p - 20);
	fake_lock(&f, 0);
	ts_sched_tick(s, 0);
	fake_unlock(&f, 0);
	assert_true(ts_cpu_util(s, 0) < 30);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

static void test_move_queued_task(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_task p[3];
	fake_lock(&f, 0);
	for (int i = 0; i < 3; i++) {
		new_task(s, &p[i], 0, 0);
		ts_activate_task(s, 0, &p[i], 0);
	}
	struct ts_task *running = ts_schedule(s, 0);
	fake_unlock(&f, 0);
	fake_run_cpu(s, &f, 0, 30 * MS);
	struct ts_task *victim = ts_cpu_rq(s, 0)->curr == &p[0] ? &p[1] : &p[0];
	(void)running;
	fake_lock(&f, 0);
	fake_lock(&f, 2);
	ts_move_queued_task(s, victim, 0, 2);
	assert_int_equal(ts_cpu_rq(s, 0)->nr_running, 2);
	assert_int_equal(ts_cpu_rq(s, 2)->nr_running, 1);
	assert_int_equal(victim->cpu, 2);
	assert_true(f.resched[2] > 0); /* idle destination reschedules */
	assert_ptr_equal(ts_schedule(s, 2), victim);
	fake_unlock(&f, 2);
	fake_unlock(&f, 0);
	assert_int_equal(ts_cfs_rq_check(&ts_cpu_rq(s, 0)->cfs, NULL), 0);
	assert_int_equal(ts_cfs_rq_check(&ts_cpu_rq(s, 2)->cfs, NULL), 0);
	assert_int_equal(f.lock_errors, 0);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

/* A waking task with a shorter request than the running hog (PREEMPT_SHORT) and an
 * earlier deadline preempts it; with NO_WAKEUP_PREEMPTION the hog keeps the CPU. */
static void test_wakeup_preemption(void **state)
{
	(void)state;
	const char *features[] = {"", "NO_WAKEUP_PREEMPTION"};
	for (int i = 0; i < 2; i++) {
		struct ts_topology *t = preset("jacobsville");
		struct fake_host f;
		struct ts_sched *s = fake_sched(&f, t, features[i]);
		struct ts_task hog, wakee;
		new_task(s, &hog, 0, 0);
		new_task(s, &wakee, 0, 0);
		fake_run_on(s, &f, &hog, 0);
		fake_run_cpu(s, &f, 0, 1 * MS);
		wakee.se.custom_slice = true;
		wakee.se.slice = 100000; /* 0.1 ms request */
		unsigned before = f.resched[0];
		fake_lock(&f, 0);
		bool resched = ts_activate_task(s, 0, &wakee, TS_WF_TTWU);
		if (resched)
			assert_ptr_equal(ts_schedule(s, 0), &wakee);
		fake_unlock(&f, 0);
		assert_int_equal(resched, i == 0);
		assert_int_equal(f.resched[0] - before, i == 0 ? 1u : 0u);
		assert_int_equal(f.lock_errors, 0);
		ts_sched_destroy(s);
		ts_topology_free(t);
	}
}

static void test_yield_hands_over(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_task a, b;
	new_task(s, &a, 0, 0);
	new_task(s, &b, 0, 0);
	fake_lock(&f, 0);
	ts_activate_task(s, 0, &a, 0);
	ts_activate_task(s, 0, &b, 0);
	struct ts_task *first = ts_schedule(s, 0);
	f.now += 100000;
	ts_yield_task(s, 0);
	struct ts_task *second = ts_schedule(s, 0);
	assert_ptr_not_equal(first, second);
	fake_unlock(&f, 0);
	/* a lone task's yield is a no-op */
	struct ts_task c;
	new_task(s, &c, 0, 7);
	fake_run_on(s, &f, &c, 7);
	unsigned before = f.resched[7];
	fake_lock(&f, 7);
	ts_yield_task(s, 7);
	fake_unlock(&f, 7);
	assert_int_equal(f.resched[7], before);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

static void test_task_init_errors(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_task p;
	struct ts_error err = {0};
	assert_int_not_equal(ts_task_init(s, &p, 20, NULL, 0, &err), 0);
	assert_non_null(strstr(err.msg, "nice 20"));
	ts_error_clear(&err);
	assert_int_not_equal(ts_task_init(s, &p, 0, NULL, 24, &err), 0);
	assert_non_null(strstr(err.msg, "CPU 24"));
	/* affinity: a task placed outside its mask starts on its first allowed CPU */
	struct ts_cpumask *m = ts_cpumask_alloc(24);
	ts_cpumask_set(m, 9);
	ts_error_clear(&err);
	assert_int_equal(ts_task_init(s, &p, 0, m, 2, &err), 0);
	assert_int_equal(p.cpu, 9);
	assert_int_equal(p.nr_cpus_allowed, 1);
	assert_false(ts_task_allowed(&p, 2));
	ts_task_destroy(&p);
	ts_cpumask_free(m);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

/* ns of wall time on cpu, of which `steal` the host took (0: none), then cpu's tick. */
static void tick_after(struct ts_sched *s, struct fake_host *f, int cpu, uint64_t ns,
		       uint64_t steal)
{
	f->now += ns;
	fake_lock(f, cpu);
	if (steal)
		ts_sched_account_steal(s, cpu, steal);
	ts_sched_tick(s, cpu);
	fake_unlock(f, cpu);
}

/* Steal time (ts_sched_account_steal()): update_curr() charges the wall clock's delta less
 * the steal of the same stretch, at every level of the task's hierarchy; steal from before
 * the stretch began is nobody's; a steal larger than the stretch charges nothing and the
 * rest comes off the next stretches. */
static void test_steal_time(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	struct fake_host f;
	struct ts_sched *s = fake_sched(&f, t, "");
	struct ts_error err = {0};
	struct ts_task_group *tg = NULL;
	assert_int_equal(ts_sched_group_create(s, NULL, "app", 1024, &tg, &err), 0);
	struct ts_task p;
	new_task(s, &p, 0, 2);
	assert_int_equal(ts_task_set_group(s, &p, tg), 0);
	fake_run_on(s, &f, &p, 2);
	struct ts_sched_entity *gse = ts_tg_se(tg, 2);
	uint64_t sum0 = p.se.sum_exec_runtime, gsum0 = gse->sum_exec_runtime;
	uint64_t v0 = p.se.vruntime;

	/* 10 ms of wall time, 3 ms of them stolen: 7 ms charged to p and to its group */
	tick_after(s, &f, 2, 10 * MS, 3 * MS);
	assert_int_equal(p.se.sum_exec_runtime - sum0, 7 * MS);
	assert_int_equal(gse->sum_exec_runtime - gsum0, 7 * MS);
	assert_int_equal(p.se.vruntime - v0, 7 * MS); /* nice 0, alone in its group */

	/* steal while the CPU is idle is charged to nobody */
	fake_lock(&f, 2);
	ts_deactivate_curr(s, 2, TS_TASK_SLEEPING);
	assert_null(ts_schedule(s, 2));
	f.now += 5 * MS;
	ts_sched_account_steal(s, 2, 5 * MS);
	ts_activate_task(s, 2, &p, 0);
	assert_ptr_equal(ts_schedule(s, 2), &p);
	fake_unlock(&f, 2);
	uint64_t sum1 = p.se.sum_exec_runtime;
	tick_after(s, &f, 2, 4 * MS, 0);
	assert_int_equal(p.se.sum_exec_runtime - sum1, 4 * MS);

	/* more steal than the stretch: nothing charged, and the excess is taken off the
	 * stretches that follow (update_rq_clock_task() carries it) until it is used up */
	uint64_t sum2 = p.se.sum_exec_runtime;
	tick_after(s, &f, 2, 2 * MS, 20 * MS);
	assert_int_equal(p.se.sum_exec_runtime, sum2);
	tick_after(s, &f, 2, 3 * MS, 0);
	assert_int_equal(p.se.sum_exec_runtime, sum2);
	assert_int_equal(ts_cpu_rq(s, 2)->steal_pending, 15 * MS);
	tick_after(s, &f, 2, 20 * MS, 0);
	assert_int_equal(p.se.sum_exec_runtime - sum2, 5 * MS);
	assert_int_equal(gse->sum_exec_runtime - gsum0, p.se.sum_exec_runtime - sum0);
	assert_int_equal(ts_cpu_rq(s, 2)->steal, 28 * MS);
	assert_int_equal(ts_cpu_rq(s, 2)->steal_pending, 0);
	assert_int_equal(f.lock_errors, 0);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_activate_schedule_idle),
		cmocka_unit_test(test_weights_share_one_cpu),
		cmocka_unit_test(test_pelt_wiring),
		cmocka_unit_test(test_wake_migration_moves_load),
		cmocka_unit_test(test_move_queued_task),
		cmocka_unit_test(test_wakeup_preemption),
		cmocka_unit_test(test_yield_hands_over),
		cmocka_unit_test(test_task_init_errors),
		cmocka_unit_test(test_steal_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
