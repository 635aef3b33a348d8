/* The simulator's event queue and PRNG: ordering, virtual time, reproducibility. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/event_queue.h"
#include "sim/rng.h"

static void test_order_time_then_seq(void **state)
{
	(void)state;
	struct ts_event_queue q;
	assert_int_equal(ts_eq_init(&q, 2), 0);
	const uint64_t times[] = {50, 10, 50, 30, 10, 50};
	for (int i = 0; i < 6; i++)
		assert_int_equal(ts_eq_push(&q, (struct ts_event){.time = times[i], .kind = i}), 0);
	/* same time: scheduling order */
	const int want_kind[] = {1, 4, 3, 0, 2, 5};
	struct ts_event ev;
	for (int i = 0; i < 6; i++) {
		assert_true(ts_eq_pop(&q, &ev));
		assert_int_equal(ev.kind, want_kind[i]);
		assert_int_equal(q.now, ev.time);
	}
	assert_false(ts_eq_pop(&q, &ev));
	/* virtual time never goes backwards */
	assert_int_equal(ts_eq_push(&q, (struct ts_event){.time = 49}), -EINVAL);
	assert_int_equal(ts_eq_push(&q, (struct ts_event){.time = 50}), 0);
	ts_eq_destroy(&q);
}

static void test_random_heap_is_sorted(void **state)
{
	(void)state;
	struct ts_event_queue q;
	struct ts_rng r;
	ts_rng_seed(&r, 42);
	assert_int_equal(ts_eq_init(&q, 0), 0);
	uint64_t last_time = 0, last_seq = 0;
	int popped = 0;
	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < 100; i++) {
			struct ts_event ev = {.time = q.now + ts_rng_below(&r, 1000)};
			assert_int_equal(ts_eq_push(&q, ev), 0);
		}
		for (int i = 0; i < 60; i++) {
			struct ts_event ev = {0}; /* gcc -O3 cannot see that pop fills it */
			assert_true(ts_eq_pop(&q, &ev));
			assert_true(ev.time > last_time ||
				    (ev.time == last_time && ev.seq > last_seq) || popped == 0);
			last_time = ev.time;
			last_seq = ev.seq;
			popped++;
		}
	}
	assert_int_equal(q.count, 200 * 40);
	ts_eq_destroy(&q);
}

static void test_rng_reproducible(void **state)
{
	(void)state;
	struct ts_rng a, b, c;
	ts_rng_seed(&a, 7);
	ts_rng_seed(&b, 7);
	ts_rng_seed(&c, 8);
	int same_c = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = ts_rng_next(&a);
		assert_int_equal(x, ts_rng_next(&b));
		same_c += x == ts_rng_next(&c);
	}
	assert_int_equal(same_c, 0);
	assert_int_not_equal(ts_rng_derive(1, 0), ts_rng_derive(1, 1));
	assert_int_not_equal(ts_rng_derive(1, 0), ts_rng_derive(2, 0));
	assert_int_equal(ts_rng_derive(5, 9), ts_rng_derive(5, 9));
}

static void test_rng_distributions(void **state)
{
	(void)state;
	struct ts_rng r;
	ts_rng_seed(&r, 123);
	int bins[10] = {0};
	double sum = 0;
	const int n = 100000;
	for (int i = 0; i < n; i++) {
		uint64_t v = ts_rng_below(&r, 10);
		assert_true(v < 10);
		bins[v]++;
		double u = ts_rng_unit(&r);
		assert_true(u >= 0.0 && u < 1.0);
		sum += ts_rng_exp(&r, 250.0);
	}
	for (int i = 0; i < 10; i++) /* fixed seed: 5 sigma is a loose, deterministic bound */
		assert_true(bins[i] > n / 10 - 500 && bins[i] < n / 10 + 500);
	double mean = sum / n;
	assert_true(mean > 245.0 && mean < 255.0);
	assert_int_equal(ts_rng_below(&r, 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_time_then_seq),
		cmocka_unit_test(test_random_heap_is_sorted),
		cmocka_unit_test(test_rng_reproducible),
		cmocka_unit_test(test_rng_distributions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
