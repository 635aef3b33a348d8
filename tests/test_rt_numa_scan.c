/* The runtime reaches the core's NUMA scan pacing (numa_scan.h): a task that declared
 * 1 MiB on a virtual 2-node machine, with a scan delay of 1 ms, is scanned once it has run
 * 1 ms, and its state afterwards is the one the core's task_tick_numa()/task_numa_work()
 * leave (test_numa_scan.c checks those against the kernel): node_stamp = the delay + two
 * ticks (the runtime used to set it to the run time at the scan), the period
 * task_scan_start() (it used to be task_scan_min()), the mm's scan wrapped (the 1 MiB is
 * less than one window: offset 0, numa_scan_seq 1) and its next scan a period away. The
 * second scan would need another 1000 ms of run time: exactly one scan is seen. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/rt_internal.h"
#include "toposched/runtime.h"

#define MS	   1000000ULL
#define MAX_YIELDS 2000000 /* a bound on the wait, never reached when the scan comes */

struct seen {
	uint64_t scans, node_stamp, tick_nsec, next_scan_gap, scan_offset;
	unsigned int period, scan_start, scan_min;
	int scan_seq;
	bool have_state;
};

static uint64_t scans_now(void)
{
	struct ts_rt_stats st;
	ts_rt_get_stats(&st);
	return st.numa_scans;
}

static void *scanned_task(void *arg)
{
	struct seen *out = arg;
	void *mem = ts_numa_alloc(1 << 20, 1);
	assert_non_null(mem);
	memset(mem, 1, 1 << 20);
	volatile unsigned long sink = 0;
	for (int i = 0; i < MAX_YIELDS && !scans_now(); i++) {
		for (int k = 0; k < 2000; k++)
			sink += (unsigned long)k;
		ts_yield();
	}
	(void)sink;
	/* This task runs: no worker scans it now, its core state is stable. */
	struct ts_task *p = &rt_current()->ts;
	struct ts_sched *s = ts_rt_sched();
	out->scans = scans_now();
	out->have_state = p->numa != NULL;
	if (out->have_state) {
		const struct ts_numa_task *n = p->numa;
		out->node_stamp = n->node_stamp;
		out->tick_nsec = s->tick_nsec;
		out->period = n->numa_scan_period;
		out->scan_start = ts_numa_task_scan_start(p);
		out->scan_min = ts_numa_task_scan_min(p);
		out->scan_offset = n->mm->numa_scan_offset;
		out->scan_seq = atomic_load(&n->mm->numa_scan_seq);
		uint64_t jiffies = s->ops.clock(s->host) / s->tick_nsec;
		out->next_scan_gap = n->mm->numa_next_scan - jiffies;
	}
	ts_numa_free(mem, 1 << 20);
	return NULL;
}

static void test_first_scan_state(void **state)
{
	(void)state;
	struct ts_rt_config cfg = {.topology = "synthetic:pack:2 numa:1 core:1 pu:1",
				   .numa_scan_delay_ms = 1};
	if (ts_rt_start(&cfg))
		fail_msg("ts_rt_start: %s", ts_rt_last_error());
	struct seen seen = {0};
	struct ts_task_attr a = TS_TASK_ATTR_INIT;
	a.cpus = "0"; /* on node 0, its memory on node 1 */
	ts_task_handle h = ts_spawn(scanned_task, &seen, &a);
	assert_true(h.id != 0);
	assert_int_equal(ts_join(h, NULL), 0);
	assert_int_equal(ts_rt_stop(), 0);
	assert_true(seen.have_state);
	assert_int_equal(seen.scans, 1);
	assert_int_equal(seen.node_stamp, 1 * MS + 2 * seen.tick_nsec);
	assert_int_equal(seen.scan_min, 1000); /* one scan window */
	assert_int_equal(seen.period, seen.scan_start);
	assert_int_equal(seen.scan_offset, 0);
	assert_int_equal(seen.scan_seq, 1);
	assert_true(seen.next_scan_gap > 0 && seen.next_scan_gap <= seen.period);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_scan_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
