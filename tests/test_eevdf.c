/* EEVDF run queue: the kernel's weight tables and fixed-point delta, base-slice scaling,
 * CPU shares in proportion to weight on one simulated CPU driven by a manual clock, lag
 * preservation and clamping across dequeue/enqueue, placement of new tasks, wakeup
 * preemption under WAKEUP_PREEMPTION / RUN_TO_PARITY / PREEMPT_SHORT / NEXT_BUDDY, and a
 * fixed-seed stress (small and 10,000 entities) that runs the invariant checker and a
 * brute-force EEVDF oracle after every operation. Nothing is timed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/eevdf.h"

#include "test_support.h" /* rng_seed(), rng() */

#define SLICE_1CPU 700000ULL
#define TICK	   TS_TICK_NSEC_DEFAULT

#define assert_close(a, b, tol)                                                                    \
	do {                                                                                       \
		long long a_ = (long long)(a), b_ = (long long)(b), t_ = (long long)(tol);         \
		if ((a_ > b_ ? a_ - b_ : b_ - a_) > t_)                                            \
			fail_msg("%s = %lld, %s = %lld: differ by more than %lld", #a, a_, #b, b_, \
				 t_);                                                              \
	} while (0)

static unsigned int rng_below(unsigned int n)
{
	return (unsigned int)(rng() % n);
}

static struct ts_features feats(int set_mask_on, int set_mask_off)
{
	struct ts_features f = ts_features_default();
	for (int b = 0; b < TS_FEAT_NR; b++) {
		if (set_mask_on & (1 << b))
			ts_features_set(&f, (enum ts_feature)b);
		if (set_mask_off & (1 << b))
			ts_features_clear(&f, (enum ts_feature)b);
	}
	return f;
}
#define BIT(x) (1 << (x))

static void se_init_nice(struct ts_sched_entity *se, int nice)
{
	ts_sched_entity_init(se);
	assert_int_equal(ts_set_load_weight(se, nice), 0);
}

/* ---- brute-force oracle ---------------------------------------------------------------- */

static bool queued(const struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	(void)cfs;
	return se->on_rq;
}

/* Checks ts_pick_eevdf() against a linear scan: the pick is queued and eligible (or the
 * only one), has the earliest deadline among eligible entities, and is a protected curr
 * under RUN_TO_PARITY when there is one. */
static void check_pick_oracle(struct ts_cfs_rq *cfs, struct ts_sched_entity *ents, size_t n,
			      struct ts_features f)
{
	struct ts_sched_entity *pick = ts_pick_eevdf(cfs, f);
	struct ts_sched_entity *curr = cfs->curr;
	const struct ts_sched_entity *best = NULL;
	size_t nq = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ts_sched_entity *se = &ents[i];
		if (!queued(cfs, se))
			continue;
		nq++;
		if (!ts_entity_eligible(cfs, se))
			continue;
		if (!best || (int64_t)(se->deadline - best->deadline) < 0)
			best = se;
	}
	assert_int_equal(nq, cfs->nr_queued);
	if (nq == 0) {
		assert_null(pick);
		return;
	}
	assert_non_null(pick);
	assert_true(pick->on_rq);
	if (nq == 1)
		return;
	assert_non_null(best); /* the entity with the smallest vruntime is always eligible */
	assert_true(ts_entity_eligible(cfs, pick));
	if (ts_features_has(f, TS_FEAT_RUN_TO_PARITY) && curr && curr->on_rq &&
	    ts_entity_eligible(cfs, curr) && ts_protect_slice(curr)) {
		assert_ptr_equal(pick, curr);
		return;
	}
	if (pick->deadline != best->deadline)
		fail_msg("pick deadline %llu, earliest eligible deadline %llu",
			 (unsigned long long)pick->deadline, (unsigned long long)best->deadline);
}

/* ---- one simulated CPU ----------------------------------------------------------------- */

struct sim {
	struct ts_cfs_rq cfs;
	struct ts_sched_entity *se;
	size_t n;
	uint64_t now;
	uint64_t tick;
	struct ts_features f;
};

/* Real ns left of curr's request: (deadline - vruntime) * w / 1024, rounded up. */
static uint64_t slice_left(const struct ts_sched_entity *se)
{
	int64_t v = (int64_t)(se->deadline - se->vruntime);
	if (v <= 0)
		return 1;
	return ((uint64_t)v * se->load.weight + TS_NICE_0_LOAD - 1) / TS_NICE_0_LOAD;
}

/* pick, run the picked entity for min(slice left, tick) steps until a resched, put_prev. */
static void sim_run(struct sim *s, uint64_t until)
{
	while (s->now < until) {
		struct ts_sched_entity *se = ts_pick_next_entity(&s->cfs, s->f);

		assert_non_null(se);
		ts_set_next_entity(&s->cfs, se, s->now);
		s->cfs.resched = false;
		for (;;) {
			uint64_t step = slice_left(se);
			if (step > s->tick)
				step = s->tick;
			if (step > until - s->now)
				step = until - s->now;
			s->now += step;
			(void)ts_update_curr(&s->cfs, s->now, s->f);
			if (s->cfs.resched || s->now >= until)
				break;
		}
		ts_put_prev_entity(&s->cfs, se, s->now, s->f);
		s->cfs.resched = false;
	}
	assert_cfs_ok(&s->cfs);
}

/* Each share within 1% (relative) of w_i / W, or -- for shares so small that 1% is less
 * than EEVDF's lag bound -- within abs_tol_ns of CPU time. */
static void check_shares_tol(const int *nices, size_t n, uint64_t slice, uint64_t tick,
			     uint64_t duration, uint64_t abs_tol_ns)
{
	struct ts_sched_entity ents[8];
	struct sim s = {.se = ents, .n = n, .tick = tick, .f = ts_features_default()};
	uint64_t wsum = 0, total = 0;

	assert_true(n <= 8);
	ts_cfs_rq_init(&s.cfs, slice, TICK);
	for (size_t i = 0; i < n; i++) {
		se_init_nice(&ents[i], nices[i]);
		ts_enqueue_task(&s.cfs, &ents[i], 0, TS_ENQUEUE_INITIAL, s.f);
		wsum += ents[i].load.weight;
		assert_cfs_ok(&s.cfs);
	}
	sim_run(&s, duration);
	for (size_t i = 0; i < n; i++)
		total += ents[i].sum_exec_runtime;
	assert_int_equal(total, duration);
	for (size_t i = 0; i < n; i++) {
		double got = (double)ents[i].sum_exec_runtime / (double)total;
		double want = (double)ents[i].load.weight / (double)wsum;
		double err_ns = (got - want) * (double)total;
		if ((got < want * 0.99 || got > want * 1.01) &&
		    (err_ns > (double)abs_tol_ns || -err_ns > (double)abs_tol_ns))
			fail_msg("nice %d: share %.5f, expected %.5f (+-1%%)", nices[i], got, want);
	}
}

static void check_shares(const int *nices, size_t n, uint64_t slice, uint64_t tick,
			 uint64_t duration)
{
	check_shares_tol(nices, n, slice, tick, duration, 0);
}

/* ---- tests ----------------------------------------------------------------------------- */

static void test_weight_tables(void **state)
{
	(void)state;
	struct ts_sched_entity se;

	assert_int_equal(ts_sched_prio_to_weight[0], 88761); /* nice -20 */
	assert_int_equal(ts_sched_prio_to_weight[15], 3121); /* nice -5 */
	assert_int_equal(ts_sched_prio_to_weight[20], 1024); /* nice 0 */
	assert_int_equal(ts_sched_prio_to_weight[25], 335);  /* nice 5 */
	assert_int_equal(ts_sched_prio_to_weight[30], 110);  /* nice 10 */
	assert_int_equal(ts_sched_prio_to_weight[39], 15);   /* nice 19 */
	assert_int_equal(ts_sched_prio_to_wmult[0], 48388);
	assert_int_equal(ts_sched_prio_to_wmult[20], 4194304);
	assert_int_equal(ts_sched_prio_to_wmult[39], 286331153);
	for (int i = 0; i < 40; i++) {
		/* wmult is 2^32 / weight (rounded); weights fall ~1.25x per nice step */
		uint64_t q = (UINT64_C(1) << 32) / (uint64_t)ts_sched_prio_to_weight[i];
		assert_close(ts_sched_prio_to_wmult[i], q, 1);
		if (i)
			assert_true(ts_sched_prio_to_weight[i] < ts_sched_prio_to_weight[i - 1]);
	}
	se_init_nice(&se, -20);
	assert_int_equal(se.load.weight, 88761);
	assert_int_equal(se.load.inv_weight, 48388);
	assert_int_equal(ts_set_load_weight(&se, 20), -EINVAL);
	assert_int_equal(ts_set_load_weight(&se, -21), -EINVAL);
	/* queued but on no known queue: nothing to reweight against */
	se.on_rq = 1;
	assert_int_equal(ts_set_load_weight(&se, 0), -EINVAL);
	assert_int_equal(se.load.weight, 88761);
}

static void test_calc_delta_fair(void **state)
{
	(void)state;
	struct ts_sched_entity se;
	const uint64_t deltas[] = {1, 1000, 700000, 4000000, 123456789, 10000000000ULL};

	for (int nice = -20; nice <= 19; nice++) {
		se_init_nice(&se, nice);
		for (size_t i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++) {
			uint64_t d = deltas[i];
			uint64_t got = ts_calc_delta_fair(d, &se);
			double want = (double)d * 1024.0 / (double)se.load.weight;
			if (nice == 0)
				assert_int_equal(got, d);
			/* 32-bit inverse (rounded either way): relative error ~2^-20, plus
			 * truncation */
			if ((double)got > want * (1.0 + 1e-6) + 1.0 ||
			    (double)got < want * (1.0 - 1e-6) - 1.0)
				fail_msg("nice %d delta %llu: %llu, exact %.1f", nice,
					 (unsigned long long)d, (unsigned long long)got, want);
		}
	}
	/* Hand-computed values. nice -5: fact = 1024 * 1376151 < 2^32, no pre-shift:
	 * 1e6 * 1409178624 >> 32 = 328099. nice 19: fact = 1024 * 286331153 = 0x44_4444_4400,
	 * fact_hi = 0x44 (fls 7): (1e6 * (fact >> 7)) >> 25 = 68266666. */
	se_init_nice(&se, -5);
	assert_int_equal(ts_calc_delta_fair(1000000ULL, &se), (1000000ULL * 1409178624ULL) >> 32);
	assert_int_equal(ts_calc_delta_fair(1000000ULL, &se), 328099);
	se_init_nice(&se, 19);
	assert_int_equal(ts_calc_delta_fair(1000000ULL, &se),
			 (1000000ULL * ((1024ULL * 286331153ULL) >> 7)) >> 25);
	assert_int_equal(ts_calc_delta_fair(1000000ULL, &se), 68266666);
	/* A zero inverse is computed on first use, as __update_inv_weight() does. */
	{
		struct ts_load_weight lw = {.weight = 2048, .inv_weight = 0};
		/* WMULT_CONST / 2048 = 2097151 < 2^21: the kernel's result truncates to 499 */
		assert_int_equal(ts_calc_delta(1000, 1024, &lw), 499);
		assert_int_equal(lw.inv_weight, 0xffffffffU / 2048);
	}
}

static void test_base_slice(void **state)
{
	(void)state;
	assert_int_equal(ts_get_update_sysctl_factor(1), 1);
	assert_int_equal(ts_get_update_sysctl_factor(2), 2);
	assert_int_equal(ts_get_update_sysctl_factor(3), 2);
	assert_int_equal(ts_get_update_sysctl_factor(4), 3);
	assert_int_equal(ts_get_update_sysctl_factor(8), 4);
	assert_int_equal(ts_get_update_sysctl_factor(128), 4);
	assert_int_equal(ts_sched_base_slice(1), 700000);
	assert_int_equal(ts_sched_base_slice(2), 1400000);
	assert_int_equal(ts_sched_base_slice(4), 2100000);
	assert_int_equal(ts_sched_base_slice(8), 2800000);
	assert_int_equal(ts_sched_base_slice(128), 2800000);
	assert_int_equal(TS_TICK_NSEC(250ULL), 4000000);
	assert_int_equal(TS_TICK_NSEC(1000ULL), 1000000);
}

static void test_update_curr_deadline(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_cfs_rq cfs;
	struct ts_sched_entity a, b;
	struct ts_update_curr_result r;

	ts_cfs_rq_init(&cfs, SLICE_1CPU, TICK);
	se_init_nice(&a, 0);
	se_init_nice(&b, 0);
	ts_enqueue_task(&cfs, &a, 0, 0, f);
	assert_int_equal(a.vruntime, 0);
	assert_int_equal(a.deadline, SLICE_1CPU);
	assert_int_equal(a.slice, SLICE_1CPU);
	ts_enqueue_task(&cfs, &b, 0, 0, f);
	assert_ptr_equal(ts_pick_eevdf(&cfs, f), &a); /* equal deadlines: first inserted */
	ts_set_next_entity(&cfs, &a, 0);
	assert_true(ts_protect_slice(&a));
	r = ts_update_curr(&cfs, 300000, f);
	assert_int_equal(r.delta_exec, 300000);
	assert_false(r.slice_expired);
	assert_false(r.resched);
	r = ts_update_curr(&cfs, 300000, f); /* same clock: nothing */
	assert_int_equal(r.delta_exec, 0);
	r = ts_update_curr(&cfs, 700000, f);
	assert_true(r.slice_expired);
	assert_true(r.resched);
	assert_true(cfs.resched);
	assert_int_equal(a.vruntime, 700000);
	assert_int_equal(a.deadline, 1400000);
	assert_int_equal(a.sum_exec_runtime, 700000);
	assert_false(ts_protect_slice(&a)); /* the new deadline ends the protection */
	assert_int_equal(ts_avg_vruntime(&cfs), 350000);
	assert_cfs_ok(&cfs);
	ts_put_prev_entity(&cfs, &a, 700000, f);
	assert_ptr_equal(ts_pick_eevdf(&cfs, f), &b);
	assert_cfs_ok(&cfs);
	/* Alone on the queue: the slice renews without a resched. */
	ts_dequeue_task(&cfs, &b, 700000, TS_DEQUEUE_SLEEP, f);
	ts_set_next_entity(&cfs, &a, 700000);
	cfs.resched = false;
	r = ts_update_curr(&cfs, 1400000, f);
	assert_true(r.slice_expired);
	assert_false(r.resched);
	assert_cfs_ok(&cfs);
}

static void test_share_nice_0_5_m5(void **state)
{
	(void)state;
	const int nices[] = {0, 5, -5};
	check_shares(nices, 3, SLICE_1CPU, TICK, 20ULL * TS_NSEC_PER_SEC);
}

static void test_share_nice_0_10(void **state)
{
	(void)state;
	const int nices[] = {0, 10};
	check_shares(nices, 2, SLICE_1CPU, TICK, 20ULL * TS_NSEC_PER_SEC);
	/* 8-CPU slice (2.8 ms) with a 1 ms tick (HZ=1000) */
	check_shares(nices, 2, ts_sched_base_slice(8), TS_TICK_NSEC(1000ULL),
		     20ULL * TS_NSEC_PER_SEC);
}

static void test_share_equal(void **state)
{
	(void)state;
	const int nices[] = {0, 0, 0, 0};
	const int mixed[] = {-20, 19, 3, -7, 0, 12};
	check_shares(nices, 4, SLICE_1CPU, TICK, 10ULL * TS_NSEC_PER_SEC);
	/* nice 19/12 next to nice -20 get ~0.02%/0.07%: 1% of that is below one slice, so
	 * those are held to two slices of CPU time instead (the lag bound is ~ one request). */
	check_shares_tol(mixed, 6, ts_sched_base_slice(4), TICK, 60ULL * TS_NSEC_PER_SEC,
			 2 * ts_sched_base_slice(4));
}

/* The short sleeper: B waits while A and C use their slices, runs briefly and sleeps with
 * positive lag, wakes while A runs. Its lag survives (V' - v_B == vlag), A is no longer
 * eligible, and B preempts with WAKEUP_PREEMPTION, never without. */
static void short_sleeper_arr(struct ts_features f, bool expect_preempt)
{
	const uint64_t s = SLICE_1CPU;
	struct ts_cfs_rq cfs;
	struct ts_sched_entity e[3];
	struct ts_sched_entity *a = &e[0], *c = &e[1], *b = &e[2];
	uint64_t now = 0;
	int64_t vlag_before, vlag_after;

	ts_cfs_rq_init(&cfs, s, TICK);
	for (int i = 0; i < 3; i++)
		se_init_nice(&e[i], 0);
	ts_enqueue_task(&cfs, a, now, 0, f);
	ts_enqueue_task(&cfs, c, now, 0, f);
	ts_enqueue_task(&cfs, b, now, 0, f);
	assert_cfs_ok(&cfs);

	for (int i = 0; i < 2; i++) {
		struct ts_sched_entity *se = ts_pick_eevdf(&cfs, f);
		assert_ptr_equal(se, i == 0 ? a : c);
		ts_set_next_entity(&cfs, se, now);
		now += s;
		assert_true(ts_update_curr(&cfs, now, f).resched);
		ts_put_prev_entity(&cfs, se, now, f);
		cfs.resched = false;
		assert_cfs_ok(&cfs);
	}
	assert_ptr_equal(ts_pick_eevdf(&cfs, f), b);
	ts_set_next_entity(&cfs, b, now);
	now += s / 10;
	ts_dequeue_task(&cfs, b, now, TS_DEQUEUE_SLEEP, f);
	vlag_before = b->vlag;
	assert_close(vlag_before, (int64_t)(6 * s / 10), 1);
	ts_put_prev_entity(&cfs, b, now, f);
	assert_cfs_ok(&cfs);

	assert_ptr_equal(ts_pick_eevdf(&cfs, f), a);
	ts_set_next_entity(&cfs, a, now);
	now += s / 10;
	(void)ts_update_curr(&cfs, now, f);
	ts_enqueue_task(&cfs, b, now, TS_ENQUEUE_WAKEUP, f);
	assert_cfs_ok(&cfs);
	vlag_after = (int64_t)(ts_avg_vruntime(&cfs) - b->vruntime);
	assert_close(vlag_after, vlag_before, 2);
	assert_true(ts_entity_eligible(&cfs, b));
	assert_false(ts_entity_eligible(&cfs, a));
	assert_int_equal(b->deadline, b->vruntime + s);
	assert_true((int64_t)(b->deadline - a->deadline) < 0);
	check_pick_oracle(&cfs, e, 3, f);

	assert_int_equal(ts_wakeup_preempt(&cfs, b, now, 0, f), expect_preempt);
	assert_int_equal(cfs.resched, expect_preempt);
	assert_cfs_ok(&cfs);
}

static void test_short_sleeper_preempts(void **state)
{
	(void)state;
	short_sleeper_arr(ts_features_default(), true);
	/* RUN_TO_PARITY does not protect an ineligible curr */
	short_sleeper_arr(feats(BIT(TS_FEAT_RUN_TO_PARITY), 0), true);
	short_sleeper_arr(feats(0, BIT(TS_FEAT_WAKEUP_PREEMPTION)), false);
}

/* A and C (nice 0) share the CPU; C is curr, eligible, protected, 0.1 slice into its
 * request; B wakes with zero lag and an earlier deadline (nice -5, or a short custom
 * slice). Returns the preemption verdict, and checks what happens next. */
struct parity_case {
	int b_nice;
	uint64_t b_custom_slice; /* 0: base slice */
};

static bool parity_scenario(struct parity_case pc, struct ts_features f, bool *b_next)
{
	const uint64_t s = SLICE_1CPU;
	struct ts_cfs_rq cfs;
	struct ts_sched_entity e[3];
	struct ts_sched_entity *a = &e[0], *c = &e[1], *b = &e[2];
	uint64_t now = 0;
	bool preempt;

	ts_cfs_rq_init(&cfs, s, TICK);
	se_init_nice(a, 0);
	se_init_nice(c, 0);
	se_init_nice(b, pc.b_nice);
	if (pc.b_custom_slice) {
		b->custom_slice = true;
		b->slice = pc.b_custom_slice;
	}
	ts_enqueue_task(&cfs, a, now, 0, f);
	ts_enqueue_task(&cfs, c, now, 0, f);
	ts_set_next_entity(&cfs, ts_pick_eevdf(&cfs, f), now);
	assert_ptr_equal(cfs.curr, a);
	now += s;
	assert_true(ts_update_curr(&cfs, now, f).resched);
	ts_put_prev_entity(&cfs, a, now, f);
	cfs.resched = false;
	assert_ptr_equal(ts_pick_eevdf(&cfs, f), c);
	ts_set_next_entity(&cfs, c, now);
	now += s / 10;
	(void)ts_update_curr(&cfs, now, f);

	ts_enqueue_task(&cfs, b, now, TS_ENQUEUE_WAKEUP, f);
	assert_cfs_ok(&cfs);
	if (pc.b_custom_slice)
		assert_int_equal(b->slice, pc.b_custom_slice);
	assert_true(ts_entity_eligible(&cfs, b));
	assert_true(ts_entity_eligible(&cfs, c));
	assert_true((int64_t)(b->deadline - c->deadline) < 0);
	assert_true(ts_protect_slice(c));
	check_pick_oracle(&cfs, e, 3, f);

	preempt = ts_wakeup_preempt(&cfs, b, now, 0, f);
	assert_int_equal(cfs.resched, preempt);
	assert_cfs_ok(&cfs);
	if (!preempt) {
		/* curr keeps the CPU until its request is done, then B runs. */
		struct ts_update_curr_result r;
		/* (C turns ineligible on the way; protected, it is not rescheduled for it) */
		while (!(r = ts_update_curr(&cfs, now += s / 10, f)).resched)
			assert_false(r.slice_expired);
		assert_true(r.slice_expired);
	}
	ts_put_prev_entity(&cfs, c, now, f);
	cfs.resched = false;
	*b_next = ts_pick_next_entity(&cfs, f) == b;
	assert_cfs_ok(&cfs);
	return preempt;
}

static void test_wakeup_preempt_rules(void **state)
{
	(void)state;
	const struct parity_case heavy = {.b_nice = -5};
	const struct parity_case shorty = {.b_nice = 0, .b_custom_slice = SLICE_1CPU / 4};
	bool b_next;

	/* RUN_TO_PARITY (default): an eligible, protected curr keeps its slice. */
	assert_false(parity_scenario(heavy, ts_features_default(), &b_next));
	assert_true(b_next);
	/* NO_RUN_TO_PARITY: earliest eligible deadline wins at once. */
	assert_true(parity_scenario(heavy, feats(0, BIT(TS_FEAT_RUN_TO_PARITY)), &b_next));
	assert_true(b_next);
	/* NO_WAKEUP_PREEMPTION: never. */
	assert_false(parity_scenario(heavy, feats(0, BIT(TS_FEAT_WAKEUP_PREEMPTION)), &b_next));
	assert_false(parity_scenario(
		heavy, feats(0, BIT(TS_FEAT_WAKEUP_PREEMPTION) | BIT(TS_FEAT_RUN_TO_PARITY)),
		&b_next));
	/* PREEMPT_SHORT: a shorter request cancels the protection even under RUN_TO_PARITY. */
	assert_true(parity_scenario(shorty, ts_features_default(), &b_next));
	assert_false(parity_scenario(shorty, feats(0, BIT(TS_FEAT_PREEMPT_SHORT)), &b_next));
	assert_false(parity_scenario(shorty, feats(0, BIT(TS_FEAT_WAKEUP_PREEMPTION)), &b_next));
}

static void test_next_buddy(void **state)
{
	(void)state;
	struct ts_features f = feats(BIT(TS_FEAT_NEXT_BUDDY), BIT(TS_FEAT_WAKEUP_PREEMPTION));
	struct ts_cfs_rq cfs;
	struct ts_sched_entity e[3];

	ts_cfs_rq_init(&cfs, SLICE_1CPU, TICK);
	for (int i = 0; i < 3; i++) {
		se_init_nice(&e[i], 0);
		ts_enqueue_task(&cfs, &e[i], 0, 0, f);
	}
	ts_set_next_entity(&cfs, &e[0], 0);
	(void)ts_update_curr(&cfs, 100000, f);
	/* A fork does not nominate a buddy; a wakeup does. */
	assert_false(ts_wakeup_preempt(&cfs, &e[2], 100000, TS_WF_FORK, f));
	assert_null(cfs.next);
	assert_false(ts_wakeup_preempt(&cfs, &e[2], 100000, 0, f));
	assert_ptr_equal(cfs.next, &e[2]);
	assert_cfs_ok(&cfs);
	ts_put_prev_entity(&cfs, &e[0], 100000, f);
	assert_ptr_equal(ts_pick_eevdf(&cfs, f), &e[1]);       /* earlier in the tree */
	assert_ptr_equal(ts_pick_next_entity(&cfs, f), &e[2]); /* the eligible buddy */
	ts_set_next_entity(&cfs, &e[2], 100000);
	assert_null(cfs.next); /* cleared when picked */
	/* Without NEXT_BUDDY nothing is nominated. */
	ts_features_clear(&f, TS_FEAT_NEXT_BUDDY);
	assert_false(ts_wakeup_preempt(&cfs, &e[1], 100000, 0, f));
	assert_null(cfs.next);
	/* A dequeued buddy is cleared. */
	ts_features_set(&f, TS_FEAT_NEXT_BUDDY);
	assert_false(ts_wakeup_preempt(&cfs, &e[1], 100000, 0, f));
	assert_ptr_equal(cfs.next, &e[1]);
	ts_dequeue_task(&cfs, &e[1], 100000, TS_DEQUEUE_SLEEP, f);
	assert_null(cfs.next);
	assert_cfs_ok(&cfs);
}

static void test_place_initial(void **state)
{
	(void)state;
	struct ts_cfs_rq cfs;
	struct ts_sched_entity a, n1, n2;
	struct ts_features f = ts_features_default();
	struct ts_features nof = feats(0, BIT(TS_FEAT_PLACE_DEADLINE_INITIAL));

	ts_cfs_rq_init(&cfs, SLICE_1CPU, TICK);
	se_init_nice(&a, 0);
	se_init_nice(&n1, 5);
	se_init_nice(&n2, 5);
	ts_enqueue_task(&cfs, &a, 0, 0, f);
	ts_set_next_entity(&cfs, &a, 0);
	ts_enqueue_task(&cfs, &n1, 500000, TS_ENQUEUE_INITIAL, f);
	assert_int_equal(n1.vruntime, 500000); /* zero lag: joins at V = v_curr */
	assert_int_equal(n1.deadline - n1.vruntime, ts_calc_delta_fair(SLICE_1CPU, &n1) / 2);
	ts_enqueue_task(&cfs, &n2, 500000, TS_ENQUEUE_INITIAL, nof);
	assert_int_equal(n2.deadline - n2.vruntime, ts_calc_delta_fair(SLICE_1CPU, &n2));
	/* a zero-lag entity joins at V */
	assert_int_equal(n2.vruntime, 500000);
	assert_cfs_ok(&cfs);
}

/* Lags beyond calc_delta_fair(max(2 * slice, TICK_NSEC)) are clamped on dequeue; without
 * PLACE_LAG an entity comes back at V. */
static void test_lag_clamp(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_cfs_rq cfs;
	struct ts_sched_entity a, b, w;
	int64_t lim_a, lim_b;
	const uint64_t t = 100000000ULL;

	for (int pass = 0; pass < 2; pass++) {
		uint64_t tick = pass ? 1000000ULL : TICK; /* 2*slice vs tick dominates */
		ts_cfs_rq_init(&cfs, SLICE_1CPU, tick);
		se_init_nice(&a, -3);
		se_init_nice(&b, 7);
		se_init_nice(&w, 0);
		ts_enqueue_task(&cfs, &a, 0, 0, f);
		ts_enqueue_task(&cfs, &b, 0, 0, f);
		ts_enqueue_task(&cfs, &w, 0, 0, f);
		ts_set_next_entity(&cfs, &a, 0);
		/* The host ignores the resched: A runs 100 ms while B and W wait. */
		(void)ts_update_curr(&cfs, t, f);
		ts_dequeue_task(&cfs, &b, t, TS_DEQUEUE_SLEEP, f); /* far ahead: + clamp */
		ts_dequeue_task(&cfs, &a, t, TS_DEQUEUE_SLEEP, f); /* far behind: - clamp */
		lim_a = (int64_t)ts_calc_delta_fair(pass ? 2 * SLICE_1CPU : TICK, &a);
		lim_b = (int64_t)ts_calc_delta_fair(pass ? 2 * SLICE_1CPU : TICK, &b);
		assert_int_equal(b.vlag, lim_b);
		assert_int_equal(a.vlag, -lim_a);
		ts_put_prev_entity(&cfs, &a, t, f);
		assert_int_equal(cfs.nr_queued, 1);
		assert_cfs_ok(&cfs);
		/* A comes back with its (clamped) negative lag: not eligible, behind W. */
		ts_enqueue_task(&cfs, &a, t, TS_ENQUEUE_WAKEUP, f);
		assert_close((int64_t)(ts_avg_vruntime(&cfs) - a.vruntime), -lim_a, 2);
		assert_false(ts_entity_eligible(&cfs, &a));
		assert_ptr_equal(ts_pick_eevdf(&cfs, f), &w);
		assert_cfs_ok(&cfs);
	}
	/* NO_PLACE_LAG: placed at V regardless of vlag. */
	{
		struct ts_features nolag = feats(0, BIT(TS_FEAT_PLACE_LAG));
		uint64_t v = ts_avg_vruntime(&cfs);
		assert_true(b.vlag != 0);
		ts_enqueue_task(&cfs, &b, t, TS_ENQUEUE_WAKEUP, nolag);
		assert_int_equal(b.vruntime, v);
		assert_cfs_ok(&cfs);
	}
}

/* Lag is preserved across a dequeue/enqueue pair for entities of any weight, with other
 * entities of other weights queued. */
static void test_lag_preserved_weights(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_cfs_rq cfs;
	struct ts_sched_entity e[5];
	const int nices[5] = {0, -10, 10, 19, -20};
	struct sim s = {.se = e, .n = 5, .tick = TICK, .f = f};

	ts_cfs_rq_init(&s.cfs, SLICE_1CPU, TICK);
	(void)cfs;
	for (int i = 0; i < 5; i++) {
		se_init_nice(&e[i], nices[i]);
		ts_enqueue_task(&s.cfs, &e[i], 0, TS_ENQUEUE_INITIAL, f);
	}
	for (int round = 0; round < 50; round++) {
		int k = round % 5;
		int64_t before, after;
		sim_run(&s, s.now + UINT64_C(1000000) + (uint64_t)round * UINT64_C(37000));
		ts_dequeue_task(&s.cfs, &e[k], s.now, TS_DEQUEUE_SLEEP, f);
		before = e[k].vlag;
		assert_cfs_ok(&s.cfs);
		ts_enqueue_task(&s.cfs, &e[k], s.now, TS_ENQUEUE_WAKEUP, f);
		after = (int64_t)(ts_avg_vruntime(&s.cfs) - e[k].vruntime);
		assert_close(after, before, 2);
		assert_cfs_ok(&s.cfs);
	}
}

/* Randomized operations with the checker and the oracle after each one. */
static void stress(size_t n, unsigned int ops, unsigned int check_every, uint64_t seed)
{
	struct ts_sched_entity *e = calloc(n, sizeof(*e));
	struct ts_cfs_rq cfs;
	struct ts_features f = ts_features_default();
	struct ts_features fnp = feats(0, BIT(TS_FEAT_RUN_TO_PARITY));
	uint64_t now = 0;

	assert_non_null(e);
	rng_seed(seed);
	ts_cfs_rq_init(&cfs, ts_sched_base_slice(8), TICK);
	for (size_t i = 0; i < n; i++) {
		se_init_nice(&e[i], (int)rng_below(40) - 20);
		if (rng_below(8) == 0) {
			e[i].custom_slice = true;
			e[i].slice = 100000ULL + rng_below(5000000);
		}
	}
	for (unsigned int op = 0; op < ops; op++) {
		unsigned int kind = rng_below(n > 1000 && op < n ? 1 : 10);
		struct ts_sched_entity *se = &e[rng_below((unsigned int)n)];

		if (op < n && n > 1000)
			se = &e[op]; /* fill the big queue first */
		f.mask ^= (rng_below(16) == 0) ? (UINT64_C(1) << TS_FEAT_NEXT_BUDDY) : 0;

		if (kind <= 2) { /* enqueue */
			if (!se->on_rq) {
				static const int fl[4] = {0, TS_ENQUEUE_WAKEUP, TS_ENQUEUE_INITIAL,
							  TS_ENQUEUE_MIGRATED | TS_ENQUEUE_WAKEUP};
				bool was_curr = cfs.curr == se;
				bool lagged = cfs.nr_queued && se->vlag;
				int64_t vlag = se->vlag;
				ts_enqueue_task(&cfs, se, now, fl[rng_below(4)], f);
				if (!was_curr && lagged) {
					int64_t after =
						(int64_t)(ts_avg_vruntime(&cfs) - se->vruntime);
					assert_close(after, vlag, 2);
				}
			}
		} else if (kind <= 4) { /* dequeue */
			if (se->on_rq && !(n > 1000 && cfs.nr_queued < n / 2)) {
				static const int fl[3] = {TS_DEQUEUE_SLEEP, 0, TS_DEQUEUE_SAVE};
				uint64_t span;
				ts_dequeue_task(&cfs, se, now, fl[rng_below(3)], f);
				span = 2 * se->slice > TICK ? 2 * se->slice : TICK;
				assert_true(se->vlag <= (int64_t)ts_calc_delta_fair(span, se));
				assert_true(se->vlag >= -(int64_t)ts_calc_delta_fair(span, se));
			}
		} else if (kind <= 7) { /* run curr a while */
			now += rng_below(3000000);
			if (cfs.curr)
				(void)ts_update_curr(&cfs, now, f);
			if (cfs.resched || !cfs.curr || !cfs.curr->on_rq) {
				if (cfs.curr)
					ts_put_prev_entity(&cfs, cfs.curr, now, f);
				cfs.resched = false;
				if (cfs.nr_queued)
					ts_set_next_entity(&cfs, ts_pick_next_entity(&cfs, f), now);
			}
		} else if (kind == 8) { /* schedule */
			if (cfs.curr)
				ts_put_prev_entity(&cfs, cfs.curr, now, f);
			cfs.resched = false;
			if (cfs.nr_queued)
				ts_set_next_entity(&cfs, ts_pick_next_entity(&cfs, f), now);
		} else { /* wakeup preemption check against a queued entity */
			if (se->on_rq && cfs.curr && cfs.curr != se)
				(void)ts_wakeup_preempt(&cfs, se, now,
							rng_below(2) ? TS_WF_FORK : 0, f);
		}
		if (n > 1000 && op + 1 == n) {
			assert_int_equal(cfs.nr_queued + (cfs.curr && !cfs.curr->on_rq), n);
			assert_cfs_ok(&cfs);
		}
		if (op % check_every == 0 || op + 1 == ops) {
			assert_cfs_ok(&cfs);
			check_pick_oracle(&cfs, e, n, f);
			check_pick_oracle(&cfs, e, n, fnp);
			assert_int_equal(cfs.h_nr_queued, cfs.nr_queued);
			if (cfs.nr_queued == 0)
				assert_null(ts_pick_first_entity(&cfs));
		}
	}
	/* drain */
	if (cfs.curr)
		ts_put_prev_entity(&cfs, cfs.curr, now, f);
	for (size_t i = 0; i < n; i++) {
		size_t k = (i * 7919u) % n;
		if (e[k].on_rq)
			ts_dequeue_task(&cfs, &e[k], now, TS_DEQUEUE_SLEEP, f);
		if (i % check_every == 0)
			assert_cfs_ok(&cfs);
	}
	for (size_t i = 0; i < n; i++)
		if (e[i].on_rq)
			ts_dequeue_task(&cfs, &e[i], now, TS_DEQUEUE_SLEEP, f);
	assert_cfs_ok(&cfs);
	assert_int_equal(cfs.nr_queued, 0);
	assert_int_equal(cfs.load.weight, 0);
	assert_int_equal(cfs.avg_load, 0);
	assert_int_equal(cfs.avg_vruntime, 0);
	assert_null(cfs.tasks_timeline.root);
	free(e);
}

static void test_stress_small(void **state)
{
	(void)state;
	stress(7, 5000, 1, 42);
	stress(48, 5000, 1, 20240);
}

static void test_stress_10k(void **state)
{
	(void)state;
	stress(10000, 40000, 997, 7);
}

static void test_checker_catches(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_cfs_rq cfs;
	struct ts_sched_entity e[4];
	const char *why = NULL;

	ts_cfs_rq_init(&cfs, SLICE_1CPU, TICK);
	for (int i = 0; i < 4; i++) {
		se_init_nice(&e[i], i);
		ts_enqueue_task(&cfs, &e[i], 0, 0, f);
	}
	assert_int_equal(ts_cfs_rq_check(&cfs, &why), 0);
	cfs.avg_load++;
	assert_int_equal(ts_cfs_rq_check(&cfs, &why), -EINVAL);
	assert_non_null(why);
	cfs.avg_load--;
	e[1].min_vruntime += 12345;
	assert_int_equal(ts_cfs_rq_check(&cfs, &why), -EINVAL);
	e[1].min_vruntime -= 12345;
	cfs.nr_queued++;
	assert_int_equal(ts_cfs_rq_check(&cfs, NULL), -EINVAL);
	cfs.nr_queued--;
	assert_int_equal(ts_cfs_rq_check(&cfs, NULL), 0);
}

/* ---- reweight_entity() / reweight_eevdf() ---------------------------------------------- */

/* X (nice 0, lag +L) and Y (nice 0, lag -L) queued on an empty queue with min_vruntime 0,
 * base slice 4000 and TICK 10000 (lag limit 10000): X.v = 0, X.d = 4000; Y placed with
 * vlag -L inflated by (W + w) / W = 2: Y.v = 2L, Y.d = 2L + 4000; V = L. */
static void rw_setup(struct ts_cfs_rq *cfs, struct ts_sched_entity *x, struct ts_sched_entity *y,
		     int64_t L)
{
	struct ts_features f = ts_features_default();
	ts_cfs_rq_init(cfs, 4000, 10000);
	ts_sched_entity_init(x);
	ts_sched_entity_init(y);
	ts_enqueue_task(cfs, x, 0, 0, f);
	y->vlag = -L;
	ts_enqueue_task(cfs, y, 0, 0, f);
	assert_int_equal(x->vruntime, 0);
	assert_int_equal(x->deadline, 4000);
	assert_int_equal(y->vruntime, 2 * L);
	assert_int_equal(y->deadline, 2 * L + 4000);
	assert_int_equal(ts_avg_vruntime(cfs), L);
	x->cfs_rq = y->cfs_rq = cfs;
}

static void test_reweight_queued(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_cfs_rq cfs;
	struct ts_sched_entity x, y;

	/* X 1024 -> 2048: v' = V - (V - v) * w / w' = 1000 - 1000 / 2 = 500,
	 * d' = V + (d - V) * w / w' = 1000 + 3000 / 2 = 2500; V stays 1000, and the lag
	 * w * (V - v) = 1024000 is preserved. min_vruntime follows the leftmost: 500. */
	rw_setup(&cfs, &x, &y, 1000);
	ts_reweight_entity(&cfs, &x, 2048, 0, f);
	assert_int_equal(x.vruntime, 500);
	assert_int_equal(x.deadline, 2500);
	assert_int_equal(x.load.weight, 2048);
	assert_int_equal(cfs.load.weight, 3072);
	assert_int_equal(cfs.avg_load, 3072);
	assert_int_equal(ts_avg_vruntime(&cfs), 1000);
	assert_int_equal(2048 * (1000 - 500), 1024 * (1000 - 0));
	assert_int_equal(cfs.min_vruntime, 500);
	assert_int_equal(cfs.avg_vruntime, (2000 - 500) * 1024);
	assert_cfs_ok(&cfs);

	/* Y 1024 -> 512 (negative lag): v' = 1000 + 1000 * 2 = 3000, d' = 1000 + 5000 * 2 */
	rw_setup(&cfs, &x, &y, 1000);
	ts_reweight_entity(&cfs, &y, 512, 0, f);
	assert_int_equal(y.vruntime, 3000);
	assert_int_equal(y.deadline, 11000);
	assert_int_equal(ts_avg_vruntime(&cfs), 1000);
	assert_int_equal(cfs.min_vruntime, 0);
	assert_cfs_ok(&cfs);

	/* div_s64() truncates toward zero: X -> 3072: 1000 * 1024 / 3072 = 333.3 -> 333,
	 * v' = 667, d' = 1000 + 1000; Y -> 3072: -333.3 -> -333, v' = 1333,
	 * d' = 1000 + 5000 / 3 = 1000 + 1666 */
	rw_setup(&cfs, &x, &y, 1000);
	ts_reweight_entity(&cfs, &x, 3072, 0, f);
	assert_int_equal(x.vruntime, 667);
	assert_int_equal(x.deadline, 2000);
	assert_cfs_ok(&cfs);
	rw_setup(&cfs, &x, &y, 1000);
	ts_reweight_entity(&cfs, &y, 3072, 0, f);
	assert_int_equal(y.vruntime, 1333);
	assert_int_equal(y.deadline, 2666);
	assert_cfs_ok(&cfs);

	/* the lag is clamped first (entity_lag(): +-calc_delta_fair(max(2 * 4000, 10000)) =
	 * +-10000): L = 20000, X's lag 20000 -> 10000, / 2 -> v' = 20000 - 5000 = 15000,
	 * d' = 20000 + (4000 - 20000) / 2 = 12000 */
	rw_setup(&cfs, &x, &y, 20000);
	ts_reweight_entity(&cfs, &x, 2048, 0, f);
	assert_int_equal(x.vruntime, 15000);
	assert_int_equal(x.deadline, 12000);
	assert_cfs_ok(&cfs);
}

/* curr is outside the tree but in V: the same rescale; its slice protection (the deadline
 * stash) does not survive the new deadline, as in v6.12. */
static void test_reweight_curr(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_cfs_rq cfs;
	struct ts_sched_entity x, y;
	rw_setup(&cfs, &x, &y, 1000);
	ts_set_next_entity(&cfs, &x, 50);
	assert_true(ts_protect_slice(&x));
	ts_reweight_entity(&cfs, &x, 2048, 50, f);
	assert_ptr_equal(cfs.curr, &x);
	assert_int_equal(x.vruntime, 500);
	assert_int_equal(x.deadline, 2500);
	assert_int_equal(cfs.load.weight, 3072);
	assert_int_equal(cfs.avg_load, 1024); /* the tree: Y only */
	assert_int_equal(ts_avg_vruntime(&cfs), 1000);
	assert_false(ts_protect_slice(&x));
	assert_cfs_ok(&cfs);
	/* curr charged first (update_curr()): 1000 ns at weight 1024 -> v = 1000, V = 1500;
	 * then to 512: the lag 500 doubles, v' = 1500 - 1000 = 500, d' = 1500 + 2500 * 2 */
	rw_setup(&cfs, &x, &y, 1000);
	ts_set_next_entity(&cfs, &x, 50);
	ts_reweight_entity(&cfs, &x, 512, 1050, f);
	assert_int_equal(x.sum_exec_runtime, 1000);
	assert_int_equal(x.vruntime, 500);
	assert_int_equal(x.deadline, 6500);
	assert_int_equal(ts_avg_vruntime(&cfs), 1500);
	assert_cfs_ok(&cfs);
}

/* A dequeued entity: vlag * w / w' (toward zero), and the PELT part: load_avg =
 * w' * load_sum / divider moved in the queue's sums. */
static void test_reweight_dequeued(void **state)
{
	(void)state;
	struct ts_features f = ts_features_default();
	struct ts_cfs_rq cfs;
	struct ts_sched_entity se;
	ts_cfs_rq_init(&cfs, 4000, 10000);
	ts_sched_entity_init(&se);
	se.vlag = -1001;
	se.avg.load_sum = 23000;		/* period_contrib 0: divider 46718 */
	se.avg.load_avg = 1024 * 23000 / 46718; /* 504 */
	cfs.avg.load_avg = 504;
	cfs.avg.load_sum = 1024ULL * 23000;
	ts_reweight_entity(&cfs, &se, 2048, 0, f);
	assert_int_equal(se.vlag, -500); /* -500.5 */
	assert_int_equal(se.load.weight, 2048);
	assert_int_equal(se.avg.load_avg, 1008); /* 2048 * 23000 / 46718 = 1008.3 */
	assert_int_equal(cfs.avg.load_avg, 1008);
	assert_int_equal(cfs.avg.load_sum, 2048ULL * 23000);
	assert_int_equal(cfs.load.weight, 0); /* not queued: no queue weight */
	se.vlag = 700;
	ts_reweight_entity(&cfs, &se, 1024, 0, f);
	assert_int_equal(se.vlag, 1400);
}

/* set_user_nice() of a queued task: ts_set_load_weight() reweights in place. */
static void test_set_load_weight_queued(void **state)
{
	(void)state;
	struct ts_cfs_rq cfs;
	struct ts_sched_entity x, y;
	rw_setup(&cfs, &x, &y, 1000);
	assert_int_equal(ts_set_load_weight(&x, -5), 0);
	assert_int_equal(x.load.weight, 3121);
	assert_int_equal(x.load.inv_weight, ts_sched_prio_to_wmult[15]);
	/* v' = 1000 - 1000 * 1024 / 3121 (328.1) = 672, d' = 1000 + 3000 * 1024 / 3121 (984.3) */
	assert_int_equal(x.vruntime, 672);
	assert_int_equal(x.deadline, 1984);
	assert_int_equal(cfs.load.weight, 3121 + 1024);
	assert_cfs_ok(&cfs);
	/* and back, at another queue position: Y to nice 5 */
	assert_int_equal(ts_set_load_weight(&y, 5), 0);
	assert_int_equal(y.load.weight, 335);
	assert_cfs_ok(&cfs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weight_tables),
		cmocka_unit_test(test_calc_delta_fair),
		cmocka_unit_test(test_base_slice),
		cmocka_unit_test(test_update_curr_deadline),
		cmocka_unit_test(test_share_nice_0_5_m5),
		cmocka_unit_test(test_share_nice_0_10),
		cmocka_unit_test(test_share_equal),
		cmocka_unit_test(test_short_sleeper_preempts),
		cmocka_unit_test(test_wakeup_preempt_rules),
		cmocka_unit_test(test_next_buddy),
		cmocka_unit_test(test_place_initial),
		cmocka_unit_test(test_lag_clamp),
		cmocka_unit_test(test_lag_preserved_weights),
		cmocka_unit_test(test_stress_small),
		cmocka_unit_test(test_stress_10k),
		cmocka_unit_test(test_checker_catches),
		cmocka_unit_test(test_reweight_queued),
		cmocka_unit_test(test_reweight_curr),
		cmocka_unit_test(test_reweight_dequeued),
		cmocka_unit_test(test_set_load_weight_queued),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
