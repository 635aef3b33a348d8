/* NUMA balancing (numa.c) through the fake host on constructed states, Kunpeng 920
 * (4 nodes x 32 CPUs, imb_numa_nr 2) and EPYC 7601 (8 nodes x 16 CPUs, SMT):
 * placement by fault shares (max, ties, halving decay per window), group join,
 * swap decisions (both gain / one gains less than SMALLIMP), the imb_numa_nr /
 * NUMA_IMBALANCE_MIN limit, the numa_migrate_on reservation (held from decision to
 * completion, skipped by a second search, absent with NO_NUMA_RESERVE), the stop work
 * and the counters. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define ENV_MAX_TASKS 160
#include "numa_env.h"

/* Per CPU, the rq's NUMA counts equal a recount from the queued tasks, and their sums are
 * the machine-wide counts ts_numa_preferred_share() reports. */
static void check_counts(struct env *e)
{
	unsigned total_numa, total_pref;
	check_rq_counts(e, &total_numa, &total_pref);
	unsigned pr, nu;
	ts_numa_preferred_share(e->s, &pr, &nu);
	assert_int_equal(pr, total_pref);
	assert_int_equal(nu, total_numa);
}

static void env_close(struct env *e)
{
	assert_int_equal(e->f.lock_errors, 0);
	check_counts(e);
	env_destroy(e);
}

/* A task with NUMA state running on cpu (allowed: NULL = all). */
static struct ts_task *spawn(struct env *e, int cpu, const struct ts_cpumask *allowed,
			     struct ts_numa_mm *mm)
{
	struct ts_task *p = env_spawn(e, cpu, allowed, mm);
	assert_ptr_equal(e->s->rq[cpu].curr, p);
	return p;
}

/* A task with NUMA state made runnable on cpu behind whatever runs there (the last one
 * activated runs when the CPU was idle). */
static struct ts_task *spawn_queued(struct env *e, int cpu)
{
	return env_spawn(e, cpu, NULL, NULL);
}

static int first_cpu_of_node(struct env *e, int nid)
{
	for (int c = 0; c < e->t->nr_cpus; c++)
		if (e->t->cpu[c].node == nid)
			return c;
	return -1;
}

/* Every CPU runs a task and looks fully busy (util and runnable at capacity). */
static void fill_busy(struct env *e, int skip_cpu_a, int skip_cpu_b)
{
	for (int c = 0; c < e->t->nr_cpus; c++) {
		if (c != skip_cpu_a && c != skip_cpu_b)
			spawn(e, c, NULL, NULL);
		atomic_store(&e->s->rq[c].ro.util_avg, 1024);
		atomic_store(&e->s->rq[c].ro.runnable_avg, 1024);
	}
}

/* ---- placement ---- */

static void test_placement_by_fault_share(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_numa_result r;
	/* Window 1: 10 pages on node 2, 4 on node 1 (first touch: private). */
	ts_task_numa_fault(e.s, p, NULL, 2, 10, 0, &r);
	ts_task_numa_fault(e.s, p, NULL, 1, 4, 0, &r);
	ts_task_numa_fault(e.s, p, p, 0, 1, TS_TNF_FAULT_LOCAL, &r);
	assert_int_equal(p->numa->numa_preferred_nid, TS_NUMA_NO_NODE);
	ts_task_numa_placement(e.s, p); /* same seq: nothing */
	assert_int_equal(p->numa->numa_preferred_nid, TS_NUMA_NO_NODE);
	ts_numa_scan_done(p->numa->mm);
	ts_task_numa_placement(e.s, p);
	assert_int_equal(p->numa->numa_preferred_nid, 2);
	assert_int_equal(ts_numa_task_faults(p, 2), 10);
	assert_int_equal(ts_numa_task_faults(p, 1), 4);
	assert_int_equal(p->numa->total_numa_faults, 15);
	assert_int_equal(ts_numa_task_weight(e.s, p, 2, 10) > ts_numa_task_weight(e.s, p, 1, 10),
			 1);
	/* The running task is accounted: it has a preferred node, not its own. */
	unsigned pr, nu;
	ts_numa_preferred_share(e.s, &pr, &nu);
	assert_int_equal(nu, 1);
	assert_int_equal(pr, 0);
	/* Window 2 without faults: halving decay. */
	ts_numa_scan_done(p->numa->mm);
	ts_task_numa_placement(e.s, p);
	assert_int_equal(ts_numa_task_faults(p, 2), 5);
	assert_int_equal(ts_numa_task_faults(p, 1), 2);
	assert_int_equal(p->numa->numa_preferred_nid, 2);
	/* No faults in the window: the scan period doubled (1000 -> 2000 -> ...). */
	assert_true(p->numa->scan_period_hist_n >= 2);
	/* Window 3: node 1 overtakes (2 + 20 - 1 > 5 - 2). */
	ts_task_numa_fault(e.s, p, NULL, 1, 20, 0, &r);
	ts_numa_scan_done(p->numa->mm);
	ts_task_numa_placement(e.s, p);
	assert_int_equal(ts_numa_task_faults(p, 1), 21);
	assert_int_equal(ts_numa_task_faults(p, 2), 3);
	assert_int_equal(p->numa->numa_preferred_nid, 1);
	env_close(&e);
}

static void test_placement_tie_lowest_node(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_numa_result r;
	ts_task_numa_fault(e.s, p, NULL, 3, 8, 0, &r);
	ts_task_numa_fault(e.s, p, NULL, 1, 8, 0, &r);
	ts_numa_scan_done(p->numa->mm);
	ts_task_numa_placement(e.s, p);
	assert_int_equal(p->numa->numa_preferred_nid, 1); /* strict '>' keeps the first max */
	env_close(&e);
}

static void test_scan_period_bounds(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	/* scan_size 256 MB < 2560: floor 1000/10 = 100 ms; one window for rss 0 */
	assert_int_equal(ts_numa_task_scan_min(p), 1000);
	assert_int_equal(ts_numa_task_scan_max(p), 60000);
	p->numa->mm->rss_pages = 4UL << 18;		 /* 4 GiB: 16 windows */
	assert_int_equal(ts_numa_task_scan_min(p), 100); /* 1000/16 = 62 < floor 100 */
	assert_int_equal(ts_numa_task_scan_max(p), 3750);
	/* Mostly remote private faults: the period shrinks (7 - lr) slots. */
	p->numa->mm->rss_pages = 0;
	struct ts_numa_result r;
	ts_task_numa_fault(e.s, p, NULL, 2, 90, 0, &r);
	ts_task_numa_fault(e.s, p, NULL, 0, 10, TS_TNF_FAULT_LOCAL, &r);
	p->numa->numa_migrate_retry = UINT64_MAX; /* keep placement manual */
	ts_numa_scan_done(p->numa->mm);
	ts_task_numa_placement(e.s, p);
	/* ps = 10 >= 7: private memory -> period += 3 slots of 100 ms */
	assert_int_equal(p->numa->numa_scan_period, 1300);
	env_close(&e);
}

/* ---- groups ---- */

static void test_group_join_same_mm(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_numa_mm mm = {.id = 1};
	struct ts_task *a = spawn(&e, 0, NULL, &mm), *b = spawn(&e, 40, NULL, &mm);
	struct ts_numa_result r;
	a->numa->numa_migrate_retry = b->numa->numa_migrate_retry = UINT64_MAX;
	ts_task_numa_fault(e.s, a, NULL, 0, 6, TS_TNF_FAULT_LOCAL, &r);
	ts_task_numa_fault(e.s, b, NULL, 1, 6, TS_TNF_FAULT_LOCAL, &r);
	/* b faults on a page a touched: b creates its group, then joins a's? a has none:
	 * b stays in its own group; then a faults on b's page and joins b's group. */
	ts_task_numa_fault(e.s, b, a, 0, 2, 0, &r);
	assert_non_null(b->numa->numa_group);
	assert_int_equal(b->numa->numa_group->nr_tasks, 1);
	ts_task_numa_fault(e.s, a, b, 1, 2, 0, &r);
	assert_ptr_equal(a->numa->numa_group, b->numa->numa_group);
	struct ts_numa_group *g = a->numa->numa_group;
	assert_int_equal(g->nr_tasks, 2);
	assert_int_equal(g->refcount, 2);
	/* After a placement, the group holds both tasks' decayed faults. */
	ts_numa_scan_done(&mm);
	ts_task_numa_placement(e.s, a);
	ts_task_numa_placement(e.s, b);
	assert_int_equal(g->total_faults, a->numa->total_numa_faults + b->numa->total_numa_faults);
	assert_int_equal(ts_numa_group_faults(a, 0) + ts_numa_group_faults(a, 1), g->total_faults);
	assert_int_equal(a->numa->numa_preferred_nid, b->numa->numa_preferred_nid);
	env_close(&e);
}

/* ---- moves and the reservation ---- */

static void test_move_to_idle_and_reservation(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	const unsigned long to_node1[4] = {0, 100, 0, 0};
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 1, NULL, NULL);
	set_faults(&e, p, to_node1, 1);
	set_faults(&e, q, to_node1, 1);
	struct ts_numa_result rp, rq;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &rp), 0);
	assert_int_equal(rp.dst_cpu, 32);
	assert_null(rp.swap);
	assert_true(rp.reserved);
	assert_int_equal(reserved(&e, 32), 1);
	/* A concurrent search (the first is not done) skips CPU 32: the next idle CPU. */
	assert_int_equal(ts_task_numa_migrate(e.s, q, &rq), 0);
	assert_int_equal(rq.dst_cpu, 33);
	assert_int_equal(reserved(&e, 33), 1);
	/* Stop work; the reservation stays until done. */
	assert_int_equal(ts_numa_migrate_apply(e.s, &rp), 0);
	assert_int_equal(p->cpu, 32);
	assert_int_equal(ts_rq_nr_running(e.s, 32), 1);
	assert_int_equal(ts_rq_nr_running(e.s, 0), 0);
	assert_null(e.s->rq[0].curr);
	assert_true(e.f.resched[0] > 0);
	assert_int_equal(reserved(&e, 32), 1);
	ts_numa_migrate_done(e.s, &rp);
	assert_int_equal(reserved(&e, 32), 0);
	ts_numa_migrate_done(e.s, &rp); /* idempotent */
	assert_int_equal(reserved(&e, 32), 0);
	/* q's target abandoned (e.g. the task slept): released, counted as stick. */
	ts_numa_migrate_done(e.s, &rq);
	assert_int_equal(reserved(&e, 33), 0);
	assert_int_equal(rq.ret, -EAGAIN);
	/* p is on its preferred node now. */
	unsigned pr, nu;
	ts_numa_preferred_share(e.s, &pr, &nu);
	assert_int_equal(pr, 1);
	struct ts_numa_cpu_stats st;
	ts_numa_stats_sum(e.s, &st);
	assert_int_equal(ts_stat_read(&st.migrate_attempts), 2);
	assert_int_equal(ts_stat_read(&st.migrations), 2);
	assert_int_equal(ts_stat_read(&st.swaps), 0);
	assert_int_equal(ts_stat_read(&st.applied), 1);
	assert_int_equal(ts_stat_read(&st.stick), 1);
	assert_true(ts_stat_read(&st.reserved_skips) >= 1);
	assert_int_equal(ts_stat_read(&st.reserve_conflicts), 0);
	for (int c = 0; c < e.t->nr_cpus; c++)
		assert_int_equal(reserved(&e, c), 0);
	env_close(&e);
}

static void test_no_reserve_same_cpu(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "NO_NUMA_RESERVE");
	const unsigned long to_node1[4] = {0, 100, 0, 0};
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 1, NULL, NULL);
	set_faults(&e, p, to_node1, 1);
	set_faults(&e, q, to_node1, 1);
	struct ts_numa_result rp, rq;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &rp), 0);
	assert_int_equal(ts_task_numa_migrate(e.s, q, &rq), 0);
	/* The race the reservation closes: both decisions target one CPU. */
	assert_int_equal(rp.dst_cpu, 32);
	assert_int_equal(rq.dst_cpu, 32);
	assert_false(rp.reserved);
	assert_int_equal(reserved(&e, 32), 0);
	assert_int_equal(ts_numa_migrate_apply(e.s, &rp), 0);
	assert_int_equal(ts_numa_migrate_apply(e.s, &rq), 0);
	assert_int_equal(ts_rq_nr_running(e.s, 32), 2);
	ts_numa_migrate_done(e.s, &rp);
	ts_numa_migrate_done(e.s, &rq);
	env_close(&e);
}

static void test_epyc_reservation_smt(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "epyc-7601", "");
	int n0 = first_cpu_of_node(&e, 0);
	unsigned long mem[8] = {0};
	mem[3] = 50;
	struct ts_task *p = spawn(&e, n0, NULL, NULL);
	struct ts_task *q = spawn(&e, n0 + 1, NULL, NULL);
	set_faults(&e, p, mem, 3);
	set_faults(&e, q, mem, 3);
	struct ts_numa_result rp, rq;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &rp), 0);
	assert_int_equal(ts_task_numa_migrate(e.s, q, &rq), 0);
	assert_int_equal(e.t->cpu[rp.dst_cpu].node, 3);
	assert_int_equal(e.t->cpu[rq.dst_cpu].node, 3);
	assert_int_not_equal(rp.dst_cpu, rq.dst_cpu);
	assert_int_equal(reserved(&e, rp.dst_cpu), 1);
	assert_int_equal(reserved(&e, rq.dst_cpu), 1);
	assert_int_equal(ts_numa_migrate_apply(e.s, &rq), 0);
	assert_int_equal(ts_numa_migrate_apply(e.s, &rp), 0);
	ts_numa_migrate_done(e.s, &rp);
	ts_numa_migrate_done(e.s, &rq);
	assert_int_equal(reserved(&e, rp.dst_cpu), 0);
	assert_int_equal(reserved(&e, rq.dst_cpu), 0);
	assert_int_equal(p->cpu, rp.dst_cpu);
	assert_int_equal(q->cpu, rq.dst_cpu);
	env_close(&e);
}

/* imb_numa_nr: an idle destination is accepted while dst_running <= imb_numa_nr and the
 * imbalance (dst_running - src_running) is at most NUMA_IMBALANCE_MIN, refused beyond.
 * p may run on nodes 0 and 1 only; nr_src tasks (p included) run on node 0. */
static void imbalance_case(int nr_src, int nr_on_dst, int expect_ret)
{
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_sched_domain *sd = e.s->dom->cpu[0].sd_numa;
	assert_non_null(sd);
	struct ts_cpumask *m = ts_cpumask_alloc(e.t->nr_cpus);
	ts_cpumask_set_range(m, 0, 63); /* nodes 0 and 1 only */
	const unsigned long to_node1[4] = {30, 70, 0, 0};
	struct ts_task *p = spawn(&e, 0, m, NULL);
	for (int i = 1; i < nr_src; i++)
		spawn(&e, i, NULL, NULL);
	for (int i = 0; i < nr_on_dst; i++)
		spawn(&e, 32 + i, NULL, NULL);
	set_faults(&e, p, to_node1, 1);
	struct ts_numa_result r;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), expect_ret);
	if (expect_ret == 0) {
		assert_int_equal(r.dst_cpu, 32 + nr_on_dst);
		assert_null(r.swap);
		ts_numa_migrate_done(e.s, &r);
	} else {
		assert_int_equal(r.dst_cpu, -1);
		struct ts_numa_cpu_stats st;
		ts_numa_stats_sum(e.s, &st);
		assert_int_equal(ts_stat_read(&st.stick), 1);
	}
	for (int c = 0; c < e.t->nr_cpus; c++)
		assert_int_equal(reserved(&e, c), 0);
	ts_cpumask_free(m);
	env_close(&e);
}

static void test_imbalance_limits(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	int imb = (int)e.s->dom->cpu[0].sd_numa->imb_numa_nr;
	assert_int_equal(e.s->dom->cpu[0].sd_numa->imbalance_pct, 117); /* env: 108 */
	env_close(&e);
	assert_true(imb >= TS_NUMA_IMBALANCE_MIN);
	/* p alone on node 0: src_running 0, imbalance = dst_running = k + 1 */
	imbalance_case(1, 0, 0);			   /* imbalance 1 <= MIN */
	imbalance_case(1, TS_NUMA_IMBALANCE_MIN - 1, 0);   /* imbalance 2 == MIN */
	imbalance_case(1, TS_NUMA_IMBALANCE_MIN, -EAGAIN); /* 3 > MIN */
	/* nr_src = imb on node 0: imbalance stays 1, dst_running is the limit */
	imbalance_case(imb, imb - 1, 0);   /* dst_running == imb_numa_nr: allowed */
	imbalance_case(imb, imb, -EAGAIN); /* dst_running > imb_numa_nr: refused */
}

/* Swap: both tasks gain. The first candidate (a task without faults) is replaced by the
 * better one, and its reservation moves with it. */
static void test_swap_both_gain(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 40, NULL, NULL);
	fill_busy(&e, 0, 40);
	const unsigned long to1[4] = {0, 100, 0, 0}, to0[4] = {100, 0, 0, 0};
	set_faults(&e, p, to1, 1);
	set_faults(&e, q, to0, 0);
	struct ts_numa_result r;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	assert_ptr_equal(r.swap, q);
	assert_int_equal(r.dst_cpu, 40);
	/* taskimp + q's gain (GLUELESS_MESH scores count nearby nodes), q moving to its
	 * preferred node: + 1/8 */
	int d = ts_topo_distance(e.t, 0, 1);
	long imp =
		(long)ts_numa_task_weight(e.s, p, 1, d) - (long)ts_numa_task_weight(e.s, p, 0, d) +
		(long)ts_numa_task_weight(e.s, q, 0, d) - (long)ts_numa_task_weight(e.s, q, 1, d);
	imp += imp / 8;
	assert_true(imp > TS_NUMA_SMALLIMP);
	assert_int_equal(r.imp, imp);
	assert_int_equal(reserved(&e, 40), 1);
	assert_int_equal(reserved(&e, 32), 0); /* the first candidate's flag was released */
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), 0);
	ts_numa_migrate_done(e.s, &r);
	assert_int_equal(p->cpu, 40);
	assert_int_equal(q->cpu, 0);
	assert_int_equal(reserved(&e, 40), 0);
	struct ts_numa_cpu_stats st;
	ts_numa_stats_sum(e.s, &st);
	assert_int_equal(ts_stat_read(&st.swaps), 1);
	assert_int_equal(ts_stat_read(&st.migrations), 0);
	unsigned pr, nu;
	ts_numa_preferred_share(e.s, &pr, &nu);
	assert_int_equal(nu, 2);
	assert_int_equal(pr, 2);
	env_close(&e);
}

/* No swap when only p gains, by less than SMALLIMP. */
static void test_no_swap_small_gain(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL), *q = spawn(&e, 40, NULL, NULL);
	fill_busy(&e, 0, 40);
	const unsigned long pf[4] = {490, 510, 0, 0}, qf[4] = {500, 500, 0, 0};
	set_faults(&e, p, pf, 1);
	set_faults(&e, q, qf, 1);
	struct ts_numa_result r;
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), -EAGAIN);
	assert_int_equal(r.dst_cpu, -1);
	assert_int_equal(p->cpu, 0);
	for (int c = 0; c < e.t->nr_cpus; c++)
		assert_int_equal(reserved(&e, c), 0);
	/* With a gain >= SMALLIMP for p alone (q neutral), the swap happens. */
	int d = ts_topo_distance(e.t, 0, 1);
	assert_true((long)ts_numa_task_weight(e.s, p, 1, d) -
			    (long)ts_numa_task_weight(e.s, p, 0, d) <
		    TS_NUMA_SMALLIMP);
	const unsigned long pf2[4] = {300, 700, 0, 0};
	set_faults(&e, p, pf2, 1);
	assert_true((long)ts_numa_task_weight(e.s, p, 1, d) -
			    (long)ts_numa_task_weight(e.s, p, 0, d) >=
		    TS_NUMA_SMALLIMP);
	assert_int_equal(ts_task_numa_migrate(e.s, p, &r), 0);
	assert_non_null(r.swap);
	assert_int_equal(e.t->cpu[r.dst_cpu].node, 1);
	ts_numa_migrate_done(e.s, &r); /* abandoned: released, counted stick */
	assert_int_equal(reserved(&e, r.dst_cpu), 0);
	env_close(&e);
}

/* The fault path: placement then numa_migrate_preferred, with the retry interval. */
static void test_fault_path_migrates(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_task *p = spawn(&e, 0, NULL, NULL);
	struct ts_numa_result r;
	assert_int_equal(ts_task_numa_fault(e.s, p, NULL, 2, 50, TS_TNF_MIGRATED, &r), 1);
	ts_numa_scan_done(p->numa->mm);
	e.f.now += 10 * 1000000ULL;
	assert_int_equal(ts_task_numa_fault(e.s, p, p, 2, 1, 0, &r), 0);
	assert_int_equal(p->numa->numa_preferred_nid, 2);
	assert_int_equal(e.t->cpu[r.dst_cpu].node, 2);
	assert_int_equal(reserved(&e, r.dst_cpu), 1);
	/* Inside the retry interval no new attempt is made. */
	assert_int_equal(ts_task_numa_fault(e.s, p, p, 2, 1, 0, NULL), 1);
	assert_int_equal(ts_numa_migrate_apply(e.s, &r), 0);
	ts_numa_migrate_done(e.s, &r);
	struct ts_numa_cpu_stats st;
	ts_numa_stats_sum(e.s, &st);
	assert_int_equal(ts_stat_read(&st.hint_faults), 52);
	assert_int_equal(ts_stat_read(&st.hint_faults_remote), 52);
	assert_int_equal(ts_stat_read(&st.hint_faults_private), 52);
	assert_int_equal(ts_stat_read(&st.pages_migrated), 50);
	assert_int_equal(ts_stat_read(&st.migrations), 1);
	assert_int_equal(ts_stat_read(&st.applied), 1);
	/* NO_NUMA: faults are ignored. */
	ts_features_clear(&e.s->features, TS_FEAT_NUMA);
	assert_int_equal(ts_task_numa_fault(e.s, p, p, 2, 1, 0, NULL), 1);
	ts_numa_stats_sum(e.s, &st);
	assert_int_equal(ts_stat_read(&st.hint_faults), 52);
	env_close(&e);
}

/* ---- the regular load balancer at NUMA levels ---- */

#define MS 1000000ULL

static void tick_balance(struct env *e, int cpu)
{
	ts_balance_tick(e->s, cpu);
	assert_int_equal(e->f.lock_errors, 0);
	for (int c = 0; c < e->t->nr_cpus; c++)
		assert_int_equal(e->f.locked[c], 0);
}

/* A queued task of cpu that is not running (the least recently picked). */
static struct ts_task *queued_of(struct env *e, int cpu)
{
	struct ts_rq *rq = &e->s->rq[cpu];
	for (struct ts_list_head *n = rq->cfs_tasks.prev; n != &rq->cfs_tasks; n = n->prev) {
		struct ts_task *p = ts_task_of_cfs_node(n);
		if (p != rq->curr)
			return p;
	}
	return NULL;
}

/* nr_numa_running / nr_preferred_running stay exact through every way a task joins or
 * leaves a run queue: wake-up, sleep, wake-up elsewhere, queued move, NUMA stop work,
 * periodic balancing, exit, and a change of the preferred node while queued. */
static void test_counts_exact(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	e.f.now = 1000 * MS;
	const unsigned long on0[4] = {100, 0, 0, 0}, on1[4] = {0, 100, 0, 0};
	struct ts_task *a = spawn(&e, 0, NULL, NULL);
	struct ts_task *b = &e.task[e.nr_tasks];
	struct ts_error err = {0};
	for (int i = 0; i < 5; i++) { /* 5 more queued behind a on CPU 0 */
		struct ts_task *p = &e.task[e.nr_tasks];
		assert_int_equal(ts_task_init(e.s, p, 0, NULL, 0, &err), 0);
		p->id = e.nr_tasks++;
		assert_int_equal(ts_numa_task_init(e.s, p, NULL, &err), 0);
		fake_run_on(e.s, &e.f, p, 0);
	}
	set_faults(&e, a, on0, 0);
	set_faults(&e, &b[0], on1, 1);
	set_faults(&e, &b[1], on1, 1);
	set_faults(&e, &b[2], on0, 0);
	/* b[3], b[4]: no preferred node */
	check_counts(&e);
	assert_int_equal(atomic_load(&e.s->rq[0].ro.nr_numa_running), 4);
	assert_int_equal(atomic_load(&e.s->rq[0].ro.nr_preferred_running), 2);

	/* sleep, then a wake-up wherever placement puts it */
	int cpu = 0;
	fake_lock(&e.f, cpu);
	struct ts_task *sleeper = e.s->rq[cpu].curr;
	assert_non_null(sleeper);
	ts_deactivate_curr(e.s, cpu, TS_TASK_SLEEPING);
	ts_schedule(e.s, cpu);
	fake_unlock(&e.f, cpu);
	check_counts(&e);
	e.f.now += MS;
	ts_try_to_wake_up(e.s, sleeper, 40, NULL, 0);
	check_counts(&e);
	/* a queued task moved between nodes */
	struct ts_task *q = queued_of(&e, 0);
	assert_non_null(q);
	fake_lock(&e.f, 0);
	fake_lock(&e.f, 32);
	ts_move_queued_task(e.s, q, 0, 32);
	fake_unlock(&e.f, 32);
	fake_unlock(&e.f, 0);
	check_counts(&e);
	/* the NUMA stop work (a task of CPU 0 that prefers node 1 is sent there) */
	for (int i = 0; i < 5; i++) {
		struct ts_task *p = &b[i];
		if (p->cpu == 0 && p->numa->numa_preferred_nid == 1 && e.s->rq[0].curr == p) {
			struct ts_numa_result r;
			if (ts_task_numa_migrate(e.s, p, &r) == 0) {
				ts_numa_migrate_apply(e.s, &r);
				ts_numa_migrate_done(e.s, &r);
			}
		}
	}
	check_counts(&e);
	/* periodic balancing by idle CPUs of every node */
	e.f.now += 10 * MS;
	for (int c = 0; c < e.t->nr_cpus; c += 8)
		tick_balance(&e, c);
	check_counts(&e);
	/* the preferred node changes while queued */
	q = queued_of(&e, 0);
	if (q) {
		set_faults(&e, q, on1, 1);
		check_counts(&e);
	}
	/* exit of every running task */
	for (int c = 0; c < e.t->nr_cpus; c++) {
		if (!e.s->rq[c].curr)
			continue;
		fake_lock(&e.f, c);
		ts_deactivate_curr(e.s, c, TS_TASK_DEAD);
		ts_schedule(e.s, c);
		fake_unlock(&e.f, c);
		check_counts(&e);
	}
	env_close(&e);
}

/* n tasks on cpu; with faults `mem` and preferred node `pref` (mem NULL: no preferred
 * node, no faults). The last one runs. */
static void put_tasks(struct env *e, int cpu, int n, const unsigned long *mem, int pref)
{
	for (int i = 0; i < n; i++) {
		struct ts_task *p = spawn_queued(e, cpu);
		if (mem)
			set_faults(e, p, mem, pref);
	}
}

/* Node 0 is busy, node 1 idle; CPU 0 runs only tasks on their preferred node (class
 * `all`), CPU 1 tasks that are `regular` (no preferred node) or `remote` (they prefer node
 * 1). An idle CPU of node 1 balancing at the NUMA level pulls from CPU 1 and leaves CPU 0
 * alone, although CPU 0 is the busier queue. With NO_NUMA it pulls from CPU 0. */
static void fbq_case(const char *features, bool remote, bool expect_cpu0_kept)
{
	struct env e;
	env_preset(&e, "kunpeng920", features);
	e.f.now = 1000 * MS;
	const unsigned long on0[4] = {100, 0, 0, 0}, on1[4] = {0, 100, 0, 0};
	put_tasks(&e, 0, 8, on0, 0);
	put_tasks(&e, 1, 6, remote ? on1 : NULL, remote ? 1 : TS_NUMA_NO_NODE);
	e.f.now += MS; /* cache cold */
	check_counts(&e);
	assert_int_equal(ts_rq_nr_running(e.s, 0), 8);
	assert_int_equal(ts_rq_nr_running(e.s, 1), 6);
	tick_balance(&e, 32);
	unsigned on_node1 = 0;
	for (int c = 32; c < 64; c++)
		on_node1 += ts_rq_nr_running(e.s, c);
	assert_true(on_node1 >= 1);
	if (expect_cpu0_kept) {
		assert_int_equal(ts_rq_nr_running(e.s, 0), 8);
		assert_int_equal(ts_rq_nr_running(e.s, 1), 6 - on_node1);
	} else {
		assert_true(ts_rq_nr_running(e.s, 0) < 8);
	}
	check_counts(&e);
	env_close(&e);
}

static void test_fbq_regular_and_remote(void **state)
{
	(void)state;
	fbq_case("", false, true);	   /* regular group: CPU 0 (all) skipped */
	fbq_case("", true, true);	   /* remote group: CPU 0 (all) skipped */
	fbq_case("NO_NUMA", false, false); /* as before NUMA: the busiest queue */
	fbq_case("NO_NUMA", true, false);
}

/* Remote tasks go to their preferred node even when cache hot (locality says 0). */
static void test_balance_to_preferred_ignores_hotness(void **state)
{
	(void)state;
	for (int numa = 0; numa < 2; numa++) {
		struct env e;
		env_preset(&e, "kunpeng920", numa ? "" : "NO_NUMA");
		e.f.now = 1000 * MS;
		const unsigned long on1[4] = {0, 100, 0, 0};
		put_tasks(&e, 1, 6, on1, 1);
		for (int i = 0; i < e.nr_tasks; i++)
			e.task[i].se.exec_start = e.f.now; /* all cache hot */
		tick_balance(&e, 32);
		unsigned moved = 6 - ts_rq_nr_running(e.s, 1);
		if (numa)
			assert_true(moved >= 1);
		else
			assert_int_equal(moved, 0);
		check_counts(&e);
		env_close(&e);
	}
}

/* migrate_degrades_locality(): 1 / 0 / -1 in the kernel's cases. */
static void test_migrate_degrades_locality(void **state)
{
	(void)state;
	struct env e;
	env_preset(&e, "kunpeng920", "");
	struct ts_sched_domain *numa = e.s->dom->cpu[32].sd_numa, *llc = e.s->dom->cpu[32].sd_llc;
	assert_non_null(numa);
	assert_non_null(llc);
	assert_true(numa->flags & TS_SD_NUMA);
	assert_false(llc->flags & TS_SD_NUMA);
	const unsigned long on0[4] = {100, 0, 0, 0};
	const unsigned long src_heavy[4] = {90, 0, 10, 0}, dst_heavy[4] = {0, 90, 10, 0};
	struct ts_task *p = spawn_queued(&e, 0), *r = spawn_queued(&e, 0);
	(void)r;
	enum ts_idle_type busy = TS_CPU_NOT_IDLE, idle = TS_CPU_IDLE;
	/* no faults */
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), -1);
	set_faults(&e, p, on0, 0);
	/* not a NUMA level; the same node */
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, llc, 0, 32, busy), -1);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 1, busy), -1);
	/* leaving the preferred node: CPU 0 also runs r, which has no preferred node -> 1 */
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), 1);
	/* ... only preferred tasks on CPU 0 -> -1 (cache hotness decides) */
	set_faults(&e, r, on0, 0);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), -1);
	/* to the preferred node -> 0, even for an idle destination */
	set_faults(&e, p, on0, 1);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), 0);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, idle), 0);
	/* neither node preferred: an idle destination -> -1, else the weights */
	set_faults(&e, p, src_heavy, 3);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, idle), -1);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), 1);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, TS_CPU_NEWLY_IDLE),
			 1);
	set_faults(&e, p, dst_heavy, 3);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), 0);
	/* NO_NUMA: locality never decides */
	set_faults(&e, p, src_heavy, 3);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), 1);
	ts_features_clear(&e.s->features, TS_FEAT_NUMA);
	assert_int_equal(ts_numa_migrate_degrades_locality(e.s, p, numa, 0, 32, busy), -1);
	env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placement_by_fault_share),
		cmocka_unit_test(test_placement_tie_lowest_node),
		cmocka_unit_test(test_scan_period_bounds),
		cmocka_unit_test(test_group_join_same_mm),
		cmocka_unit_test(test_move_to_idle_and_reservation),
		cmocka_unit_test(test_no_reserve_same_cpu),
		cmocka_unit_test(test_epyc_reservation_smt),
		cmocka_unit_test(test_imbalance_limits),
		cmocka_unit_test(test_swap_both_gain),
		cmocka_unit_test(test_no_swap_small_gain),
		cmocka_unit_test(test_fault_path_migrates),
		cmocka_unit_test(test_counts_exact),
		cmocka_unit_test(test_fbq_regular_and_remote),
		cmocka_unit_test(test_balance_to_preferred_ignores_hotness),
		cmocka_unit_test(test_migrate_degrades_locality),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
