/* Opt-in preemption (ts_rt_config.preempt) on one worker: a task spinning on
 * ts_cond_resched() no longer starves a ready one, and without the option it does. No
 * assertion on time: each case waits for an event or counts iterations. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "test_support.h"
#include "toposched/runtime_core.h"

static atomic_bool ready_ran;

static void *ready_task(void *arg)
{
	(void)arg;
	atomic_store(&ready_ran, true);
	return NULL;
}

/* Spawns the ready task onto this (only) worker and spins until it has run, or for at
 * most `limit` preemption points; returns whether it ran meanwhile. */
static void *spinner(void *arg)
{
	long limit = (long)(intptr_t)arg;
	ts_task_handle h = ts_spawn(ready_task, NULL, NULL);
	if (!h.id)
		return (void *)(intptr_t)-1;
	bool ran = false;
	for (long i = 0; i < limit && !(ran = atomic_load(&ready_ran)); i++)
		ts_cond_resched();
	ts_join(h, NULL);
	return (void *)(intptr_t)ran;
}

static intptr_t run_spinner(bool preempt, long limit, struct ts_rt_stats *st)
{
	/* One worker: the first CPU of the affinity mask. */
	int cpu = ts_first_allowed_cpu();
	char one[16];
	snprintf(one, sizeof(one), "%d", cpu);
	struct ts_rt_config cfg = {.cpulist = one, .preempt = preempt};
	atomic_store(&ready_ran, false);
	if (ts_rt_start(&cfg))
		fail_msg("ts_rt_start: %s", ts_rt_last_error());
	assert_int_equal(ts_rt_nr_workers(), 1);
	ts_task_handle h = ts_spawn(spinner, (void *)(intptr_t)limit, NULL);
	assert_true(h.id != 0);
	void *ret = NULL;
	assert_int_equal(ts_join(h, &ret), 0);
	ts_rt_get_stats(st);
	assert_int_equal(ts_rt_stop(), 0);
	return (intptr_t)ret;
}

/* With preemption the spinner's slice ends at a tick and the core picks the ready task,
 * long before the bound (a hang guard: 2e9 preemption points are tens of seconds). */
static void test_spinner_preempted(void **state)
{
	(void)state;
	struct ts_rt_stats st;
	assert_int_equal(run_spinner(true, 2000000000L, &st), 1);
	assert_true(st.preemptions >= 1);
}

/* Without it the ready task waits until the spinner is done, however long it spins. */
static void test_spinner_starves_without(void **state)
{
	(void)state;
	struct ts_rt_stats st;
	assert_int_equal(run_spinner(false, 1000000, &st), 0);
	assert_int_equal(st.preemptions, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spinner_preempted),
		cmocka_unit_test(test_spinner_starves_without),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
