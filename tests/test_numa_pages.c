/* should_numa_migrate_memory() as the core's API (numa_pages.h), against the kernel's
 * decision order (kernel/sched/fair.c): first and private faults early in a task's life,
 * the two-stage filter on last_cpupid, private faults, shared faults without a group, and
 * the group's CPU/memory ratios with their 3/4 hysteresis. A 2-node grid (CPUs 0-1 on
 * node 0, 2-3 on node 1). The simulator's chunks call it (sim_should_migrate_memory(),
 * test_sim_numa.c); the runtime moves tasks, not pages, and does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "numa_env.h"
#include "toposched/numa_pages.h"

enum { P = 5, Q = 6 }; /* the host's ids of two tasks */

static bool fault(struct env *e, struct ts_task *p, struct ts_numa_cpupid *last, int src_nid,
		  int dst_cpu)
{
	return ts_should_numa_migrate_memory(e->t, p, P, last, src_nid, dst_cpu);
}

static void test_filter(void **state)
{
	(void)state;
	struct env e;
	env_grid(&e, 2, 2, "10 20; 20 10", "");
	struct ts_task *p = env_spawn(&e, 2, NULL, NULL);
	/* a first fault: migrate, and the page now remembers (P, CPU 2) */
	struct ts_numa_cpupid last = TS_NUMA_CPUPID_UNSET;
	assert_true(fault(&e, p, &last, 0, 2));
	assert_int_equal(last.pid, P);
	assert_int_equal(last.cpu, 2);
	/* early in life (no preferred node) a private fault migrates even from another node */
	last = (struct ts_numa_cpupid){P, 0};
	assert_true(fault(&e, p, &last, 0, 2));
	/* later (a preferred node, scan_seq > 4): the two-stage filter */
	p->numa->numa_preferred_nid = 1;
	p->numa->numa_scan_seq = 5;
	last = (struct ts_numa_cpupid){P, 0}; /* previous fault from node 0 */
	assert_false(fault(&e, p, &last, 0, 2));
	assert_true(fault(&e, p, &last, 0, 3)); /* second in a row from node 1, private */
	/* shared (another task's last fault, from this node), no group: migrate */
	last = (struct ts_numa_cpupid){Q, 3};
	assert_true(fault(&e, p, &last, 0, 2));
	/* shared with a group: the destination used 3x more than the source migrates */
	struct ts_numa_group g = {.refcount = 1, .nr_tasks = 1};
	unsigned long gf[TS_NUMA_FAULT_STATS * 2] = {0};
	g.faults = gf;
	p->numa->numa_group = &g;
	gf[ts_numa_faults_idx(2, TS_NUMA_CPU, 1, 1)] = 301;
	gf[ts_numa_faults_idx(2, TS_NUMA_CPU, 0, 1)] = 100;
	last = (struct ts_numa_cpupid){Q, 3};
	assert_true(fault(&e, p, &last, 0, 2));
	/* 300 vs 100: not 3x; the ratios: 300 * mem(src) 100 * 3 = 90000 vs
	 * 100 * mem(dst) 200 * 4 = 80000: migrate; with mem(dst) 300: 120000, stay */
	gf[ts_numa_faults_idx(2, TS_NUMA_CPU, 1, 1)] = 300;
	gf[ts_numa_faults_idx(2, TS_NUMA_MEM, 0, 1)] = 100;
	gf[ts_numa_faults_idx(2, TS_NUMA_MEM, 1, 1)] = 200;
	last = (struct ts_numa_cpupid){Q, 3};
	assert_true(fault(&e, p, &last, 0, 2));
	gf[ts_numa_faults_idx(2, TS_NUMA_MEM, 1, 1)] = 300;
	last = (struct ts_numa_cpupid){Q, 3};
	assert_false(fault(&e, p, &last, 0, 2));
	assert_int_equal(last.pid, P); /* exchanged whatever the answer */
	p->numa->numa_group = NULL;
	env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
