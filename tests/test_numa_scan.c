/* NUMA balancing's scan pacing, the one copy both hosts call (numa_scan.h): task_tick_numa()
 * (when a task's scan is due, its first period task_scan_start()), task_numa_work()'s pacing
 * (one scanner per mm and period, node_stamp pushed two ticks, the window), the end of the
 * walk (reset_ptenuma_scan(), the 32x overhead rule) and a host's fixed period. Against
 * hand computations from kernel/sched/fair.c on a 2-node grid over the fake host.
 *
 * The runtime's scan started its first period at task_scan_min() where the kernel (and the
 * simulator) start at task_scan_start(): test_first_period_is_task_scan_start() shows the
 * two differ for a task in a NUMA group with shared faults, and that the core now gives
 * task_scan_start(). test_rt_numa_scan.c checks that the runtime reaches these functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "numa_env.h"

#define MS 1000000ULL

static void open_env(struct env *e)
{
	env_grid(e, 2, 2, "10 20; 20 10", "");
}

/* jiffies of the fake clock (HZ 1000 by default). */
static uint64_t jiffies_now(struct env *e)
{
	return e->f.now / e->s->tick_nsec;
}

/* A NUMA group of two tasks with 300 shared and 100 private faults, p a member. */
struct group_state {
	struct ts_numa_group g;
	unsigned long faults[TS_NUMA_FAULT_STATS * 2];
};

static void join_group(struct ts_task *p, struct group_state *gs)
{
	memset(gs, 0, sizeof(*gs));
	gs->g.refcount = 2;
	gs->g.nr_tasks = 2;
	gs->g.faults = gs->faults;
	gs->faults[ts_numa_faults_idx(2, TS_NUMA_MEM, 0, 0)] = 300;
	gs->faults[ts_numa_faults_idx(2, TS_NUMA_MEM, 1, 1)] = 100;
	p->numa->numa_group = &gs->g;
}

static void leave_group(struct ts_task *p)
{
	p->numa->numa_group = NULL;
}

/* init_numa_balancing(): the scan delay is the first period; a task's own mm is first
 * scanned no earlier than the delay from now. */
static void test_init(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_task *p = env_spawn(&e, 0, NULL, NULL);
	assert_int_equal(p->numa->numa_scan_period, TS_NUMA_SCAN_DELAY_MS);
	assert_int_equal(p->numa->node_stamp, 0);
	assert_int_equal(p->numa->mm->numa_next_scan, jiffies_now(&e) + TS_NUMA_SCAN_DELAY_MS);
	assert_int_equal(p->numa->mm->numa_scan_offset, 0);
	env_destroy(&e);
}

/* task_tick_numa(): nothing before the task has run the delay (run time, not wall time);
 * after it, node_stamp moves one period on and the first period becomes task_scan_start():
 * 1000 ms x 2 members x 301 / 401 = 1501 ms for the group state, where task_scan_min()
 * (what the runtime used) is 1000 ms. */
static void test_first_period_is_task_scan_start(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_task *p = env_spawn(&e, 0, NULL, NULL);
	struct group_state gs;
	join_group(p, &gs);
	e.f.now += 5000 * MS; /* wall time alone does not make a scan due */
	p->se.sum_exec_runtime = TS_NUMA_SCAN_DELAY_MS * MS;
	assert_false(ts_task_tick_numa(e.s, p));
	assert_int_equal(p->numa->node_stamp, 0);
	p->se.sum_exec_runtime += 1;
	assert_int_equal(ts_numa_task_scan_min(p), 1000);
	assert_int_equal(ts_numa_task_scan_start(p), 1000UL * 2 * 301 / 401);
	assert_true(ts_task_tick_numa(e.s, p));
	assert_int_equal(p->numa->numa_scan_period, 1501);
	assert_int_equal(p->numa->node_stamp, TS_NUMA_SCAN_DELAY_MS * MS);
	/* the next one a full period later */
	p->se.sum_exec_runtime = (TS_NUMA_SCAN_DELAY_MS + 1501) * MS;
	assert_false(ts_task_tick_numa(e.s, p));
	p->se.sum_exec_runtime++;
	assert_true(ts_task_tick_numa(e.s, p));
	assert_int_equal(p->numa->node_stamp, (TS_NUMA_SCAN_DELAY_MS + 1501) * MS);
	leave_group(p);
	env_destroy(&e);
}

/* task_tick_numa() moves node_stamp on when the period passed, but asks for the work only
 * when the mm's numa_next_scan has come. */
static void test_tick_waits_for_the_mm(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_task *p = env_spawn(&e, 0, NULL, NULL);
	p->se.sum_exec_runtime = TS_NUMA_SCAN_DELAY_MS * MS + 1;
	/* the mm was created at 1 ms: its first scan at 1001 jiffies */
	e.f.now = 1000 * MS;
	assert_false(ts_task_tick_numa(e.s, p));
	assert_int_equal(p->numa->node_stamp, TS_NUMA_SCAN_DELAY_MS * MS);
	assert_int_equal(p->numa->numa_scan_period, 1000); /* task_scan_start(): one window */
	e.f.now = 1001 * MS;
	p->se.sum_exec_runtime = 2 * TS_NUMA_SCAN_DELAY_MS * MS + 1;
	assert_true(ts_task_tick_numa(e.s, p));
	env_destroy(&e);
}

/* task_numa_work()'s pacing: numa_next_scan moves a period on (one scanner per mm and
 * period: a second call in the period scans nothing), node_stamp two ticks, and the
 * window is 256 MiB of 4 KiB pages from the mm's offset, 8x that of address space. */
static void test_work_window(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_numa_mm mm = {.id = 7};
	ts_numa_mm_init(e.s, &mm, TS_NUMA_SCAN_DELAY_MS);
	struct ts_task *p = env_spawn(&e, 0, NULL, &mm);
	struct ts_task *q = env_spawn(&e, 2, NULL, &mm);
	mm.numa_scan_offset = 123;
	struct ts_numa_scan scan;
	assert_false(ts_task_numa_work(e.s, p, &scan)); /* before numa_next_scan */
	e.f.now = 1001 * MS;
	p->numa->numa_scan_period = 250;
	assert_true(ts_task_numa_work(e.s, p, &scan));
	assert_int_equal(scan.start, 123);
	assert_int_equal(scan.pages, 65536);
	assert_int_equal(scan.virtpages, 8 * 65536);
	assert_int_equal(mm.numa_next_scan, 1001 + 250);
	assert_int_equal(p->numa->node_stamp, 2 * e.s->tick_nsec);
	/* the other thread of the mm, in the same period: no scan */
	assert_false(ts_task_numa_work(e.s, q, &scan));
	assert_int_equal(q->numa->node_stamp, 0);
	e.f.now = (1001 + 250) * MS;
	assert_true(ts_task_numa_work(e.s, q, &scan));
	env_destroy(&e);
}

/* The end of the walk: the next offset, reset_ptenuma_scan() per wrap (numa_scan_seq++),
 * and 32x the scan's run time onto node_stamp. */
static void test_work_end(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_task *p = env_spawn(&e, 0, NULL, NULL);
	struct ts_numa_mm *mm = p->numa->mm;
	ts_task_numa_work_end(e.s, p, 4096, 0, 1000);
	assert_int_equal(mm->numa_scan_offset, 4096);
	assert_int_equal(atomic_load(&mm->numa_scan_seq), 0);
	assert_int_equal(p->numa->node_stamp, 32000);
	ts_task_numa_work_end(e.s, p, 0, 2, 0);
	assert_int_equal(mm->numa_scan_offset, 0);
	assert_int_equal(atomic_load(&mm->numa_scan_seq), 2);
	assert_int_equal(p->numa->node_stamp, 32000);
	env_destroy(&e);
}

/* A host's sysctls: the delay is the first period and the own mm's first scan; a fixed
 * period paces every scan after the first, the adaptive one is still kept. */
static void test_tune(void **state)
{
	(void)state;
	struct env e;
	open_env(&e);
	struct ts_task *p = env_spawn(&e, 0, NULL, NULL);
	ts_numa_scan_tune(e.s, p, 2, 5);
	assert_int_equal(p->numa->numa_scan_period, 2);
	assert_int_equal(p->numa->mm->numa_next_scan, jiffies_now(&e) + 2);
	assert_int_equal(ts_numa_scan_period_now(p), 2);
	e.f.now += 2 * MS;
	p->se.sum_exec_runtime = 2 * MS + 1;
	assert_true(ts_task_tick_numa(e.s, p));
	assert_int_equal(p->numa->numa_scan_period, 1000); /* task_scan_start() */
	assert_int_equal(ts_numa_scan_period_now(p), 5);
	struct ts_numa_scan scan;
	assert_true(ts_task_numa_work(e.s, p, &scan));
	assert_int_equal(p->numa->mm->numa_next_scan, jiffies_now(&e) + 5);
	/* node_stamp: 2 ms + two ticks; due 5 ms of run time later */
	p->se.sum_exec_runtime = 2 * MS + 2 * e.s->tick_nsec + 5 * MS;
	assert_false(ts_task_tick_numa(e.s, p));
	p->se.sum_exec_runtime++;
	e.f.now += 5 * MS;
	assert_true(ts_task_tick_numa(e.s, p));
	/* 0 = the kernel's defaults */
	ts_numa_scan_tune(e.s, p, 0, 0);
	assert_int_equal(p->numa->numa_scan_period, TS_NUMA_SCAN_DELAY_MS);
	assert_int_equal(ts_numa_scan_period_now(p), TS_NUMA_SCAN_DELAY_MS);
	env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_first_period_is_task_scan_start),
		cmocka_unit_test(test_tick_waits_for_the_mm),
		cmocka_unit_test(test_work_window),
		cmocka_unit_test(test_work_end),
		cmocka_unit_test(test_tune),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
