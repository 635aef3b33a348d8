/* Detached tasks (ts_task_attr.detached): freed by their worker at exit, waited for with a
 * wait group, never joined. From a task and from a plain thread, many at once so that
 * their structs and stacks go through the task caches, and the runtime stops cleanly with
 * none of them joined. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "toposched/runtime_core.h"

#define BATCH  256
#define ROUNDS 8

static int setup(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {0};
	int rc = ts_rt_start(&cfg);
	if (rc)
		fprintf(stderr, "ts_rt_start: %s\n", ts_rt_last_error());
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	return ts_rt_stop();
}

struct batch {
	struct ts_waitgroup *wg;
	atomic_long ran;
};

static void *child(void *p)
{
	struct batch *b = p;
	atomic_fetch_add(&b->ran, 1);
	ts_wg_done(b->wg);
	return NULL;
}

/* ROUNDS batches of BATCH detached children, each batch awaited on the wait group. */
static void *spawner(void *p)
{
	struct batch *b = p;
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.detached = true;
	for (int r = 0; r < ROUNDS; r++) {
		ts_wg_add(b->wg, BATCH);
		for (int i = 0; i < BATCH; i++)
			if (!ts_spawn(child, b, &a).id)
				return (void *)"ts_spawn failed";
		ts_wg_wait(b->wg);
	}
	return NULL;
}

static void test_detached_from_task(void **state)
{
	(void)state;
	struct batch b = {.wg = ts_wg_create()};
	assert_non_null(b.wg);
	ts_task_handle h = ts_spawn(spawner, &b, NULL);
	assert_true(h.id != 0);
	void *ret = (void *)"not joined";
	assert_int_equal(ts_join(h, &ret), 0);
	assert_null(ret);
	assert_int_equal(atomic_load(&b.ran), ROUNDS * BATCH);
	ts_wg_destroy(b.wg);
}

static void *wait_then_done(void *p)
{
	struct batch *b = p;
	ts_wg_wait(b->wg); /* the test's release */
	atomic_fetch_add(&b->ran, 1);
	return NULL;
}

/* A live detached task cannot be joined; once it has exited its handle is stale. */
static void test_join_detached_refused(void **state)
{
	(void)state;
	struct batch b = {.wg = ts_wg_create()};
	assert_non_null(b.wg);
	ts_wg_add(b.wg, 1);
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.detached = true;
	ts_task_handle h = ts_spawn(wait_then_done, &b, &a);
	assert_true(h.id != 0);
	assert_int_equal(ts_join(h, NULL), -EINVAL);
	ts_wg_done(b.wg);
	while (atomic_load(&b.ran) == 0)
		ts_yield();
	/* It may still be on its way out: ESRCH once its worker has reaped it. */
	int rc;
	while ((rc = ts_join(h, NULL)) == -EINVAL)
		ts_yield();
	assert_int_equal(rc, -ESRCH);
	ts_wg_destroy(b.wg);
}

/* From a plain thread: spawned through the workers' inboxes, the batch awaited by a task
 * (ts_wg_wait blocks tasks only). Runs and stops with nothing joined. */
static void *waiter(void *p)
{
	struct batch *b = p;
	ts_wg_wait(b->wg);
	return NULL;
}

static void test_detached_from_thread(void **state)
{
	(void)state;
	struct batch b = {.wg = ts_wg_create()};
	assert_non_null(b.wg);
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.detached = true;
	ts_wg_add(b.wg, BATCH);
	for (int i = 0; i < BATCH; i++)
		assert_true(ts_spawn(child, &b, &a).id != 0);
	ts_task_handle w = ts_spawn(waiter, &b, NULL);
	assert_true(w.id != 0);
	assert_int_equal(ts_join(w, NULL), 0);
	assert_int_equal(atomic_load(&b.ran), BATCH);
	ts_wg_destroy(b.wg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_detached_from_task, setup, teardown),
		cmocka_unit_test_setup_teardown(test_join_detached_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detached_from_thread, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
