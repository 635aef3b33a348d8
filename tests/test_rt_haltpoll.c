/* The idle polling of the runtime's workers (src/rt/park.c) is the policy of the kernel's
 * cpuidle haltpoll governor (drivers/cpuidle/governors/haltpoll.c): haltpoll_select() and
 * adjust_poll_limit() with the defaults of its module parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt/rt_internal.h"

/* A worker starts without polling; the first short park grows the limit to grow_start,
 * then it doubles up to guest_halt_poll_ns and stays there. */
static void test_grow_from_zero_to_the_cap(void **state)
{
	(void)state;
	struct rt_haltpoll hp = {0};
	assert_false(rt_haltpoll_select(&hp));
	rt_haltpoll_adjust(&hp, 10000);
	assert_int_equal(hp.poll_limit_ns, RT_HALT_POLL_GROW_START);
	assert_true(rt_haltpoll_select(&hp));
	rt_haltpoll_adjust(&hp, RT_HALT_POLL_GROW_START + 1);
	assert_int_equal(hp.poll_limit_ns, 2 * RT_HALT_POLL_GROW_START);
	rt_haltpoll_adjust(&hp, 2 * RT_HALT_POLL_GROW_START + 1);
	assert_int_equal(hp.poll_limit_ns, RT_HALT_POLL_NS);
	rt_haltpoll_adjust(&hp, RT_HALT_POLL_NS);
	assert_int_equal(hp.poll_limit_ns, RT_HALT_POLL_NS);
}

/* A park no longer than the limit says nothing (the poll would not have caught it either
 * way); a park longer than guest_halt_poll_ns halves the limit. */
static void test_keep_and_shrink(void **state)
{
	(void)state;
	struct rt_haltpoll hp = {.poll_limit_ns = 100000};
	rt_haltpoll_adjust(&hp, 99000);
	assert_int_equal(hp.poll_limit_ns, 100000);
	rt_haltpoll_adjust(&hp, RT_HALT_POLL_NS + 1);
	assert_int_equal(hp.poll_limit_ns, 50000);
	rt_haltpoll_adjust(&hp, 1000000000);
	assert_int_equal(hp.poll_limit_ns, 25000);
}

/* After a poll that timed out the next idle period parks at once; after a poll that saw
 * work, or after a park, it polls again. */
static void test_select_after_poll(void **state)
{
	(void)state;
	struct rt_haltpoll hp = {.poll_limit_ns = 50000, .last_polled = true};
	hp.poll_time_limit = true;
	assert_false(rt_haltpoll_select(&hp));
	hp.poll_time_limit = false;
	assert_true(rt_haltpoll_select(&hp));
	hp.last_polled = false;
	hp.poll_time_limit = true;
	assert_true(rt_haltpoll_select(&hp));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_from_zero_to_the_cap),
		cmocka_unit_test(test_keep_and_shrink),
		cmocka_unit_test(test_select_after_poll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
