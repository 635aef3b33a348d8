/* The CFS pick of v5.x .. v6.5 (src/core/cfs_*.c, after kernel/sched/fair.c as of v6.1.55):
 * the tunables and __sched_period(), sched_slice() by weight (with and without the v5.13
 * ALT_PERIOD/BASE_SLICE), sleeper credit and START_DEBIT placement, wake-up preemption
 * granularity and the buddies it sets, tick preemption after ideal_runtime, the skip buddy
 * of yield, and the pick over a task-group hierarchy through the scheduler. Expected values
 * are worked out by hand from the kernel's formulas; where the kernel's 32-bit fixed-point
 * __calc_delta() truncates, the comment gives the exact ratio next to it. Nothing is
 * timed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fake_host.h"
#include "test_support.h" /* assert_cfs_ok() */
#include "topo_fixture.h"
#include "toposched/cfs.h"

#define MS   1000000ULL
#define TICK TS_TICK_NSEC_DEFAULT

/* A flat CFS queue on one CPU's tunables (factor 1: latency 6 ms, min_granularity
 * 0.75 ms, wakeup granularity 1 ms). */
struct flat {
	struct ts_cfs_params p;
	struct ts_cfs_rq cfs;
};

static void flat_init(struct flat *q, bool v5_6)
{
	if (v5_6)
		ts_cfs_params_init_v5_6(&q->p, 1);
	else
		ts_cfs_params_init(&q->p, 1);
	ts_cfs_rq_init(&q->cfs, ts_sched_base_slice(1), TICK);
	ts_cfs_rq_set_pick(&q->cfs, TS_FAIR_PICK_CFS, &q->p);
}

static void se_init(struct flat *q, struct ts_sched_entity *se, int nice, uint64_t vruntime)
{
	ts_sched_entity_init(se);
	assert_int_equal(ts_set_load_weight(se, nice), 0);
	se->cfs_rq = &q->cfs;
	se->vruntime = vruntime;
}

/* A plain wake-up (no renormalisation) of se with its absolute vruntime. */
static void wake(struct flat *q, struct ts_sched_entity *se, uint64_t now)
{
	ts_enqueue_task(&q->cfs, se, now, TS_ENQUEUE_WAKEUP, ts_features_default());
	assert_cfs_ok(&q->cfs);
}

/* A new entity of that nice and vruntime, woken at time 0. */
static void queue_se(struct flat *q, struct ts_sched_entity *se, int nice, uint64_t vruntime)
{
	se_init(q, se, nice, vruntime);
	wake(q, se, 0);
}

static void test_tunables_and_period(void **state)
{
	(void)state;
	struct ts_cfs_params p;
	/* factor = 1 + ilog2(min(ncpus, 8)): 1, 2, 3, 4, 4 */
	const unsigned int cpus[] = {1, 2, 4, 8, 128};
	const uint64_t factor[] = {1, 2, 3, 4, 4};
	for (int i = 0; i < 5; i++) {
		ts_cfs_params_init(&p, cpus[i]);
		assert_int_equal(p.sched_latency, factor[i] * 6 * MS);
		assert_int_equal(p.sched_min_granularity, factor[i] * 750000);
		assert_int_equal(p.sched_wakeup_granularity, factor[i] * MS);
		assert_int_equal(p.sched_nr_latency, 8);
	}
	assert_true(p.alt_period && p.base_slice && p.gentle_fair_sleepers && p.start_debit &&
		    p.last_buddy);
	ts_cfs_params_init_v5_6(&p, 8);
	assert_false(p.alt_period || p.base_slice);
	/* 8 CPUs: latency 24 ms up to sched_nr_latency tasks, then nr * 3 ms */
	assert_int_equal(ts_sched_period(&p, 1), 24 * MS);
	assert_int_equal(ts_sched_period(&p, 8), 24 * MS);
	assert_int_equal(ts_sched_period(&p, 9), 27 * MS);
	assert_int_equal(ts_sched_period(&p, 12), 36 * MS);
}

static void test_slice_by_weight(void **state)
{
	(void)state;
	struct flat q;
	struct ts_sched_entity a, b, c;
	flat_init(&q, false);
	queue_se(&q, &a, 0, 10 * MS);
	queue_se(&q, &b, 5, 10 * MS);
	/* period(2) = 6 ms split 1024 : 335: 4.5210 ms and 1.4790 ms (fixed point) */
	assert_int_equal(ts_sched_slice(&q.cfs, &a), 4520971);
	assert_int_equal(ts_sched_slice(&q.cfs, &b), 1479028);
	/* a third, not queued nice-0 entity is counted in: period(3) = 6 ms over 2383 */
	se_init(&q, &c, 0, 10 * MS);
	assert_int_equal(ts_sched_slice(&q.cfs, &c), 6 * MS * 1024 / 2383);
	/* vslice: nice 5 runs 1024 / 335 times faster in virtual time */
	assert_int_equal(ts_sched_vslice(&q.cfs, &b), ts_calc_delta_fair(1479028, &b));
}

/* Ten nice-0 tasks and one nice-19 task: period = 11 x 0.75 ms = 8.25 ms, nice 19's share
 * 15 / 10255 of it = 12067 ns; BASE_SLICE (v5.13+) raises it to min_granularity. */
static void test_base_slice(void **state)
{
	(void)state;
	for (int v5_6 = 0; v5_6 <= 1; v5_6++) {
		struct flat q;
		struct ts_sched_entity e[11];
		flat_init(&q, v5_6);
		for (int i = 0; i < 11; i++) {
			queue_se(&q, &e[i], i == 10 ? 19 : 0, 10 * MS);
		}
		assert_int_equal(ts_sched_slice(&q.cfs, &e[10]), v5_6 ? 12067 : 750000);
	}
}

/* ALT_PERIOD counts the root queue's h_nr_running, not the entity's own queue: a queue of
 * two whose hierarchy holds nine tasks has a 9 x 0.75 ms period. */
static void test_alt_period(void **state)
{
	(void)state;
	struct flat q;
	struct ts_sched_entity a, b;
	flat_init(&q, false);
	queue_se(&q, &a, 0, 10 * MS);
	queue_se(&q, &b, 0, 10 * MS);
	assert_int_equal(ts_sched_slice(&q.cfs, &a), 2999998); /* 3 ms, fixed point */
	q.cfs.h_nr_queued = 9;
	assert_int_equal(ts_sched_slice(&q.cfs, &a), 3374998); /* 6.75 ms / 2, fixed point */
	q.p.alt_period = false;
	assert_int_equal(ts_sched_slice(&q.cfs, &a), 2999998);
}

/* place_entity() on wake-up: no earlier than min_vruntime - latency / 2 (3 ms), or
 * - latency (6 ms) without GENTLE_FAIR_SLEEPERS; a short sleeper keeps its vruntime. */
static void test_sleeper_credit(void **state)
{
	(void)state;
	struct flat q;
	struct ts_sched_entity lng, shrt, mig, nog;
	flat_init(&q, false);
	q.cfs.min_vruntime = 100 * MS;
	queue_se(&q, &lng, 0, 10 * MS);
	assert_int_equal(lng.vruntime, 97 * MS);
	queue_se(&q, &shrt, 0, 99 * MS);
	assert_int_equal(shrt.vruntime, 99 * MS);
	/* woken on another CPU: relative -5 ms, renormalised to 95 ms, then placed */
	se_init(&q, &mig, 0, (uint64_t) - (int64_t)(5 * MS));
	ts_enqueue_task(&q.cfs, &mig, 0, TS_ENQUEUE_WAKEUP | TS_ENQUEUE_MIGRATED,
			ts_features_default());
	assert_int_equal(mig.vruntime, 97 * MS);
	q.p.gentle_fair_sleepers = false;
	queue_se(&q, &nog, 0, 10 * MS);
	assert_int_equal(nog.vruntime, 94 * MS);
	assert_cfs_ok(&q.cfs);
	/* a dequeue other than a sleep leaves vruntime relative to min_vruntime */
	ts_dequeue_task(&q.cfs, &shrt, 0, 0, ts_features_default());
	assert_int_equal(shrt.vruntime, 99 * MS - q.cfs.min_vruntime);
	assert_cfs_ok(&q.cfs);
}

/* task_fork_fair(): the child starts at max(parent's vruntime, min_vruntime + vslice)
 * (START_DEBIT), relative until it is enqueued. */
static void test_start_debit(void **state)
{
	(void)state;
	struct flat q;
	struct ts_sched_entity parent, child, child2;
	flat_init(&q, false);
	queue_se(&q, &parent, 0, 100 * MS);
	ts_set_next_entity(&q.cfs, &parent, 0);
	ts_update_min_vruntime(&q.cfs);
	assert_int_equal(q.cfs.min_vruntime, 100 * MS);
	/* vslice of a nice-0 child joining one nice-0 task: 6 ms / 2 (fixed point) */
	se_init(&q, &child, 0, 0);
	ts_cfs_task_fork(&child, 0);
	assert_int_equal(child.vruntime, 2999998);
	ts_enqueue_task(&q.cfs, &child, 0, TS_ENQUEUE_INITIAL, ts_features_default());
	assert_int_equal(child.vruntime, 100 * MS + 2999998);
	/* without START_DEBIT the child starts at its parent's vruntime */
	q.p.start_debit = false;
	se_init(&q, &child2, 0, 0);
	ts_cfs_task_fork(&child2, 0);
	assert_int_equal(child2.vruntime, 0);
	assert_cfs_ok(&q.cfs);
}

/* wakeup_preempt_entity(): the wakee preempts only when curr's vruntime is ahead of it by
 * more than wakeup_gran(wakee) = 1 ms in the wakee's virtual time: 1 ms for nice 0,
 * 1 ms x 1024 / 335 = 3.0567 ms for nice 5. */
static void test_wakeup_granularity(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	const struct {
		int nice;
		uint64_t behind;
		bool preempt;
	} cases[] = {
		{0, MS, false},	     {0, MS + 1, true},	 {5, 2 * MS, false},
		{5, 3056716, false}, {5, 3056717, true},
	};
	assert_int_equal(ts_calc_delta_fair(MS, &(struct ts_sched_entity){.load = {335, 12820798}}),
			 3056716);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct flat q;
		struct ts_sched_entity curr, w;
		flat_init(&q, false);
		queue_se(&q, &curr, 0, 20 * MS);
		ts_set_next_entity(&q.cfs, &curr, 0);
		queue_se(&q, &w, cases[i].nice, 20 * MS - cases[i].behind);
		assert_int_equal(ts_wakeup_preempt(&q.cfs, &w, 0, 0, f), cases[i].preempt);
		assert_int_equal(q.cfs.resched, cases[i].preempt);
		/* a preempting wakee becomes the next buddy; LAST_BUDDY needs 8 queued */
		assert_ptr_equal(q.cfs.next, cases[i].preempt ? &w : NULL);
		assert_null(q.cfs.last);
	}
	/* WAKEUP_PREEMPTION off: never */
	struct flat q;
	struct ts_sched_entity curr, w;
	flat_init(&q, false);
	queue_se(&q, &curr, 0, 20 * MS);
	ts_set_next_entity(&q.cfs, &curr, 0);
	queue_se(&q, &w, 0, 10 * MS);
	ts_features_clear(&f, TS_FEAT_WAKEUP_PREEMPTION);
	assert_false(ts_wakeup_preempt(&q.cfs, &w, 0, 0, f));
}

/* With sched_nr_latency (8) entities queued, a preempted curr becomes the last buddy, and
 * the next pick takes the next buddy (the wakee), then the last one over the leftmost. */
static void test_buddies_under_load(void **state)
{
	(void)state;
	struct flat q;
	struct ts_sched_entity e[8];
	flat_init(&q, false);
	for (int i = 0; i < 7; i++) {
		queue_se(&q, &e[i], 0, 20 * MS + (uint64_t)i * 100000);
	}
	ts_set_next_entity(&q.cfs, &e[0], 0);
	se_init(&q, &e[7], 0, 18 * MS); /* 2 ms behind curr */
	wake(&q, &e[7], 0);
	assert_true(ts_wakeup_preempt(&q.cfs, &e[7], 0, 0, ts_features_default()));
	assert_ptr_equal(q.cfs.next, &e[7]);
	assert_ptr_equal(q.cfs.last, &e[0]);
	ts_put_prev_entity(&q.cfs, &e[0], 0, ts_features_default());
	assert_ptr_equal(ts_pick_next_entity(&q.cfs, ts_features_default()), &e[7]);
	ts_set_next_entity(&q.cfs, &e[7], 0);
	assert_null(q.cfs.next);
	/* e[7] runs 1.5 ms and stays the leftmost (19.5 ms); the last buddy e[0] (20 ms) is
	 * within wakeup_gran of it: e[0] gets the CPU back */
	ts_update_curr(&q.cfs, 1500000, ts_features_default());
	ts_put_prev_entity(&q.cfs, &e[7], 1500000, ts_features_default());
	assert_ptr_equal(ts_pick_next_entity(&q.cfs, ts_features_default()), &e[0]);
	assert_cfs_ok(&q.cfs);
}

/* check_preempt_tick(): two nice-0 entities, ideal_runtime = 6 ms / 2 = 2999998 ns. curr
 * is rescheduled once it ran longer than that; after min_granularity (0.75 ms) also once
 * its vruntime is ahead of the leftmost by more than ideal_runtime. */
static void test_tick_preemption(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	/* equal vruntimes: only the runtime rule fires, after 3 ms */
	struct flat q;
	struct ts_sched_entity a, b;
	flat_init(&q, false);
	queue_se(&q, &a, 0, 20 * MS);
	queue_se(&q, &b, 0, 20 * MS);
	ts_set_next_entity(&q.cfs, &a, 0);
	ts_update_curr(&q.cfs, 2 * MS, f);
	assert_false(ts_check_preempt_tick(&q.cfs, &a));
	ts_update_curr(&q.cfs, 2999998, f);
	assert_false(ts_check_preempt_tick(&q.cfs, &a)); /* not more than ideal_runtime */
	ts_update_curr(&q.cfs, 2999999, f);
	assert_true(ts_check_preempt_tick(&q.cfs, &a));
	assert_true(q.cfs.resched);

	/* b 2.5 ms behind: at 0.5 ms curr is 3.0 ms ahead but within min_granularity; at
	 * 0.8 ms 3.3 ms ahead > ideal_runtime */
	flat_init(&q, false);
	queue_se(&q, &a, 0, 20 * MS);
	queue_se(&q, &b, 0, 17500000);
	ts_set_next_entity(&q.cfs, &a, 0);
	ts_update_curr(&q.cfs, 500000, f);
	assert_false(ts_check_preempt_tick(&q.cfs, &a));
	ts_update_curr(&q.cfs, 700000, f);
	assert_false(ts_check_preempt_tick(&q.cfs, &a)); /* 3.2 ms ahead, 0.7 ms run */
	ts_update_curr(&q.cfs, 800000, f);
	assert_true(ts_check_preempt_tick(&q.cfs, &a));
}

/* yield_task_fair() makes curr the skip buddy: the pick takes the second entity instead,
 * unless that is more than wakeup_gran (1 ms) behind in fairness; set_next clears it. */
static void test_yield_skip_buddy(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	for (int far = 0; far <= 1; far++) {
		struct flat q;
		struct ts_sched_entity a, b;
		flat_init(&q, false);
		queue_se(&q, &a, 0, 20 * MS);
		queue_se(&q, &b, 0, far ? 21500000 : 20500000);
		ts_set_next_entity(&q.cfs, &a, 0);
		ts_cfs_yield_task(&q.cfs, 0);
		assert_ptr_equal(q.cfs.skip, &a);
		/* curr is the leftmost and the skip buddy: the second is the tree's first */
		struct ts_sched_entity *pick = ts_pick_next_entity(&q.cfs, f);
		assert_ptr_equal(pick, far ? &a : &b);
		ts_put_prev_entity(&q.cfs, &a, 0, f);
		ts_set_next_entity(&q.cfs, pick, 0);
		/* the skip buddy lasts until it is picked (or leaves the queue) */
		assert_ptr_equal(q.cfs.skip, far ? NULL : &a);
		assert_cfs_ok(&q.cfs);
	}
}

static struct ts_sched *cfs_sched(struct fake_host *f, struct ts_topology *t)
{
	struct ts_sched_config cfg = {0};
	struct ts_error err = {0};
	assert_int_equal(ts_kernel_profile_for(6, 1, &cfg.kernel, &err), 0);
	assert_int_equal(cfg.kernel.fair_pick, TS_FAIR_PICK_CFS);
	struct ts_sched *s = fake_sched_cfg(f, t, "", &cfg);
	assert_non_null(s);
	return s;
}

/* The pick over a hierarchy: groups A and B of equal shares on one CPU, one task in A and
 * two in B. pick_next_task_fair() picks between the group entities first: A's task gets
 * half the CPU, each of B's a quarter (within a tick's granularity over 600 ms). A task
 * yielding in B hands the CPU to its sibling through the skip buddy at B's level. */
static void test_group_hierarchy_pick(void **state)
{
	(void)state;
	struct ts_topology *t = preset("kunpeng920");
	struct fake_host f;
	struct ts_sched *s = cfs_sched(&f, t);
	struct ts_task_group *ga, *gb;
	struct ts_error err = {0};
	assert_int_equal(ts_sched_group_create(s, NULL, "a", 1024, &ga, &err), 0);
	assert_int_equal(ts_sched_group_create(s, NULL, "b", 1024, &gb, &err), 0);
	assert_int_equal(s->rq[0].cfs.pick, TS_FAIR_PICK_CFS);
	assert_int_equal(ts_tg_cfs_rq(gb, 0)->pick, TS_FAIR_PICK_CFS);
	struct ts_task p[3];
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ts_task_init(s, &p[i], 0, NULL, 0, &err), 0);
		assert_int_equal(ts_task_set_group(s, &p[i], i == 0 ? ga : gb), 0);
		ts_wake_up_new_task_on(s, &p[i], 0);
	}
	fake_lock(&f, 0);
	ts_schedule(s, 0);
	fake_unlock(&f, 0);
	fake_run_cpu(s, &f, 0, 600 * MS);
	uint64_t total = 0;
	for (int i = 0; i < 3; i++)
		total += p[i].se.sum_exec_runtime;
	assert_true(total >= 599 * MS);
	assert_in_range(p[0].se.sum_exec_runtime, total / 2 - 10 * MS, total / 2 + 10 * MS);
	assert_in_range(p[1].se.sum_exec_runtime, total / 4 - 10 * MS, total / 4 + 10 * MS);
	assert_in_range(p[2].se.sum_exec_runtime, total / 4 - 10 * MS, total / 4 + 10 * MS);
	assert_cfs_ok(&s->rq[0].cfs);
	assert_cfs_ok(ts_tg_cfs_rq(ga, 0));
	assert_cfs_ok(ts_tg_cfs_rq(gb, 0));

	/* run until one of B's tasks is current, then yield it */
	for (int i = 0; i < 100 && s->rq[0].curr == &p[0]; i++)
		fake_run_cpu(s, &f, 0, MS);
	struct ts_task *y = s->rq[0].curr;
	assert_true(y == &p[1] || y == &p[2]);
	fake_lock(&f, 0);
	ts_yield_task(s, 0);
	assert_ptr_equal(ts_tg_cfs_rq(gb, 0)->skip, &y->se);
	assert_ptr_equal(s->rq[0].cfs.skip, ts_tg_se(gb, 0));
	struct ts_sched_entity *sib = &(y == &p[1] ? &p[2] : &p[1])->se;
	bool sib_fair = ts_cfs_wakeup_preempt_entity(sib, &y->se) < 1;
	struct ts_task *next = ts_schedule(s, 0);
	fake_unlock(&f, 0);
	/* B keeps the CPU or A gets it; within B the sibling runs unless that were unfair */
	if (next != &p[0])
		assert_ptr_equal(next, sib_fair ? ts_task_of(sib) : y);
	assert_int_equal(f.lock_errors, 0);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

/* A wake-up through the scheduler on a busy CPU: check_preempt_wakeup() of CFS preempts a
 * task that ran 2 ms past a sleeper's placement (sleeper credit 3 ms x factor 4 = 12 ms on
 * this 128-CPU machine); EEVDF's default stays the default. */
static void test_sched_wakeup(void **state)
{
	(void)state;
	struct ts_topology *t = preset("kunpeng920");
	struct fake_host f;
	struct ts_sched *s = cfs_sched(&f, t);
	struct ts_error err = {0};
	assert_int_equal(s->cfs_params.sched_latency, 24 * MS);
	struct ts_task run, slp;
	assert_int_equal(ts_task_init(s, &run, 0, NULL, 0, &err), 0);
	assert_int_equal(ts_task_init(s, &slp, 0, NULL, 0, &err), 0);
	ts_wake_up_new_task_on(s, &run, 0);
	ts_wake_up_new_task_on(s, &slp, 0);
	fake_lock(&f, 0);
	ts_schedule(s, 0);
	fake_unlock(&f, 0);
	/* whichever runs first blocks at once; the other runs alone for 50 ms */
	struct ts_task *other = s->rq[0].curr, *first = other == &run ? &slp : &run;
	fake_lock(&f, 0);
	ts_deactivate_curr(s, 0, TS_TASK_SLEEPING);
	ts_schedule(s, 0);
	fake_unlock(&f, 0);
	assert_ptr_equal(s->rq[0].curr, first);
	fake_run_cpu(s, &f, 0, 50 * MS);
	fake_lock(&f, 0);
	bool preempt = ts_activate_task(s, 0, other, 0);
	fake_unlock(&f, 0);
	/* other is placed at min_vruntime - 12 ms, far more than wakeup_gran (4 ms) behind */
	assert_true(preempt);
	assert_ptr_equal(s->rq[0].cfs.next, &other->se);
	ts_sched_destroy(s);

	struct ts_sched_config cfg = {0};
	assert_int_equal(ts_kernel_profile_newest().fair_pick, TS_FAIR_PICK_EEVDF);
	assert_int_equal(ts_kernel_profile_for(6, 12, &cfg.kernel, &err), 0);
	cfg.kernel.fair_pick = (enum ts_fair_pick)7;
	assert_int_not_equal(
		ts_sched_create(t, ts_features_default(), &fake_ops, &f, &cfg, &s, &err), 0);
	ts_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tunables_and_period),
		cmocka_unit_test(test_slice_by_weight),
		cmocka_unit_test(test_base_slice),
		cmocka_unit_test(test_alt_period),
		cmocka_unit_test(test_sleeper_credit),
		cmocka_unit_test(test_start_debit),
		cmocka_unit_test(test_wakeup_granularity),
		cmocka_unit_test(test_buddies_under_load),
		cmocka_unit_test(test_tick_preemption),
		cmocka_unit_test(test_yield_skip_buddy),
		cmocka_unit_test(test_group_hierarchy_pick),
		cmocka_unit_test(test_sched_wakeup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
