/* PELT: decay_load() against the kernel's table arithmetic, integer-exact hand-computed
 * updates, convergence of busy / duty-cycled / blocked entities independent of the update
 * step, weight scaling, a cfs_rq equal to the sum of its entities, attach/detach round trips
 * and clamps, and the bounds of every sum over random timelines. All inputs are fixed or
 * come from a fixed-seed generator; nothing is timed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "toposched/pelt.h"

#include "test_support.h" /* rng_seed(), rng() */

#define NSEC_PER_MSEC 1000000ULL
#define PELT_PERIOD_NS                                                                             \
	(UINT64_C(1024) * UINT64_C(1024)) /* one PELT period: 1024 units of 1024 ns */
#define NICE_0	 1024UL
#define NICE_M5	 3121UL /* sched_prio_to_weight[15], nice -5 */
#define NICE_5	 335UL	/* sched_prio_to_weight[25], nice 5 */
#define NICE_M20 88761UL

/* |a - b| <= tol on unsigned values, with both values in the message. */
#define assert_close(a, b, tol)                                                                    \
	do {                                                                                       \
		unsigned long long a_ = (a), b_ = (b), t_ = (tol);                                 \
		if ((a_ > b_ ? a_ - b_ : b_ - a_) > t_)                                            \
			fail_msg("%s = %llu, %s = %llu: differ by more than %llu", #a, a_, #b, b_, \
				 t_);                                                              \
	} while (0)

static uint64_t rng_between(uint64_t lo, uint64_t hi)
{
	return lo + rng() % (hi - lo + 1);
}

/* ---- decay_load() ---------------------------------------------------------------------- */

static void test_decay_load_table(void **state)
{
	(void)state;
	/* decay_load(2^32, k) is runnable_avg_yN_inv[k] itself (the high word times the entry),
	 * which must be floor(2^32 * y^k) with y = 2^(-1/32); entry 0 is 0xffffffff, not 2^32. */
	for (unsigned k = 0; k < TS_LOAD_AVG_PERIOD; k++) {
		uint64_t entry = ts_decay_load(1ULL << 32, k);
		double exact = ldexp(pow(2.0, -(double)k / TS_LOAD_AVG_PERIOD), 32);
		if (fabs((double)entry - floor(exact)) > 1.0)
			fail_msg("yN_inv[%u] = %#llx, floor(2^32 y^%u) = %.1f", k,
				 (unsigned long long)entry, k, floor(exact));
	}
	assert_int_equal(ts_decay_load(1ULL << 32, 0), 0xffffffffULL);
	assert_int_equal(ts_decay_load(1ULL << 32, 1), 0xfa83b2daULL);
	assert_int_equal(ts_decay_load(1ULL << 32, 16), 0xb504f333ULL); /* 2^31.5 */
	assert_int_equal(ts_decay_load(1ULL << 32, 31), 0x82cd8698ULL);
}

static void test_decay_load_known_values(void **state)
{
	(void)state;
	/* n = 1: (1024 * 0xfa83b2da) >> 32 = 4202935002 >> 22 = 1002 (1024 y = 1002.05). */
	assert_int_equal(ts_decay_load(1024, 1), 1002);
	/* LOAD_AVG_MAX * y == PELT_MIN_DIVIDER in this arithmetic (the divider's premise). */
	assert_int_equal(ts_decay_load(TS_LOAD_AVG_MAX, 1), TS_PELT_MIN_DIVIDER);

	/* n = 32: 1024 >> 1 = 512, then 512 * 0xffffffff >> 32 = 511. The kernel's y^0 entry
	 * is 1 - 2^-32, so every multiple of 32 periods loses one more unit than an exact
	 * halving: decay_load(1024, 32) is 511, not 512. */
	assert_int_equal(ts_decay_load(1024, 32), 511);
	assert_close(ts_decay_load(1024, 32), 512, 1);
	assert_int_equal(ts_decay_load(1 << 20, 32), (1 << 19) - 1);
	assert_int_equal(ts_decay_load(1024, 64), 255);

	/* n = 0 is the identity up to that same unit: v - ceil(v / 2^32). The kernel never
	 * decays by 0 periods (accumulate_sum() only decays when periods != 0). */
	static const uint64_t vals[] = {
		0, 1, 2, 1024, TS_LOAD_AVG_MAX, 0xffffffffULL, 1ULL << 32, 1ULL << 40, UINT64_MAX};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t v = vals[i];
		uint64_t want = v - (v >> 32) - ((v & 0xffffffffULL) ? 1 : 0);
		assert_int_equal(ts_decay_load(v, 0), want);
	}

	/* Past LOAD_AVG_PERIOD * 63 = 2016 periods everything is gone, even UINT64_MAX (and n
	 * is bound-checked before it is narrowed to 32 bits). */
	assert_int_equal(ts_decay_load(1024, 2016), 0);
	assert_int_equal(ts_decay_load(UINT64_MAX, 2017), 0);
	assert_int_equal(ts_decay_load(UINT64_MAX, UINT64_MAX), 0);
	assert_int_equal(ts_decay_load(UINT64_MAX, (1ULL << 32) + 1), 0);
	/* ... but not before: UINT64_MAX >> 62 = 3, 3 * 0xffffffff >> 32 = 2. */
	assert_int_equal(ts_decay_load(UINT64_MAX, 62 * 32), 2);

	for (uint64_t n = 0; n < 40; n++)
		assert_int_equal(ts_decay_load(0, n), 0);
}

static void test_decay_load_properties(void **state)
{
	(void)state;
	/* Monotone in n, and y^(a+b) ~ y^a y^b within the truncations. */
	static const uint64_t vals[] = {1024, TS_LOAD_AVG_MAX, (uint64_t)TS_LOAD_AVG_MAX << 10,
					(uint64_t)TS_LOAD_AVG_MAX * NICE_M20, 1ULL << 50};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t v = vals[i], prev = ts_decay_load(v, 0);
		for (uint64_t n = 1; n <= 2020; n++) {
			uint64_t d = ts_decay_load(v, n);
			if (d > prev)
				fail_msg("decay_load(%llu, %llu) = %llu > %llu at n - 1",
					 (unsigned long long)v, (unsigned long long)n,
					 (unsigned long long)d, (unsigned long long)prev);
			prev = d;
		}
		for (uint64_t n = 1; n < 64; n++) {
			double exact = (double)v * pow(2.0, -(double)n / 32.0);
			double got = (double)ts_decay_load(v, n);
			/* each halving step may drop one unit, plus the final truncation */
			if (got > exact * (1 + 1e-12) ||
			    exact - got > (double)(n / 32) + 2.0 + exact * 1e-9)
				fail_msg("decay_load(%llu, %llu) = %.0f, exact %.3f",
					 (unsigned long long)v, (unsigned long long)n, got, exact);
		}
	}
}

static void test_accumulate_pelt_segments(void **state)
{
	(void)state;
	/* p = 1: c1 = decay(d1, 1), c2 = 47742 - 46718 - 1024 = 0, c3 = d3. */
	assert_int_equal(ts_accumulate_pelt_segments(1, 1024, 0), 1002);
	assert_int_equal(ts_accumulate_pelt_segments(1, 724, 500), 708 + 500);
	/* p = 2: c2 = 1024 y = 47742 - decay(47742, 2) - 1024 */
	assert_int_equal(ts_accumulate_pelt_segments(2, 0, 0),
			 TS_LOAD_AVG_MAX - ts_decay_load(TS_LOAD_AVG_MAX, 2) - 1024);
	assert_close(ts_accumulate_pelt_segments(2, 0, 0), 1002, 1);
	/* Past 2016 periods, c1 = 0 and c2 saturates at PELT_MIN_DIVIDER. */
	assert_int_equal(ts_accumulate_pelt_segments(5000, 1024, 17), TS_PELT_MIN_DIVIDER + 17);
}

/* ---- hand-computed updates ------------------------------------------------------------- */

static void test_hand_one_period(void **state)
{
	(void)state;
	struct ts_sched_avg sa = {0};

	/* A nice-0 task, queued and running from t = 0 to exactly 1024 * 1024 ns.
	 *  ___update_load_sum: delta = 1048576 ns >> 10 = 1024 units, last_update_time =
	 *    1024 << 10 = 1048576.
	 *  accumulate_sum: delta + period_contrib(0) = 1024 -> periods = 1, d3 = 1024 % 1024
	 *    = 0; old sums are 0, so decaying them changes nothing.
	 *  __accumulate_pelt_segments(1, d1 = 1024 - 0, d3 = 0):
	 *    c1 = decay_load(1024, 1) = 1024 * 0xfa83b2da >> 32 = 1002
	 *    c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, 1) - 1024 = 47742 - 46718 - 1024 = 0
	 *    c3 = d3 = 0                    -> contrib = 1002 (the whole period is "1 ago")
	 *  load_sum = 1 * 1002, runnable_sum = util_sum = 1002 << 10 = 1026048,
	 *  period_contrib = 0.
	 *  ___update_load_avg: divider = PELT_MIN_DIVIDER + 0 = 46718;
	 *    load_avg = 1024 * 1002 / 46718 = 1026048 / 46718 = 21 (21.96),
	 *    runnable_avg = util_avg = 1026048 / 46718 = 21. */
	assert_int_equal(ts_update_load_avg_se(PELT_PERIOD_NS, &sa, NICE_0, 1, 1, 1), 1);
	assert_int_equal(sa.last_update_time, 1048576);
	assert_int_equal(sa.period_contrib, 0);
	assert_int_equal(sa.load_sum, 1002);
	assert_int_equal(sa.runnable_sum, 1026048);
	assert_int_equal(sa.util_sum, 1026048);
	assert_int_equal(ts_pelt_divider(&sa), 46718);
	assert_int_equal(sa.load_avg, 21);
	assert_int_equal(sa.runnable_avg, 21);
	assert_int_equal(sa.util_avg, 21);
}

static void test_hand_partial_segments(void **state)
{
	(void)state;
	struct ts_sched_avg sa = {0};

	/* Sub-unit steps do nothing: 1023 ns >> 10 = 0; the remainder is kept by not moving
	 * last_update_time. 1500 ns is one unit: last_update_time moves to 1024, not 1500. */
	assert_int_equal(ts_update_load_avg_se(1023, &sa, NICE_0, 1, 1, 1), 0);
	assert_int_equal(sa.last_update_time, 0);
	assert_int_equal(sa.load_sum, 0);
	assert_int_equal(ts_update_load_avg_se(1500, &sa, NICE_0, 1, 1, 1), 0);
	assert_int_equal(sa.last_update_time, 1024);
	assert_int_equal(sa.load_sum, 1);
	assert_int_equal(sa.period_contrib, 1);
	memset(&sa, 0, sizeof(sa));

	/* Step 1: t = 300 * 1024 ns. 300 units, no boundary: contrib = delta = 300,
	 *   load_sum = 300, util_sum = runnable_sum = 300 << 10 = 307200, period_contrib =
	 *   300; returns 0 and the averages stay 0. */
	assert_int_equal(ts_update_load_avg_se(300 * 1024, &sa, NICE_0, 1, 1, 1), 0);
	assert_int_equal(sa.load_sum, 300);
	assert_int_equal(sa.util_sum, 307200);
	assert_int_equal(sa.runnable_sum, 307200);
	assert_int_equal(sa.period_contrib, 300);
	assert_int_equal(sa.util_avg, 0);
	assert_int_equal(sa.load_avg, 0);

	/* Step 2: t = 1524 * 1024 ns. delta = 1224 units, + period_contrib 300 = 1524:
	 *   periods = 1, d3 = 1524 % 1024 = 500, d1 = 1024 - 300 = 724.
	 *   Step 1 decay: load_sum = 300 * 0xfa83b2da >> 32 = 293,
	 *                 util_sum = 307200 * 0xfa83b2da >> 32 = 300617.
	 *   contrib = decay_load(724, 1) + 0 + 500 = 708 + 500 = 1208.
	 *   load_sum = 293 + 1208 = 1501; util_sum = 300617 + (1208 << 10) = 1537609.
	 *   divider = 46718 + 500 = 47218; util_avg = 1537609 / 47218 = 32 (32.56),
	 *   load_avg = 1024 * 1501 / 47218 = 1537024 / 47218 = 32 (32.55). */
	assert_int_equal(ts_update_load_avg_se(1524 * 1024, &sa, NICE_0, 1, 1, 1), 1);
	assert_int_equal(sa.period_contrib, 500);
	assert_int_equal(sa.load_sum, 1501);
	assert_int_equal(sa.util_sum, 1537609);
	assert_int_equal(sa.runnable_sum, 1537609);
	assert_int_equal(ts_pelt_divider(&sa), 47218);
	assert_int_equal(sa.util_avg, 32);
	assert_int_equal(sa.load_avg, 32);
	/* Re-averaging with nice -5's weight: 3121 * 1501 / 47218 = 99. */
	ts_update_load_avg(&sa, NICE_M5);
	assert_int_equal(sa.load_avg, 99);
}

static void test_flags_and_clock(void **state)
{
	(void)state;
	struct ts_sched_avg sa = {0};

	/* Dequeued but still curr (the kernel's newidle corner case): !load forces running
	 * and runnable to 0, so only decay happens. */
	assert_int_equal(ts_update_load_avg_se(PELT_PERIOD_NS, &sa, NICE_0, 0, 1, 1), 1);
	assert_int_equal(sa.load_sum, 0);
	assert_int_equal(sa.util_sum, 0);
	assert_int_equal(sa.runnable_sum, 0);

	/* Delayed dequeue: on_rq (load accrues) but not runnable. */
	memset(&sa, 0, sizeof(sa));
	assert_int_equal(ts_update_load_avg_se(PELT_PERIOD_NS, &sa, NICE_0, 1, 0, 0), 1);
	assert_int_equal(sa.load_sum, 1002);
	assert_int_equal(sa.runnable_sum, 0);
	assert_int_equal(sa.util_sum, 0);

	/* Runnable, waiting: runnable without running. */
	memset(&sa, 0, sizeof(sa));
	assert_int_equal(ts_update_load_avg_se(PELT_PERIOD_NS, &sa, NICE_0, 1, 1, 0), 1);
	assert_int_equal(sa.runnable_sum, 1002 << 10);
	assert_int_equal(sa.util_sum, 0);

	/* The clock going backwards resynchronises and changes nothing else. */
	struct ts_sched_avg before = sa;
	assert_int_equal(ts_update_load_avg_se(1000, &sa, NICE_0, 1, 1, 1), 0);
	assert_int_equal(sa.last_update_time, 1000);
	assert_int_equal(sa.load_sum, before.load_sum);
	assert_int_equal(sa.util_sum, before.util_sum);
	assert_int_equal(sa.period_contrib, before.period_contrib);
}

/* ---- time lines ------------------------------------------------------------------------ */

/* Runs an always-busy nice-0 entity to `end`, updating it at steps drawn by `step`. */
enum step_kind { STEP_1MS, STEP_PERIOD, STEP_4MS, STEP_IRREGULAR, STEP_TINY, STEP_ONE };

static uint64_t next_step(enum step_kind k)
{
	switch (k) {
	case STEP_1MS:
		return NSEC_PER_MSEC;
	case STEP_PERIOD:
		return PELT_PERIOD_NS;
	case STEP_4MS:
		return 4 * NSEC_PER_MSEC;
	case STEP_IRREGULAR:
		return rng_between(1000, 3 * NSEC_PER_MSEC);
	case STEP_TINY:
		return rng_between(1, 50000);
	case STEP_ONE:
		break;
	}
	return UINT64_MAX / 4;
}

static void run_busy(struct ts_sched_avg *sa, enum step_kind k, uint64_t end)
{
	memset(sa, 0, sizeof(*sa));
	rng_seed(0x9e11 + (uint64_t)k);
	for (uint64_t t = 0; t < end;) {
		uint64_t s = next_step(k);
		t = (s > end - t) ? end : t + s;
		ts_update_load_avg_se(t, sa, NICE_0, 1, 1, 1);
	}
}

static void test_always_running_converges(void **state)
{
	(void)state;
	static const enum step_kind kinds[] = {STEP_1MS,       STEP_PERIOD, STEP_4MS,
					       STEP_IRREGULAR, STEP_TINY,   STEP_ONE};
	const uint64_t end = 500 * NSEC_PER_MSEC;
	unsigned long lo = ~0UL, hi = 0;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct ts_sched_avg sa;
		run_busy(&sa, kinds[i], end);
		/* 500 ms = 476.8 periods: 1 - y^476 leaves 3e-5 of the way to go, so only the
		 * truncations separate util_avg from 1024; 1% (>= 1014) is a loose bound. */
		assert_in_range(sa.util_avg, 1014, 1024);
		assert_in_range(sa.runnable_avg, 1014, 1024);
		assert_in_range(sa.load_avg, 1014, 1024);
		assert_true(sa.util_sum <= (uint32_t)TS_LOAD_AVG_MAX << 10);
		lo = sa.util_avg < lo ? sa.util_avg : lo;
		hi = sa.util_avg > hi ? sa.util_avg : hi;
	}
	/* Step size (1 us .. 500 ms at once) changes the result by at most 2. */
	assert_true(hi - lo <= 2);
}

/* A task that runs `run_ns` then sleeps `sleep_ns`, updated at every transition and every
 * `tick_ns` (the kernel's entity_tick while running; blocked-load updates while asleep).
 * Each update accounts the elapsed interval with the state it had, as the kernel does by
 * calling update_load_avg() before dequeue and before enqueue. */
struct duty_stats {
	unsigned long min, max;
	double mean;
	struct ts_sched_avg sa;
};

static void run_duty(uint64_t run_ns, uint64_t sleep_ns, uint64_t tick_ns, unsigned long weight,
		     uint64_t warmup, uint64_t end, struct duty_stats *st)
{
	struct ts_sched_avg *sa = &st->sa;
	uint64_t t = 0, cycle = run_ns + sleep_ns;
	double sum = 0;
	unsigned long n = 0;

	memset(st, 0, sizeof(*st));
	st->min = ~0UL;
	while (t < end) {
		uint64_t pos = t % cycle;
		int running = pos < run_ns;
		uint64_t edge = t - pos + (running ? run_ns : cycle);
		uint64_t next = t + tick_ns < edge ? t + tick_ns : edge;

		if (running)
			ts_update_load_avg_se(next, sa, weight, 1, 1, 1);
		else
			ts_update_load_avg_blocked_se(next, sa, weight);
		t = next;
		if (t >= warmup) {
			st->min = sa->util_avg < st->min ? sa->util_avg : st->min;
			st->max = sa->util_avg > st->max ? sa->util_avg : st->max;
			sum += (double)sa->util_avg;
			n++;
		}
	}
	st->mean = sum / (double)n;
}

static void test_duty_cycle_half(void **state)
{
	(void)state;
	struct duty_stats st;

	/* 4 ms on / 4 ms off. Over a half cycle the signal moves by a factor q = y^(4 ms /
	 * 1.048576 ms) = 2^(-3.815/32) = 0.9206, so the steady state swings between
	 * 1024 q / (1 + q) = 490.8 at the end of a sleep and 1024 / (1 + q) = 533.2 at the end
	 * of a run: it oscillates +-21 around 512 and never settles on it. The sampled minimum
	 * dips a little lower because a sleeping entity's sum stops growing while the divider
	 * still grows with period_contrib: an average refreshed late in a period reads up to
	 * 46718 / 47741 of the true value (490.8 -> 480.3), minus 1-2 for truncation. Hence
	 * [478, 536]. The time-mean of the symmetric swing is 512; the same truncations pull
	 * it down by about 1, so +-4. */
	run_duty(4 * NSEC_PER_MSEC, 4 * NSEC_PER_MSEC, NSEC_PER_MSEC, NICE_0, 200 * NSEC_PER_MSEC,
		 1200 * NSEC_PER_MSEC, &st);
	assert_in_range(st.min, 478, 512);
	assert_in_range(st.max, 512, 536);
	if (fabs(st.mean - 512.0) > 4.0)
		fail_msg("4/4 ms duty cycle: mean util_avg %.2f, want 512 +- 4", st.mean);

	/* Same cycle updated only at the transitions: the same band and mean, so the result
	 * does not hinge on the update rate. */
	run_duty(4 * NSEC_PER_MSEC, 4 * NSEC_PER_MSEC, 4 * NSEC_PER_MSEC, NICE_0,
		 200 * NSEC_PER_MSEC, 1200 * NSEC_PER_MSEC, &st);
	assert_in_range(st.min, 478, 512);
	assert_in_range(st.max, 512, 536);
	if (fabs(st.mean - 512.0) > 4.0)
		fail_msg("4/4 ms at transitions: mean util_avg %.2f, want 512 +- 4", st.mean);

	/* 1 ms on / 1 ms off (the kernel's tick granularity): q = 0.9796, swing 506.7 ..
	 * 517.3, dip to 495.9: [494, 520]. */
	run_duty(NSEC_PER_MSEC, NSEC_PER_MSEC, NSEC_PER_MSEC, NICE_0, 200 * NSEC_PER_MSEC,
		 1200 * NSEC_PER_MSEC, &st);
	assert_in_range(st.min, 494, 512);
	assert_in_range(st.max, 512, 520);
	if (fabs(st.mean - 512.0) > 4.0)
		fail_msg("1/1 ms duty cycle: mean util_avg %.2f, want 512 +- 4", st.mean);

	/* 25% duty cycle for contrast: settles near 256. */
	run_duty(NSEC_PER_MSEC, 3 * NSEC_PER_MSEC, NSEC_PER_MSEC, NICE_0, 200 * NSEC_PER_MSEC,
		 1200 * NSEC_PER_MSEC, &st);
	if (fabs(st.mean - 256.0) > 4.0)
		fail_msg("1/3 ms duty cycle: mean util_avg %.2f, want 256 +- 4", st.mean);
}

static void test_blocked_decay_halves(void **state)
{
	(void)state;
	struct ts_sched_avg sa;

	run_busy(&sa, STEP_IRREGULAR, 300 * NSEC_PER_MSEC);
	/* Force a fresh average at the current position, then block for exactly 32 periods:
	 * periods = (32 * 1024 + period_contrib) / 1024 = 32 and period_contrib (hence the
	 * divider) is unchanged, so util_sum -> decay_load(util_sum, 32) = util_sum / 2 - 1
	 * and util_avg halves within one unit. */
	ts_update_load_avg(&sa, NICE_0);
	uint64_t t = sa.last_update_time;
	struct ts_sched_avg b = sa;

	assert_int_equal(ts_update_load_avg_blocked_se(t + 32 * PELT_PERIOD_NS, &sa, NICE_0), 1);
	assert_int_equal(sa.period_contrib, b.period_contrib);
	assert_int_equal(sa.util_sum, b.util_sum / 2 - 1);
	assert_int_equal(sa.load_sum, b.load_sum / 2 - 1);
	assert_close(sa.util_avg, b.util_avg / 2, 1);
	assert_close(sa.load_avg, b.load_avg / 2, 1);
	assert_close(sa.runnable_avg, b.runnable_avg / 2, 1);

	/* Another 32 periods in many small blocked steps: a quarter, within 2. */
	for (int i = 1; i <= 320; i++)
		ts_update_load_avg_blocked_se(
			t + 32 * PELT_PERIOD_NS + (uint64_t)i * PELT_PERIOD_NS / 10, &sa, NICE_0);
	assert_close(sa.util_avg, b.util_avg / 4, 2);

	/* After LOAD_AVG_PERIOD * 63 periods nothing is left. */
	ts_update_load_avg_blocked_se(t + 2100 * PELT_PERIOD_NS, &sa, NICE_0);
	assert_int_equal(sa.load_sum, 0);
	assert_int_equal(sa.util_sum, 0);
	assert_int_equal(sa.runnable_sum, 0);
	assert_int_equal(sa.util_avg, 0);
	assert_int_equal(sa.load_avg, 0);
}

static void test_load_avg_scales_with_weight(void **state)
{
	(void)state;
	struct duty_stats a, b;

	/* Same 60% duty cycle, nice 0 against nice -5: identical unweighted sums and util; the
	 * load average carries the weight, to within a truncation of the lighter one. */
	run_duty(3 * NSEC_PER_MSEC, 2 * NSEC_PER_MSEC, NSEC_PER_MSEC, NICE_0, 0,
		 700 * NSEC_PER_MSEC + 12345, &a);
	run_duty(3 * NSEC_PER_MSEC, 2 * NSEC_PER_MSEC, NSEC_PER_MSEC, NICE_M5, 0,
		 700 * NSEC_PER_MSEC + 12345, &b);
	assert_int_equal(a.sa.load_sum, b.sa.load_sum);
	assert_int_equal(a.sa.util_sum, b.sa.util_sum);
	assert_int_equal(a.sa.util_avg, b.sa.util_avg);
	assert_int_equal(b.sa.load_avg, NICE_M5 * b.sa.load_sum / ts_pelt_divider(&b.sa));
	assert_close(b.sa.load_avg, NICE_M5 * a.sa.load_avg / NICE_0, NICE_M5 / NICE_0 + 1);
	assert_close(a.sa.load_avg, 614, 40); /* ~60% of 1024, mid-oscillation */

	/* Always busy: load_avg converges to the weight itself. */
	struct ts_sched_avg sa = {0};
	for (uint64_t t = NSEC_PER_MSEC; t <= 500 * NSEC_PER_MSEC; t += NSEC_PER_MSEC)
		ts_update_load_avg_se(t, &sa, NICE_M5, 1, 1, 1);
	assert_in_range(sa.load_avg, NICE_M5 * 99 / 100, NICE_M5);
	assert_in_range(sa.util_avg, 1014, 1024);
}

/* ---- cfs_rq ---------------------------------------------------------------------------- */

struct ent {
	struct ts_sched_avg sa;
	unsigned long weight;
	int queued;
};

/* Ages every entity and the cfs_rq to `now` with the states of the interval just ended:
 * update_load_avg() on each se, then on the cfs_rq. */
static void age_all(struct ts_sched_avg *cfs, struct ent *e, int n, int curr, uint64_t now)
{
	unsigned long load = 0, nr = 0;

	for (int i = 0; i < n; i++) {
		if (e[i].queued) {
			ts_update_load_avg_se(now, &e[i].sa, e[i].weight, 1, 1, i == curr);
			load += e[i].weight;
			nr++;
		} else {
			ts_update_load_avg_blocked_se(now, &e[i].sa, e[i].weight);
		}
	}
	ts_update_load_avg_cfs_rq(now, cfs, load, nr, curr >= 0);
}

static void sum_of(const struct ent *e, int n, unsigned long *load, unsigned long *run,
		   unsigned long *util)
{
	*load = *run = *util = 0;
	for (int i = 0; i < n; i++) {
		*load += e[i].sa.load_avg;
		*run += e[i].sa.runnable_avg;
		*util += e[i].sa.util_avg;
	}
}

/* Three entities on one cfs_rq: A (nice 0) and B (nice -5) always queued, taking turns on
 * the CPU every 2 ms; C (nice 5) queued for 3 ms out of every 7 and otherwise asleep
 * (blocked, still contributing while it decays). Shared by the next two tests. */
static void step_three(struct ts_sched_avg *cfs, struct ent *e, uint64_t t, uint64_t now)
{
	int slot = (int)((t / (2 * NSEC_PER_MSEC)) % 3);
	int curr = slot;

	if (curr == 2 && !e[2].queued)
		curr = 0;
	age_all(cfs, e, 3, curr, now);
	e[2].queued = (now % (7 * NSEC_PER_MSEC)) < 3 * NSEC_PER_MSEC;
}

static void test_cfs_rq_is_sum_of_entities(void **state)
{
	(void)state;
	struct ts_sched_avg cfs = {0};
	struct ent e[3] = {
		{.weight = NICE_0, .queued = 1},
		{.weight = NICE_M5, .queued = 1},
		{.weight = NICE_5, .queued = 1},
	};
	unsigned long load, run, util;
	int checked = 0;

	for (int i = 0; i < 3; i++)
		ts_attach_entity_load_avg(&cfs, &e[i].sa, e[i].weight);
	rng_seed(7);
	for (uint64_t t = 0; t < 800 * NSEC_PER_MSEC;) {
		uint64_t now = t + rng_between(50000, 1500000);
		step_three(&cfs, e, t, now);
		t = now;
		sum_of(e, 3, &load, &run, &util);
		/* Same clock, so everybody shares period_contrib and refreshes together. */
		for (int i = 0; i < 3; i++)
			assert_int_equal(e[i].sa.period_contrib, cfs.period_contrib);
		/* Linear up to truncation: per-entity floors (<= 1 each) and decay truncation of
		 * the weighted sum (w * floor(x y) vs floor(w x y), < w per period, geometric
		 * over 1/(1 - y) = 47 periods: < 47 w / 46718 ~ w / 1000 in average units). */
		assert_close(cfs.util_avg, util, 3);
		assert_close(cfs.runnable_avg, run, 3);
		assert_close(cfs.load_avg, load, 3 + (NICE_0 + NICE_M5 + NICE_5) / 1000 + 1);
		checked++;
	}
	assert_true(checked > 500);
	/* A and B split the CPU with C: the cfs_rq is fully busy and util ~ 1024. */
	assert_in_range(cfs.util_avg, 1000, 1024);
	assert_true(cfs.runnable_avg > cfs.util_avg);
}

/* ---- attach / detach ------------------------------------------------------------------- */

static void assert_sa_equal(const struct ts_sched_avg *a, const struct ts_sched_avg *b)
{
	assert_int_equal(a->last_update_time, b->last_update_time);
	assert_int_equal(a->period_contrib, b->period_contrib);
	assert_int_equal(a->load_sum, b->load_sum);
	assert_int_equal(a->runnable_sum, b->runnable_sum);
	assert_int_equal(a->util_sum, b->util_sum);
	assert_int_equal(a->load_avg, b->load_avg);
	assert_int_equal(a->runnable_avg, b->runnable_avg);
	assert_int_equal(a->util_avg, b->util_avg);
}

static void test_attach_detach_round_trip(void **state)
{
	(void)state;
	struct ts_sched_avg cfs = {0};
	struct ent e[3] = {
		{.weight = NICE_0, .queued = 1},
		{.weight = NICE_M5, .queued = 1},
		{.weight = NICE_5, .queued = 1},
	};
	uint64_t t = 0;

	for (int i = 0; i < 3; i++)
		ts_attach_entity_load_avg(&cfs, &e[i].sa, e[i].weight);
	for (; t < 300 * NSEC_PER_MSEC; t += 700000)
		step_three(&cfs, e, t, t + 700000);

	/* A migrating task M with its own history, on another CPU's clock (different phase). */
	struct duty_stats m;
	run_duty(2 * NSEC_PER_MSEC, 3 * NSEC_PER_MSEC, NSEC_PER_MSEC, NICE_M5, 0,
		 150 * NSEC_PER_MSEC + 333333, &m);
	assert_true(m.sa.period_contrib != cfs.period_contrib);

	/* update_load_avg(DO_ATTACH): the cfs_rq is current; attach aligns M to it. */
	struct ts_sched_avg before = cfs, mig = m.sa;
	uint32_t divider = ts_pelt_divider(&cfs);
	ts_attach_entity_load_avg(&cfs, &mig, NICE_M5);
	assert_int_equal(mig.last_update_time, cfs.last_update_time);
	assert_int_equal(mig.period_contrib, cfs.period_contrib);
	assert_int_equal(mig.util_sum, m.sa.util_avg * divider);
	assert_int_equal(mig.runnable_sum, m.sa.runnable_avg * divider);
	assert_int_equal(mig.load_sum, m.sa.load_avg * divider / NICE_M5);
	assert_int_equal(mig.load_avg, m.sa.load_avg); /* averages move unchanged */
	assert_int_equal(mig.util_avg, m.sa.util_avg);
	assert_int_equal(cfs.load_avg, before.load_avg + mig.load_avg);
	assert_int_equal(cfs.util_avg, before.util_avg + mig.util_avg);
	assert_int_equal(cfs.runnable_avg, before.runnable_avg + mig.runnable_avg);
	assert_int_equal(cfs.load_sum, before.load_sum + NICE_M5 * mig.load_sum);
	assert_int_equal(cfs.util_sum, before.util_sum + mig.util_sum);
	assert_int_equal(cfs.runnable_sum, before.runnable_sum + mig.runnable_sum);

	/* Detach straight away: the cfs_rq is back where it was, bit for bit (the floors do
	 * not bind, since a freshly averaged sum is >= avg * divider >= avg * MIN_DIVIDER). */
	ts_detach_entity_load_avg(&cfs, &mig, NICE_M5);
	assert_sa_equal(&cfs, &before);

	/* Attach, let M sleep on this cfs_rq for 40 ms (it decays inside the cfs_rq's sums and
	 * in its own), then detach: the cfs_rq matches a twin that never saw M, within the
	 * truncations of decaying the sum of two histories instead of each one. */
	struct ts_sched_avg twin = cfs;
	struct ent e2[3];
	memcpy(e2, e, sizeof(e));
	mig = m.sa;
	ts_attach_entity_load_avg(&cfs, &mig, NICE_M5);
	uint64_t t0 = t;
	for (; t < t0 + 40 * NSEC_PER_MSEC; t += 700000) {
		step_three(&cfs, e, t, t + 700000);
		step_three(&twin, e2, t, t + 700000);
		ts_update_load_avg_blocked_se(t + 700000, &mig, NICE_M5);
	}
	assert_int_equal(mig.last_update_time, cfs.last_update_time);
	ts_detach_entity_load_avg(&cfs, &mig, NICE_M5);
	assert_close(cfs.util_avg, twin.util_avg, 2);
	assert_close(cfs.runnable_avg, twin.runnable_avg, 2);
	assert_close(cfs.load_avg, twin.load_avg, 2 + NICE_M5 / 1000);
	assert_close(cfs.util_sum, twin.util_sum, 2 * ts_pelt_divider(&twin));
	assert_close(cfs.load_sum, twin.load_sum, (2 + NICE_M5 / 1000) * ts_pelt_divider(&twin));
}

static void test_detach_clamps(void **state)
{
	(void)state;

	/* Detaching more than is there clamps every field at 0 (sub_positive), and the floors
	 * are then 0 too. */
	struct ts_sched_avg cfs = {.last_update_time = 1 << 20,
				   .period_contrib = 100,
				   .load_sum = 1000,
				   .runnable_sum = 2000,
				   .util_sum = 3000,
				   .load_avg = 1,
				   .runnable_avg = 2,
				   .util_avg = 3};
	struct ts_sched_avg se = {.load_sum = 40000,
				  .runnable_sum = 40000 << 10,
				  .util_sum = 40000 << 10,
				  .load_avg = 900,
				  .runnable_avg = 900,
				  .util_avg = 900};
	ts_detach_entity_load_avg(&cfs, &se, NICE_0);
	assert_int_equal(cfs.load_sum, 0);
	assert_int_equal(cfs.runnable_sum, 0);
	assert_int_equal(cfs.util_sum, 0);
	assert_int_equal(cfs.load_avg, 0);
	assert_int_equal(cfs.runnable_avg, 0);
	assert_int_equal(cfs.util_avg, 0);
	assert_int_equal(cfs.last_update_time, 1 << 20);

	/* A se whose sums run ahead of its averages (rounding) must not drag the cfs_rq's sums
	 * below avg * PELT_MIN_DIVIDER: util_avg 100 - 10 = 90 keeps util_sum >= 90 * 46718. */
	struct ts_sched_avg c2 = {.period_contrib = 10,
				  .util_avg = 100,
				  .util_sum = 100 * (TS_PELT_MIN_DIVIDER + 10) + 5,
				  .runnable_avg = 100,
				  .runnable_sum = 100 * (TS_PELT_MIN_DIVIDER + 10) + 5,
				  .load_avg = 100,
				  .load_sum = 100 * (TS_PELT_MIN_DIVIDER + 10) + 5};
	struct ts_sched_avg s2 = {.util_avg = 10,
				  .util_sum = 10 * TS_PELT_MIN_DIVIDER + 4000,
				  .runnable_avg = 10,
				  .runnable_sum = 10 * TS_PELT_MIN_DIVIDER + 4000,
				  .load_avg = 10,
				  .load_sum = 10 * TS_PELT_MIN_DIVIDER + 4000};
	ts_detach_entity_load_avg(&c2, &s2, 1);
	assert_int_equal(c2.util_avg, 90);
	assert_int_equal(c2.util_sum, 90 * TS_PELT_MIN_DIVIDER);
	assert_int_equal(c2.runnable_sum, 90 * TS_PELT_MIN_DIVIDER);
	assert_int_equal(c2.load_sum, 90 * TS_PELT_MIN_DIVIDER);

	/* The floor is taken in the sum's own width: a runqueue with ~100 runnable tasks has
	 * runnable_avg * PELT_MIN_DIVIDER > 2^32, which must not wrap. */
	struct ts_sched_avg c3 = {.runnable_avg = 101 * 1024,
				  .runnable_sum = 101ULL * 1024 * TS_PELT_MIN_DIVIDER};
	struct ts_sched_avg s3 = {.runnable_avg = 1024,
				  .runnable_sum = 1024ULL * TS_PELT_MIN_DIVIDER + 5000};
	ts_detach_entity_load_avg(&c3, &s3, NICE_0);
	assert_int_equal(c3.runnable_avg, 100 * 1024);
	assert_int_equal(c3.runnable_sum, 100ULL * 1024 * TS_PELT_MIN_DIVIDER);
	assert_true(c3.runnable_sum > UINT32_MAX);
}

static void test_attach_corner_cases(void **state)
{
	(void)state;
	/* load_avg 1 on a nice -20 entity: load_avg * divider = 46718 < 88761, so the rebuilt
	 * load_sum would truncate to 0 with load_avg != 0; attach keeps it at 1
	 * (kernel commit 40f5aa4c5eae). */
	struct ts_sched_avg cfs = {.last_update_time = 5 << 20};
	struct ts_sched_avg se = {.load_avg = 1, .util_avg = 0, .load_sum = 12345};
	ts_attach_entity_load_avg(&cfs, &se, NICE_M20);
	assert_int_equal(se.load_sum, 1);
	assert_int_equal(cfs.load_avg, 1);
	/* ... so the cfs_rq's load_sum is not 0 under a non-zero load_avg either. */
	assert_int_equal(cfs.load_sum, NICE_M20 * 1);
	assert_int_equal(se.last_update_time, 5 << 20);

	/* A brand-new entity (all zero) attaches as nothing, except load_sum = 1. */
	struct ts_sched_avg c2 = {0}, s2 = {0};
	ts_attach_entity_load_avg(&c2, &s2, NICE_0);
	assert_int_equal(s2.load_sum, 1);
	assert_int_equal(c2.load_sum, NICE_0);
	assert_int_equal(c2.load_avg, 0);
	assert_int_equal(c2.util_sum, 0);

	/* A zero weight (impossible in the kernel) must not divide by zero. */
	struct ts_sched_avg c3 = {0}, s3 = {.load_avg = 5};
	ts_attach_entity_load_avg(&c3, &s3, 0);
	assert_int_equal(s3.load_sum, 1);
	assert_int_equal(c3.load_avg, 5);
}

/* ---- bounds ---------------------------------------------------------------------------- */

/* How far a weighted or << 10 sum can run ahead of weight * divider. The c2 term of
 * __accumulate_pelt_segments() is computed at unit scale (LOAD_AVG_MAX - decay_load(
 * LOAD_AVG_MAX, p) - 1024, truncated down, so c2 itself is rounded up), and only then
 * multiplied by the weight or shifted by SCHED_CAPACITY_SHIFT: each period crossing can put
 * the sum up to one weight-unit ahead, and old excess decays by y per period, so the total
 * stays below 1 / (1 - y) = 46.7 weight-units. The unweighted entity load_sum has no such
 * slack: it is <= divider by induction (decay_load(a) + decay_load(b) <= decay_load(a + b)).
 * This is the kernel's arithmetic, not ours: an adversarial but legal update schedule
 * drives util_avg to 1025 (found by a greedy search, excess 47134 / 1024 = 46 units), so
 * the averages are bounded by full scale + 1, not full scale. */
#define SUM_SLACK_UNITS 47ULL

static void test_sums_bounded(void **state)
{
	(void)state;
	static const unsigned long weights[] = {15, NICE_5, NICE_0, NICE_M5, NICE_M20};

	rng_seed(0xb0b);
	for (int round = 0; round < 40; round++) {
		unsigned long w = weights[round % 5];
		struct ts_sched_avg se = {0}, cfs = {0};
		uint64_t t = rng_between(0, 1ULL << 40);
		unsigned long max_load = 0, max_nr = 0;

		se.last_update_time = cfs.last_update_time = t;
		for (int i = 0; i < 3000; i++) {
			/* mostly short steps, sometimes very long ones */
			uint64_t step = (rng() % 16) ? rng_between(0, 3 * PELT_PERIOD_NS)
						     : rng_between(0, 3000 * PELT_PERIOD_NS);
			int on_rq = (int)(rng() % 4 != 0);
			int runnable = on_rq && (rng() % 5 != 0);
			int running = runnable && (rng() % 2);
			unsigned long load = rng_between(0, 8) * w, nr = rng_between(0, 8);

			t += step;
			if (on_rq)
				ts_update_load_avg_se(t, &se, w, on_rq, (unsigned long)runnable,
						      running);
			else
				ts_update_load_avg_blocked_se(t, &se, w);
			ts_update_load_avg_cfs_rq(t, &cfs, load, nr, running);
			max_load = load > max_load ? load : max_load;
			max_nr = nr > max_nr ? nr : max_nr;

			uint64_t div = ts_pelt_divider(&se);
			assert_int_equal(div, ts_pelt_divider(&cfs)); /* same clock */
			assert_true(se.period_contrib < 1024);
			/* entity, unweighted: never above the divider, so never above
			 * LOAD_AVG_MAX, and load_avg never above the weight */
			assert_true(se.load_sum <= div);
			assert_true(se.load_sum < TS_LOAD_AVG_MAX);
			assert_true(se.load_avg <= w);
			/* entity, << 10 sums: the slack above */
			assert_true(se.runnable_sum <= (div + SUM_SLACK_UNITS) << 10);
			assert_true(se.util_sum <= (div + SUM_SLACK_UNITS) << 10);
			assert_true(se.util_sum <= se.runnable_sum); /* running within runnable */
			assert_true(se.runnable_avg <= TS_SCHED_CAPACITY_SCALE + 1);
			assert_true(se.util_avg <= TS_SCHED_CAPACITY_SCALE + 1);
			/* cfs_rq: weighted by the largest weight / count it ever held */
			assert_true(cfs.load_sum <= (div + SUM_SLACK_UNITS) * max_load);
			assert_true(cfs.runnable_sum <= ((div + SUM_SLACK_UNITS) * max_nr) << 10);
			assert_true(cfs.util_sum <= (div + SUM_SLACK_UNITS) << 10);
			assert_true(cfs.load_avg <= max_load + max_load / 990 + 1);
			assert_true(cfs.runnable_avg <= (TS_SCHED_CAPACITY_SCALE + 1) * max_nr);
			assert_true(cfs.util_avg <= TS_SCHED_CAPACITY_SCALE + 1);
		}
	}
}

/* ---- hierarchy propagation and removed load (fair.c) ----------------------------------- */

#define DIV0 46718ULL /* PELT_MIN_DIVIDER + period_contrib 0 */

/* update_tg_cfs_util(): the group entity takes its group cfs_rq's util, the parent the
 * difference (avg and sum, sum rebuilt with the parent's divider). */
static void test_update_tg_cfs_util(void **state)
{
	(void)state;
	struct ts_sched_avg cfs = {0}, se = {0}, g = {0};
	g.util_avg = 300;
	se.util_avg = 100;
	se.util_sum = (uint32_t)(100 * DIV0);
	cfs.util_avg = 500;
	cfs.util_sum = (uint32_t)(500 * DIV0);
	ts_update_tg_cfs_util(&cfs, &se, &g);
	assert_int_equal(se.util_avg, 300);
	assert_int_equal(se.util_sum, 300 * DIV0);
	assert_int_equal(cfs.util_avg, 700);
	assert_int_equal(cfs.util_sum, 700 * DIV0);
	/* runnable the same way */
	g.runnable_avg = 2048;
	se.runnable_avg = 1024;
	se.runnable_sum = 1024 * DIV0;
	cfs.runnable_avg = 3072;
	cfs.runnable_sum = 3072 * DIV0;
	ts_update_tg_cfs_runnable(&cfs, &se, &g);
	assert_int_equal(se.runnable_avg, 2048);
	assert_int_equal(cfs.runnable_avg, 4096);
	assert_int_equal(cfs.runnable_sum, 4096 * DIV0);
	/* nothing to do when equal */
	ts_update_tg_cfs_util(&cfs, &se, &g);
	assert_int_equal(cfs.util_avg, 700);
}

/* update_tg_cfs_load(): added runnable is added to the entity's load_sum and clipped at
 * the divider; removed runnable is estimated from the group cfs_rq's load_sum / weight and
 * never inflates the entity's; never below the entity's running sum. */
static void test_update_tg_cfs_load(void **state)
{
	(void)state;
	struct ts_sched_avg cfs = {0}, se = {0}, g = {0};
	long prop = 10000;
	se.load_sum = 20000;
	se.load_avg = 438;
	se.util_sum = 5000 << 10; /* running sum 5000 */
	cfs.load_avg = 1000;
	cfs.load_sum = 1000 * DIV0;
	ts_update_tg_cfs_load(&cfs, &se, 1024, &g, 0, &prop);
	assert_int_equal(prop, 0);
	assert_int_equal(se.load_sum, 30000);
	assert_int_equal(se.load_avg, 657); /* 1024 * 30000 / 46718 = 657.6 */
	assert_int_equal(cfs.load_avg, 1000 + 219);
	assert_int_equal(cfs.load_sum, 1000 * DIV0 + 1024 * 10000);
	/* clipped at the divider */
	prop = 40000;
	ts_update_tg_cfs_load(&cfs, &se, 1024, &g, 0, &prop);
	assert_int_equal(se.load_sum, DIV0);
	assert_int_equal(se.load_avg, 1024);
	/* removed: the group rq holds 2048 * 15000, i.e. 15000 per unit of weight */
	prop = -5000;
	g.load_sum = 2048 * 15000;
	se.load_sum = 20000;
	ts_update_tg_cfs_load(&cfs, &se, 1024, &g, 2048, &prop);
	assert_int_equal(se.load_sum, 15000);
	assert_int_equal(se.load_avg, 328); /* 1024 * 15000 / 46718 = 328.8 */
	/* an empty group rq: the running sum is the floor */
	prop = -5000;
	ts_update_tg_cfs_load(&cfs, &se, 1024, &g, 0, &prop);
	assert_int_equal(se.load_sum, 5000);
	assert_int_equal(se.load_avg, 109); /* 1024 * 5000 / 46718 = 109.6 */
	/* nothing pending: nothing changes */
	prop = 0;
	ts_update_tg_cfs_load(&cfs, &se, 1024, &g, 0, &prop);
	assert_int_equal(se.load_sum, 5000);
}

/* remove_entity_load_avg() + the removed part of update_cfs_rq_load_avg(). */
static void test_removed_load(void **state)
{
	(void)state;
	struct ts_removed_load r;
	memset(&r, 0, sizeof(r));
	struct ts_sched_avg sa = {0}, gone = {0};
	sa.load_avg = 1000;
	sa.load_sum = 1000 * DIV0;
	sa.util_avg = 500;
	sa.util_sum = (uint32_t)(500 * DIV0);
	sa.runnable_avg = 700;
	sa.runnable_sum = 700 * DIV0;
	gone.load_avg = 300;
	gone.util_avg = 100;
	gone.runnable_avg = 200;
	long prop = 1;
	assert_int_equal(ts_apply_removed_load(&sa, &r, &prop), 0);
	assert_int_equal(prop, 0);
	ts_remove_entity_load_avg(&r, &gone);
	assert_int_equal(atomic_load(&r.nr), 1);
	assert_int_equal(ts_apply_removed_load(&sa, &r, &prop), 1);
	assert_int_equal(sa.load_avg, 700);
	assert_int_equal(sa.load_sum, 700 * DIV0);
	assert_int_equal(sa.util_avg, 400);
	assert_int_equal(sa.runnable_avg, 500);
	assert_int_equal(sa.runnable_sum, 500 * DIV0);
	/* -(200 * 46718) >> 10 = floor(-9124.6) */
	assert_int_equal(prop, -9125);
	assert_int_equal(atomic_load(&r.nr), 0);
	assert_int_equal(atomic_load(&r.load_avg), 0);
	assert_int_equal(ts_apply_removed_load(&sa, &r, &prop), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decay_load_table),
		cmocka_unit_test(test_decay_load_known_values),
		cmocka_unit_test(test_decay_load_properties),
		cmocka_unit_test(test_accumulate_pelt_segments),
		cmocka_unit_test(test_hand_one_period),
		cmocka_unit_test(test_hand_partial_segments),
		cmocka_unit_test(test_flags_and_clock),
		cmocka_unit_test(test_always_running_converges),
		cmocka_unit_test(test_duty_cycle_half),
		cmocka_unit_test(test_blocked_decay_halves),
		cmocka_unit_test(test_load_avg_scales_with_weight),
		cmocka_unit_test(test_cfs_rq_is_sum_of_entities),
		cmocka_unit_test(test_attach_detach_round_trip),
		cmocka_unit_test(test_detach_clamps),
		cmocka_unit_test(test_attach_corner_cases),
		cmocka_unit_test(test_sums_bounded),
		cmocka_unit_test(test_update_tg_cfs_util),
		cmocka_unit_test(test_update_tg_cfs_load),
		cmocka_unit_test(test_removed_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
