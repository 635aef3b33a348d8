/* Feeding faults without the search (TS_TNF_NO_MIGRATE) and the predicate that tells the
 * host when the search is due (ts_numa_migrate_due()): the runtime feeds a scan's faults
 * holding only its own rq lock and takes the locks of the other nodes' CPUs only when the
 * search will run. The deferred path must decide exactly what the fault path decides.
 *
 * Machine: 2 nodes x 2 CPUs, remote distance 20 (NUMA_DIRECT); HZ 1000, jiffies = ms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "numa_env.h"

#define MS    1000000ULL
#define GRID2 "10 20; 20 10"

static uint64_t attempts(struct env *e)
{
	struct ts_numa_cpu_stats st;
	ts_numa_stats_sum(e->s, &st);
	return ts_stat_read(&st.migrate_attempts);
}

static void env_close(struct env *e)
{
	assert_int_equal(e->f.lock_errors, 0);
	check_rq_counts(e, NULL, NULL);
	env_destroy(e);
}

/* p on CPU 0 (node 0) with 100 buffered private faults on node 1 and a completed scan, so
 * the next fault after the retry time runs placement (preferred node 1) and the search. */
static struct ts_task *off_node_task(struct env *e)
{
	env_grid(e, 2, 2, GRID2, "");
	struct ts_task *p = env_spawn(e, 0, NULL, NULL);
	p->numa->numa_migrate_retry = UINT64_MAX; /* the first feed must not place */
	assert_int_equal(ts_task_numa_fault(e->s, p, p, 1, 100, 0, NULL), 1);
	ts_numa_scan_done(p->numa->mm);
	p->numa->numa_migrate_retry = 0;
	e->f.now = 100 * MS;
	return p;
}

/* The flag: placement runs, the fault is counted, nothing is searched, the retry time is
 * left alone (the host's ts_numa_migrate_preferred() sets it). */
static void test_flag_never_searches(void **state)
{
	(void)state;
	struct env e;
	struct ts_task *p = off_node_task(&e);
	struct ts_numa_task *n = p->numa;
	struct ts_numa_result r;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ts_task_numa_fault(e.s, p, p, 1, 10, TS_TNF_NO_MIGRATE, &r), 1);
		assert_int_equal(r.ret, 1);
		assert_int_equal(r.dst_cpu, -1);
		assert_null(r.swap);
	}
	assert_int_equal(attempts(&e), 0);
	assert_int_equal(n->numa_migrate_retry, 0);
	assert_int_equal(n->nr_placements, 1); /* once per scan seq */
	assert_int_equal(n->numa_preferred_nid, 1);
	assert_int_equal(faults_of(p)[ts_numa_faults_idx(2, TS_NUMA_MEMBUF, 1, 1)], 30);
	for (int c = 0; c < e.t->nr_cpus; c++)
		assert_int_equal(reserved(&e, c), 0);
	/* the search is now due and the host's call decides */
	assert_true(ts_numa_migrate_due(e.s, p));
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, &r), 0);
	assert_int_equal(e.t->cpu[r.dst_cpu].node, 1);
	assert_int_equal(attempts(&e), 1);
	/* placement adapted the scan period: retry = jiffies + min(HZ, period / 16) */
	assert_int_equal(n->numa_migrate_retry, 100 + n->numa_scan_period / 16);
	assert_false(ts_numa_migrate_due(e.s, p));
	ts_numa_migrate_done(e.s, &r);
	env_close(&e);
}

/* due = retry passed && statistics && a preferred node && not on it; every case where it
 * is false leaves ts_numa_migrate_preferred() without a search. */
static void test_due_conditions(void **state)
{
	(void)state;
	struct env e;
	env_grid(&e, 2, 2, GRID2, "");
	struct ts_task *p = env_spawn(&e, 0, NULL, NULL);
	struct ts_numa_task *n = p->numa;
	const unsigned long on0[2] = {100, 0}, on1[2] = {0, 100};
	e.f.now = 100 * MS;
	n->numa_migrate_retry = 0;
	/* no statistics yet */
	assert_true(ts_numa_migrate_retry_passed(e.s, p));
	assert_false(ts_numa_migrate_due(e.s, p));
	/* statistics, no preferred node */
	faults_of(p);
	assert_false(ts_numa_migrate_due(e.s, p));
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, NULL), 1);
	assert_int_equal(n->numa_migrate_retry, 0);
	/* on its preferred node: not due; the call only re-arms the retry */
	set_faults(&e, p, on0, 0);
	assert_false(ts_numa_migrate_due(e.s, p));
	assert_int_equal(ts_numa_migrate_preferred(e.s, p, NULL), 1);
	assert_int_equal(n->numa_migrate_retry, 100 + 62);
	/* off it, before the retry time (jiffies 162 is not after 162) */
	set_faults(&e, p, on1, 1);
	e.f.now = 162 * MS;
	assert_false(ts_numa_migrate_retry_passed(e.s, p));
	assert_false(ts_numa_migrate_due(e.s, p));
	assert_int_equal(attempts(&e), 0);
	/* and after it */
	e.f.now = 163 * MS;
	assert_true(ts_numa_migrate_retry_passed(e.s, p));
	assert_true(ts_numa_migrate_due(e.s, p));
	/* the fault path searches on the same condition */
	struct ts_numa_result r;
	assert_int_equal(ts_task_numa_fault(e.s, p, p, 1, 1, 0, &r), 0);
	assert_int_equal(attempts(&e), 1);
	assert_int_equal(n->numa_migrate_retry, 163 + 62);
	ts_numa_migrate_done(e.s, &r);
	env_close(&e);
}

/* The state a decision leaves: everything the next scans and searches read. */
struct outcome {
	int ret, dst_cpu, pref;
	long imp;
	bool swap, reserved;
	unsigned int scan_period;
	uint64_t retry, attempts;
	unsigned long total, locality[3], faults[TS_NUMA_BUCKETS * 2 * 2];
};

static struct outcome outcome_of(struct env *e, struct ts_task *p, const struct ts_numa_result *r)
{
	struct ts_numa_task *n = p->numa;
	struct outcome o = {
		.ret = r->ret,
		.dst_cpu = r->dst_cpu,
		.pref = n->numa_preferred_nid,
		.imp = r->imp,
		.swap = r->swap != NULL,
		.reserved = r->reserved,
		.scan_period = n->numa_scan_period,
		.retry = n->numa_migrate_retry,
		.attempts = attempts(e),
		.total = n->total_numa_faults,
	};
	memcpy(o.locality, n->numa_faults_locality, sizeof(o.locality));
	memcpy(o.faults, n->numa_faults, sizeof(o.faults));
	return o;
}

/* One scan of three faults (node 1, node 0, node 1), fed the kernel's way or deferred the
 * runtime's way: after the first fault that passes the retry time, due? ->
 * ts_numa_migrate_preferred(), and no more searches once it decided. busy1: node 1's
 * CPUs run tasks that prefer node 0, so the decision is a swap rather than a move. */
static struct outcome scan(bool deferred, bool busy1, bool home)
{
	struct env e;
	struct ts_task *p = off_node_task(&e);
	if (busy1)
		for (int c = 2; c < 4; c++) {
			struct ts_task *q = env_spawn(&e, c, NULL, NULL);
			const unsigned long q0[2] = {100, 0};
			set_faults(&e, q, q0, 0);
		}
	if (busy1) { /* the lock-free view the search reads: 1024 per task, CPU 1 idle */
		for (int i = 0; i < e.nr_tasks; i++)
			e.task[i].se.avg.load_avg = 1024;
		for (int c = 0; c < 4; c++) {
			unsigned long v = c == 1 ? 0 : 1024;
			atomic_store(&e.s->rq[c].ro.load_avg, v);
			atomic_store(&e.s->rq[c].ro.util_avg, v);
			atomic_store(&e.s->rq[c].ro.runnable_avg, v);
		}
	}
	if (home) { /* p's faults on its own node: placement keeps it home */
		unsigned long *f = faults_of(p);
		f[ts_numa_faults_idx(2, TS_NUMA_MEMBUF, 0, 1)] = 500;
	}
	const int mem[3] = {1, 0, 1};
	struct ts_numa_result r, decided = {.ret = 1, .dst_cpu = -1};
	for (int i = 0; i < 3; i++) {
		unsigned int flags = mem[i] == 0 ? TS_TNF_FAULT_LOCAL : 0;
		if (!deferred) {
			if (ts_task_numa_fault(e.s, p, p, mem[i], 10, flags, &r) != 1 &&
			    decided.dst_cpu < 0)
				decided = r;
			continue;
		}
		bool passed = ts_numa_migrate_retry_passed(e.s, p);
		assert_int_equal(
			ts_task_numa_fault(e.s, p, p, mem[i], 10, flags | TS_TNF_NO_MIGRATE, &r),
			1);
		if (!passed)
			continue;
		uint64_t before = attempts(&e);
		bool due = ts_numa_migrate_due(e.s, p);
		int rc = ts_numa_migrate_preferred(e.s, p, &r);
		assert_int_equal(attempts(&e), before + due); /* due <=> a search ran */
		if (rc != 1 && decided.dst_cpu < 0)
			decided = r;
	}
	struct outcome o = outcome_of(&e, p, &decided);
	ts_numa_migrate_done(e.s, &decided);
	env_close(&e);
	return o;
}

static void same_outcome(bool busy1, bool home)
{
	struct outcome a = scan(false, busy1, home), b = scan(true, busy1, home);
	assert_int_equal(a.ret, b.ret);
	assert_int_equal(a.dst_cpu, b.dst_cpu);
	assert_int_equal(a.pref, b.pref);
	assert_int_equal(a.imp, b.imp);
	assert_int_equal(a.swap, b.swap);
	assert_int_equal(a.reserved, b.reserved);
	assert_int_equal(a.scan_period, b.scan_period);
	assert_int_equal(a.retry, b.retry);
	assert_int_equal(a.attempts, b.attempts);
	assert_int_equal(a.total, b.total);
	assert_memory_equal(a.locality, b.locality, sizeof(a.locality));
	assert_memory_equal(a.faults, b.faults, sizeof(a.faults));
}

static void test_deferred_move_same_decision(void **state)
{
	(void)state;
	same_outcome(false, false);
	struct outcome o = scan(true, false, false);
	assert_int_equal(o.ret, 0);
	assert_false(o.swap);
	assert_true(o.dst_cpu == 2 || o.dst_cpu == 3);
	assert_int_equal(o.attempts, 1);
}

static void test_deferred_swap_same_decision(void **state)
{
	(void)state;
	same_outcome(true, false);
	struct outcome o = scan(true, true, false);
	assert_int_equal(o.ret, 0);
	assert_true(o.swap);
	assert_int_equal(o.attempts, 1);
}

static void test_deferred_home_same_retry(void **state)
{
	(void)state;
	same_outcome(false, true);
	struct outcome o = scan(true, false, true);
	assert_int_equal(o.pref, 0);
	assert_int_equal(o.dst_cpu, -1);
	assert_int_equal(o.attempts, 0);
	/* re-armed on the preferred node, as the kernel does */
	assert_int_equal(o.retry, 100 + o.scan_period / 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_never_searches),
		cmocka_unit_test(test_due_conditions),
		cmocka_unit_test(test_deferred_move_same_decision),
		cmocka_unit_test(test_deferred_swap_same_decision),
		cmocka_unit_test(test_deferred_home_same_retry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
