/* Wake-up placement (select.c) on constructed machine states: every step and reason of
 * select_idle_sibling() with the scan features on and off, wake_affine(), wake_wide(),
 * the SIS statistics, and the derived metrics (stats.c). CPUs are made busy by running
 * tasks on them through the fake host; every other CPU is idle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched_env.h"
#include "topo/topo_build.h"
#include "toposched/sched.h"

#define WAKE_SYNC (TS_WF_TTWU | TS_WF_SYNC)

/* The pool: task[0] is the wakee (see wakee()), then up to 4 busy tasks per CPU. */
static struct env *env_on(struct ts_topology *t, const char *features)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	env_open(e, t, features, NULL, NULL, 1 + 4 * t->nr_cpus);
	env_task(e, 0, NULL, 0);
	return e;
}

static struct env *env_new(const char *name, const char *features)
{
	return env_on(preset(name), features);
}

static void env_free(struct env *e)
{
	assert_int_equal(e->f.lock_errors, 0);
	env_destroy(e);
	free(e);
}

/* One more task running (or queued) on cpu; returns it. */
static struct ts_task *busy(struct env *e, int cpu)
{
	return env_busy(e, cpu);
}

static void busy_range(struct env *e, int first, int last)
{
	for (int c = first; c <= last; c++)
		busy(e, c);
}

/* The wakee, last run on prev (recent_used_cpu = prev too): task[0], set up anew. */
static struct ts_task *wakee(struct env *e, int prev, const struct ts_cpumask *allowed)
{
	struct ts_task *p = &e->task[0];
	struct ts_error err = {0};
	ts_task_destroy(p);
	assert_int_equal(ts_task_init(e->s, p, 0, allowed, prev, &err), 0);
	return p;
}

static struct ts_sched_domain_shared *llc_shared(struct env *e, int cpu)
{
	struct ts_sched_domain_shared *sds = e->s->dom->cpu[cpu].sd_llc_shared;
	assert_non_null(sds);
	return sds;
}

static void set_nr_idle_scan(struct env *e, int cpu, int nr)
{
	atomic_store(&llc_shared(e, cpu)->nr_idle_scan, nr);
}

static struct ts_cpu_stats *st(struct env *e, int cpu)
{
	return &e->s->rq[cpu].stats;
}
#define R(c) ts_stat_read(&(c))

static int sum_rel(const struct ts_placement *pl)
{
	int n = 0;
	for (int r = 0; r < TS_REL_NR; r++)
		n += pl->scanned_by_relation[r];
	return n;
}

/* ---- select_idle_sibling steps ---- */

static void test_target_idle(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *p = wakee(e, 5, NULL);
	/* a wake-up from no task (timer) on the idle prev CPU */
	struct ts_placement pl = ts_select_task_rq(e->s, p, 5, NULL, TS_WF_TTWU);
	assert_int_equal(pl.cpu, 5);
	assert_int_equal(pl.target, 5);
	assert_int_equal(pl.reason, TS_PLACE_TARGET_IDLE);
	assert_int_equal(pl.nr_scanned, 0);
	assert_int_equal(R(st(e, 5)->sis_search), 1);
	assert_int_equal(R(st(e, 5)->sis_scanned), 1); /* the fast path counts as one */
	assert_int_equal(R(st(e, 5)->sis_domain_search), 0);
	assert_int_equal(R(st(e, 5)->reasons[TS_PLACE_TARGET_IDLE]), 1);
	env_free(e);
}

/* kunpeng920: an idle prev in another cluster of the LLC. */
static void test_prev_other_cluster(void **state)
{
	(void)state;
	/* NO_SIS_CLUSTER (pre-v6.7): prev anywhere in the LLC is taken */
	struct env *e = env_new("kunpeng920", "NO_SIS_CLUSTER");
	struct ts_task *w = busy(e, 0);
	struct ts_task *p = wakee(e, 8, NULL);
	set_nr_idle_scan(e, 0, 31);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_true(pl.want_affine);
	assert_true(pl.affine); /* sync, waker alone: wake_affine_idle picks the waker CPU */
	assert_int_equal(pl.target, 0);
	assert_int_equal(pl.cpu, 8);
	assert_int_equal(pl.reason, TS_PLACE_PREV);
	env_free(e);

	/* SIS_CLUSTER: passed over for an idle cluster-mate of the target */
	e = env_new("kunpeng920", "");
	assert_true(e->s->dom->cluster_active);
	w = busy(e, 0);
	p = wakee(e, 8, NULL);
	set_nr_idle_scan(e, 0, 31);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.target, 0);
	assert_int_equal(pl.cpu, 1); /* wrap from target+1 inside cluster 0-3 */
	assert_int_equal(pl.reason, TS_PLACE_CLUSTER_SCAN);
	assert_int_equal(pl.nr_scanned, 1);
	assert_int_equal(pl.scanned_by_relation[TS_REL_CLUSTER], 1);
	assert_int_equal(p->recent_used_cpu, 8); /* recent_used_cpu = prev, always */
	env_free(e);

	/* SIS_CLUSTER: a prev in the target's cluster is still taken at once */
	e = env_new("kunpeng920", "");
	w = busy(e, 0);
	p = wakee(e, 2, NULL);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 2);
	assert_int_equal(pl.reason, TS_PLACE_PREV);
	env_free(e);
}

/* The other-cluster prev becomes the fallback when the budget runs out first. */
static void test_prev_fallback(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *w = busy(e, 0);
	busy_range(e, 1, 7);
	busy_range(e, 9, 31); /* only 8 (prev) idle in the LLC */
	struct ts_task *p = wakee(e, 8, NULL);
	set_nr_idle_scan(e, 0, 3);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 8);
	assert_int_equal(pl.reason, TS_PLACE_PREV_FALLBACK);
	assert_int_equal(pl.nr_scanned, 3); /* 1, 2, 3: the budget */
	assert_int_equal(pl.scanned_by_relation[TS_REL_CLUSTER], 3);
	assert_int_equal(R(st(e, 0)->sis_failed), 0);
	assert_int_equal(R(st(e, 0)->sis_scanned), 4);
	assert_int_equal(R(st(e, 0)->scan_hist[ts_scan_hist_bucket(3)]), 1);
	assert_int_equal(R(st(e, 0)->reasons[TS_PLACE_PREV_FALLBACK]), 1);

	/* a budget that reaches prev finds it in the scan instead: the cluster wrap ends on
	 * the target itself (1, 2, 3, 0, as the kernel: target is in cpus), then 4 .. 8 */
	set_nr_idle_scan(e, 0, 31);
	p->cpu = 8;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 8);
	assert_int_equal(pl.reason, TS_PLACE_LLC_SCAN);
	assert_int_equal(pl.nr_scanned, 4 + 5);
	assert_int_equal(pl.scanned_by_relation[TS_REL_SAME_CPU], 1);
	assert_int_equal(pl.scanned_by_relation[TS_REL_LLC], 5);
	env_free(e);
}

/* Scan order: target+1 wrapping inside the target's cluster, then the rest of the LLC. */
static void test_scan_wrap_order(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *w = busy(e, 6);
	busy(e, 7);
	struct ts_task *p = wakee(e, 6, NULL); /* prev == waker CPU: target 6 */
	set_nr_idle_scan(e, 6, 31);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 6, w, WAKE_SYNC);
	assert_false(pl.affine_attempted); /* cpu == prev: no wake_affine() */
	assert_int_equal(pl.target, 6);
	assert_int_equal(pl.cpu, 4); /* 7 busy, then 4 */
	assert_int_equal(pl.nr_scanned, 2);
	assert_int_equal(pl.reason, TS_PLACE_CLUSTER_SCAN);

	busy(e, 4);
	p->cpu = 6;
	pl = ts_select_task_rq(e->s, p, 6, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 5); /* 7, 4, 5 */
	assert_int_equal(pl.nr_scanned, 3);

	busy(e, 5);
	p->cpu = 6;
	pl = ts_select_task_rq(e->s, p, 6, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 8); /* cluster full (7, 4, 5, 6): the LLC from 7 on */
	assert_int_equal(pl.reason, TS_PLACE_LLC_SCAN);
	assert_int_equal(pl.nr_scanned, 5);
	assert_int_equal(pl.scanned_by_relation[TS_REL_CLUSTER], 3);
	assert_int_equal(pl.scanned_by_relation[TS_REL_SAME_CPU], 1);
	assert_int_equal(pl.scanned_by_relation[TS_REL_LLC], 1);
	env_free(e);

	/* NO_SIS_CLUSTER: one LLC-wide wrap from target+1 (30 -> 31 -> 0) */
	e = env_new("kunpeng920", "NO_SIS_CLUSTER");
	w = busy(e, 30);
	busy(e, 31);
	p = wakee(e, 30, NULL);
	set_nr_idle_scan(e, 30, 31);
	pl = ts_select_task_rq(e->s, p, 30, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_LLC_SCAN);
	assert_int_equal(pl.nr_scanned, 2);
	env_free(e);
}

static void test_sis_util_budget(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "NO_SIS_CLUSTER");
	struct ts_task *w = busy(e, 0);
	busy_range(e, 1, 19);
	busy_range(e, 21, 31); /* 20 idle, far away in the scan */
	struct ts_task *p = wakee(e, 0, NULL);
	set_nr_idle_scan(e, 0, 3);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_BUDGET_EXHAUSTED);
	assert_int_equal(pl.nr_scanned, 3);
	assert_int_equal(sum_rel(&pl), 3);
	assert_int_equal(R(st(e, 0)->sis_failed), 1);
	assert_int_equal(R(st(e, 0)->sis_domain_search), 1);
	assert_int_equal(R(st(e, 0)->sis_scanned), 4);

	/* NO_SIS_UTIL: unlimited, finds 20 */
	ts_features_clear(&e->s->features, TS_FEAT_SIS_UTIL);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 20);
	assert_int_equal(pl.reason, TS_PLACE_LLC_SCAN);
	assert_int_equal(pl.nr_scanned, 20);
	env_free(e);
}

static void test_sis_util_zero(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *w = busy(e, 0);
	struct ts_task *p = wakee(e, 0, NULL);
	set_nr_idle_scan(e, 0, 0); /* the LLC is considered overloaded: no scan */
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_BUDGET_EXHAUSTED);
	assert_int_equal(pl.nr_scanned, 0);
	assert_int_equal(R(st(e, 0)->scan_hist[0]), 1);
	assert_int_equal(R(st(e, 0)->sis_failed), 1);
	/* nr_idle_scan 1: exactly one CPU examined, the idle cluster-mate 1 */
	set_nr_idle_scan(e, 0, 1);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 1);
	assert_int_equal(pl.nr_scanned, 1);
	env_free(e);
}

/* SIS_OVERLOAD: a marked LLC is not scanned until target or prev has at most one task; a
 * scan marks it once what it looked at runs two tasks per CPU. */
static void test_sis_overload(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "NO_SIS_UTIL SIS_OVERLOAD NO_SIS_CLUSTER");
	struct ts_task *w = busy(e, 0);
	busy(e, 0); /* target: 2 tasks */
	busy(e, 8);
	busy(e, 8); /* prev: 2 tasks */
	struct ts_task *p = wakee(e, 8, NULL);
	struct ts_sched_domain_shared *sds = llc_shared(e, 0);
	atomic_store(&sds->overloaded, 1);
	/* waker not alone, prev busy, NO_WA_WEIGHT: not affine, target = prev 8 */
	ts_features_clear(&e->s->features, TS_FEAT_WA_WEIGHT);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, TS_WF_TTWU);
	assert_int_equal(pl.target, 8);
	assert_int_equal(pl.cpu, 8);
	assert_int_equal(pl.reason, TS_PLACE_SCAN_ABORTED);
	assert_int_equal(pl.nr_scanned, 0);
	assert_int_equal(atomic_load(&sds->overloaded), 1);
	assert_int_equal(R(st(e, 0)->reasons[TS_PLACE_SCAN_ABORTED]), 1);

	/* prev down to one task: the mark is cleared and the scan runs */
	fake_lock(&e->f, 8);
	ts_deactivate_curr(e->s, 8, TS_TASK_SLEEPING);
	ts_schedule(e->s, 8);
	fake_unlock(&e->f, 8);
	assert_int_equal(ts_rq_nr_running(e->s, 8), 1);
	p->cpu = 8;
	pl = ts_select_task_rq(e->s, p, 0, w, TS_WF_TTWU);
	assert_int_equal(atomic_load(&sds->overloaded), 0);
	assert_true(pl.reason == TS_PLACE_LLC_SCAN);
	assert_true(pl.nr_scanned >= 1);
	env_free(e);

	/* A scan stops and marks the LLC as soon as the CPUs looked at (the fast path's
	 * target, prev and recent_used_cpu included) run twice as many tasks as there are
	 * of them. Target 0: the waker and one more. */
	e = env_new("kunpeng920", "NO_SIS_UTIL SIS_PROP SIS_OVERLOAD NO_SIS_CLUSTER");
	w = busy(e, 0);
	busy(e, 0);
	busy(e, 1); /* 1 task */
	busy(e, 2);
	busy(e, 2); /* 2 tasks */
	p = wakee(e, 0, NULL);
	sds = llc_shared(e, 0);
	/* SIS_PROP's budget far above the LLC; each CPU examined costs 100 ns */
	struct ts_sched_domain *llc = e->s->dom->cpu[0].sd_llc;
	atomic_store(&e->s->rq[0].ro.wake_stamp, e->f.now / e->s->tick_nsec);
	atomic_store(&e->s->rq[0].ro.wake_avg_idle, 1000000);
	e->f.scan_ns_per_cpu = 100;
	llc->avg_scan_cost = 800;
	/* 0, 1, 2 looked at: 5 tasks < 2 * 3, go on; 3 is idle; the scan is accounted */
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 3);
	assert_int_equal(pl.reason, TS_PLACE_LLC_SCAN);
	assert_int_equal(pl.nr_scanned, 3);
	assert_int_equal(atomic_load(&sds->overloaded), 0);
	assert_int_equal(llc->avg_scan_cost, 800 + (300 - 800) / 8);
	/* a third task on 2: 6 tasks >= 2 * 3 there, stop before 3, as at the budget's end:
	 * not accounted */
	busy(e, 2);
	p = wakee(e, 0, NULL);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_SCAN_ABORTED);
	assert_int_equal(pl.nr_scanned, 2);
	assert_int_equal(atomic_load(&sds->overloaded), 1);
	assert_int_equal(llc->avg_scan_cost, 800 + (300 - 800) / 8);
	assert_int_equal(R(st(e, 0)->sis_failed), 1);
	/* marked, target busy: the next wake-up does not scan */
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.reason, TS_PLACE_SCAN_ABORTED);
	assert_int_equal(pl.nr_scanned, 0);
	/* NO_SIS_OVERLOAD: the mark is ignored, 3 is found */
	ts_features_clear(&e->s->features, TS_FEAT_SIS_OVERLOAD);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 3);
	assert_int_equal(pl.nr_scanned, 3);
	env_free(e);

	/* recent_used_cpu counts when the fast path looked at it: in target's LLC and busy */
	e = env_new("kunpeng920", "NO_SIS_UTIL SIS_OVERLOAD NO_SIS_CLUSTER");
	w = busy(e, 0); /* target 0: 1 task */
	busy(e, 1);	/* 1 task */
	for (int k = 0; k < 3; k++) {
		busy(e, 5);  /* 3 tasks, same LLC */
		busy(e, 96); /* 3 tasks, another node */
	}
	assert_true(ts_cpus_share_cache(e->s->dom, 0, 5));
	assert_false(ts_cpus_share_cache(e->s->dom, 0, 96));
	sds = llc_shared(e, 0);
	/* 0 and 96: 96 was not looked at; 0, 1: 2 tasks < 2 * 2; 2 is idle */
	p = wakee(e, 0, NULL);
	p->recent_used_cpu = 96;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 2);
	assert_int_equal(atomic_load(&sds->overloaded), 0);
	/* 0, 5, 1: 5 tasks < 2 * 3; 2 is idle */
	p = wakee(e, 0, NULL);
	p->recent_used_cpu = 5;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 2);
	busy(e, 1); /* 0, 5, 1: 6 tasks >= 2 * 3 */
	p = wakee(e, 0, NULL);
	p->recent_used_cpu = 5;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.reason, TS_PLACE_SCAN_ABORTED);
	assert_int_equal(pl.nr_scanned, 1);
	assert_int_equal(atomic_load(&sds->overloaded), 1);
	env_free(e);
}

/* SIS_PROP: the budget from the waker CPU's wake_avg_idle and its LLC's avg_scan_cost. */
static void test_sis_prop(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "NO_SIS_UTIL SIS_PROP NO_SIS_CLUSTER");
	struct ts_sched *s = e->s;
	struct ts_task *w = busy(e, 0);
	busy_range(e, 1, 31);
	struct ts_task *p = wakee(e, 0, NULL);
	struct ts_rq_ro *ro = &s->rq[0].ro;
	struct ts_sched_domain *llc = s->dom->cpu[0].sd_llc;
	uint64_t jiffies = e->f.now / s->tick_nsec;

	/* span 32 * 1000 = 32000 > 4 * 4000: nr = 8, i.e. 7 CPUs examined */
	atomic_store(&ro->wake_stamp, jiffies);
	atomic_store(&ro->wake_avg_idle, 1000);
	llc->avg_scan_cost = 3999;
	struct ts_placement pl = ts_select_task_rq(s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.reason, TS_PLACE_BUDGET_EXHAUSTED);
	assert_int_equal(pl.nr_scanned, 7);
	assert_int_equal(llc->avg_scan_cost, 3999); /* a throttled scan is not accounted */
	assert_int_equal(atomic_load(&ro->wake_avg_idle), 1000);

	/* aging: two jiffies later the predicted idle time is a quarter: nr = 4 minimum */
	e->f.now += 2 * s->tick_nsec;
	pl = ts_select_task_rq(s, p, 0, w, WAKE_SYNC);
	assert_int_equal(atomic_load(&ro->wake_avg_idle), 250);
	assert_int_equal(atomic_load(&ro->wake_stamp), jiffies + 2);
	assert_int_equal(pl.nr_scanned, 3);

	/* a scan that finds a CPU is charged: wake_avg_idle -= t, avg_scan_cost moves 1/8 */
	e->f.scan_ns_per_cpu = 100;
	fake_lock(&e->f, 2);
	ts_deactivate_curr(s, 2, TS_TASK_SLEEPING);
	ts_features_clear(&s->features, TS_FEAT_NEWIDLE_BALANCE); /* stay idle */
	ts_schedule(s, 2);
	fake_unlock(&e->f, 2);
	assert_true(ts_idle_cpu(s, 2));
	atomic_store(&ro->wake_stamp, e->f.now / s->tick_nsec);
	atomic_store(&ro->wake_avg_idle, 100000);
	llc->avg_scan_cost = 800;
	pl = ts_select_task_rq(s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 2);
	assert_int_equal(pl.nr_scanned, 2);
	assert_int_equal(pl.scan_time_ns, 200);
	assert_int_equal(atomic_load(&ro->wake_avg_idle), 100000 - 200);
	assert_int_equal(llc->avg_scan_cost, 800 + (200 - 800) / 8);
	assert_int_equal(R(st(e, 0)->scan_time_ns), 200);
	env_free(e);
}

/* Jacobsville: clusters of 4 sharing an L2, no SMT. */
static void test_jacobsville(void **state)
{
	(void)state;
	struct env *e = env_new("jacobsville", "");
	assert_true(e->s->dom->cluster_active);
	assert_false(e->s->dom->smt_active);
	struct ts_task *w = busy(e, 12);
	struct ts_task *p = wakee(e, 0, NULL);
	set_nr_idle_scan(e, 12, 23);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 12, w, WAKE_SYNC);
	assert_int_equal(pl.target, 12);
	assert_int_equal(pl.cpu, 13);
	assert_int_equal(pl.reason, TS_PLACE_CLUSTER_SCAN);
	env_free(e);

	e = env_new("jacobsville", "NO_SIS_CLUSTER");
	w = busy(e, 12);
	p = wakee(e, 0, NULL);
	set_nr_idle_scan(e, 12, 23);
	pl = ts_select_task_rq(e->s, p, 12, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_PREV);
	env_free(e);
}

/* SMT: epyc-7601, CCX = 4 cores x 2 threads; CCX 0 = CPUs 0-3 and 64-67 (0 and 64 are
 * siblings). */
static void test_smt_idle_core(void **state)
{
	(void)state;
	struct env *e = env_new("epyc-7601", "");
	assert_true(e->s->dom->smt_active);
	struct ts_task *w = busy(e, 0);
	busy(e, 1); /* core 1 half busy (65 idle), cores 2, 3 idle */
	struct ts_task *p = wakee(e, 0, NULL);
	struct ts_sched_domain_shared *sds = llc_shared(e, 0);
	atomic_store(&sds->has_idle_cores, 1);
	atomic_store(&sds->nr_idle_scan, 1); /* the idle-core scan ignores the budget... */
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 2);
	assert_int_equal(pl.reason, TS_PLACE_IDLE_CORE);
	assert_int_equal(pl.nr_scanned, 4); /* 1, 65 | 2, 66 */
	assert_int_equal(R(st(e, 0)->sis_core_search), 2);
	assert_int_equal(R(st(e, 0)->sis_core_failed), 1);
	assert_int_equal(atomic_load(&sds->has_idle_cores), 1);
	/* ...but not SIS_UTIL's "nr_idle_scan 0: no scan at all" (as the kernel) */
	atomic_store(&sds->nr_idle_scan, 0);
	p->cpu = 0;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_BUDGET_EXHAUSTED);
	env_free(e);
}

static void test_smt_idle_thread_and_hint_cleared(void **state)
{
	(void)state;
	struct env *e = env_new("epyc-7601", "");
	struct ts_task *w = busy(e, 0);
	busy_range(e, 1, 3); /* one busy thread on every core of the CCX */
	struct ts_task *p = wakee(e, 0, NULL);
	struct ts_sched_domain_shared *sds = llc_shared(e, 0);
	atomic_store(&sds->has_idle_cores, 1);
	atomic_store(&sds->nr_idle_scan, 7);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 65); /* remembered on the way */
	assert_int_equal(pl.reason, TS_PLACE_IDLE_THREAD);
	/* core 1: 1, 65; core 2: 2 (break); core 3: 3; core 0 via 64: 0 */
	assert_int_equal(pl.nr_scanned, 5);
	assert_int_equal(pl.scanned_by_relation[TS_REL_SAME_CPU], 1);
	assert_int_equal(R(st(e, 0)->sis_core_search), 4);
	assert_int_equal(R(st(e, 0)->sis_core_failed), 4);
	assert_int_equal(atomic_load(&sds->has_idle_cores), 0); /* failed full scan */

	/* next time: no idle core mode: the idle SMT sibling of prev (0 -> 64) */
	p->cpu = 0;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 64);
	assert_int_equal(pl.reason, TS_PLACE_IDLE_SMT);
	assert_int_equal(pl.nr_scanned, 1);
	assert_int_equal(pl.scanned_by_relation[TS_REL_SMT], 1);
	env_free(e);
}

static void test_smt_sibling_of_prev_and_scan(void **state)
{
	(void)state;
	struct env *e = env_new("epyc-7601", "");
	struct ts_task *w = busy(e, 0);
	busy(e, 64);
	busy(e, 1); /* prev 1 busy, its sibling 65 idle */
	busy_range(e, 2, 3);
	busy_range(e, 66, 67);
	struct ts_task *p = wakee(e, 1, NULL);
	set_nr_idle_scan(e, 0, 7);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.target, 0);
	assert_int_equal(pl.cpu, 65);
	assert_int_equal(pl.reason, TS_PLACE_IDLE_SMT);
	/* affinity: 65 not allowed -> the LLC scan, which finds nothing else idle */
	ts_task_destroy(p);
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	ts_cpumask_fill(m);
	ts_cpumask_clear_cpu(m, 65);
	p = wakee(e, 1, m);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_TARGET_FALLBACK);
	assert_int_equal(pl.nr_scanned, 7); /* 1, 2, 3, 64, 66, 67, then the target 0 */
	ts_cpumask_free(m);
	env_free(e);
}

/* ---- wake_affine on a 2-node machine (spr-2s: node0 0-55,112-167) ---- */

static struct ts_sched_domain *affine_domain(struct env *e, int cpu, int prev)
{
	struct ts_sched_domain *sd;
	ts_for_each_domain(e->s->dom, cpu, sd) if ((sd->flags & TS_SD_WAKE_AFFINE) &&
						   ts_cpumask_test(sd->span, prev)) return sd;
	return NULL;
}

static void test_wake_affine(void **state)
{
	(void)state;
	struct env *e = env_new("spr-2s", "");
	struct ts_task *w = busy(e, 0);
	busy(e, 60);
	struct ts_task *p = wakee(e, 60, NULL);
	set_nr_idle_scan(e, 0, 111);
	struct ts_sched_domain *sd = affine_domain(e, 0, 60);
	assert_non_null(sd);
	/* sync, waker alone: affine */
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_true(pl.affine_attempted);
	assert_true(pl.affine);
	assert_int_equal(pl.target, 0);
	assert_true(ts_cpus_share_cache(e->s->dom, pl.cpu, 0));
	assert_int_equal(R(st(e, 0)->wake_affine_attempts), 1);
	assert_int_equal(R(st(e, 0)->wake_affine), 1);
	assert_int_equal(R(sd->stats.ttwu_move_affine), 1);
	assert_int_equal(p->nr_wakeups_affine_attempts, 1);
	assert_int_equal(p->nr_wakeups_affine, 1);

	/* WA_IDLE without sync: idle prev wins */
	p->cpu = 61;
	pl = ts_select_task_rq(e->s, p, 0, w, TS_WF_TTWU);
	assert_true(pl.affine_attempted);
	assert_false(pl.affine);
	assert_int_equal(pl.target, 61);
	assert_int_equal(pl.cpu, 61);
	assert_int_equal(pl.reason, TS_PLACE_TARGET_IDLE);

	/* sync but the waker is not alone, prev busy, NO_WA_WEIGHT: prev */
	busy(e, 0);
	ts_features_clear(&e->s->features, TS_FEAT_WA_WEIGHT);
	p->cpu = 60;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_false(pl.affine);
	assert_int_equal(pl.target, 60);
	assert_int_equal(R(st(e, 0)->wake_affine_attempts), 3);
	assert_int_equal(R(st(e, 0)->wake_affine), 1);
	env_free(e);
}

/* task_h_load() of a root task is load_avg * root / (root + 1) (CONFIG_FAIR_GROUP_SCHED),
 * root = its CPU's load, cached once per jiffy: each placement below runs in a new jiffy,
 * and for root loads >= 100 a load_avg of 100 weighs 99, one of 300 (root >= 299) 299. */
static struct ts_placement select_next_jiffy(struct env *e, struct ts_task *p, int prev,
					     struct ts_task *w, int wf)
{
	e->f.now += e->s->tick_nsec;
	p->cpu = prev;
	return ts_select_task_rq(e->s, p, 0, w, wf);
}

static void test_wake_affine_weight(void **state)
{
	(void)state;
	struct env *e = env_new("spr-2s", "NO_WA_IDLE");
	struct ts_task *w = busy(e, 0);
	busy(e, 60);
	struct ts_task *p = wakee(e, 60, NULL);
	struct ts_sched *s = e->s;
	struct ts_sched_domain *sd = affine_domain(e, 0, 60);
	assert_non_null(sd);
	p->se.avg.load_avg = 100;
	w->se.avg.load_avg = 300;
	/* this 0, prev 1000: (0+99)*100*1024 < (1000-99)*(100+(pct-100)/2)*1024 */
	atomic_store(&s->rq[0].ro.load_avg, 0);
	atomic_store(&s->rq[60].ro.load_avg, 1000);
	assert_int_equal(ts_task_h_load_of(s, p), 99);
	struct ts_placement pl = select_next_jiffy(e, p, 60, w, TS_WF_TTWU);
	assert_true(pl.affine);
	/* reversed: prev wins (p weighs 100 * 0 / 1 = 0 on an empty prev) */
	atomic_store(&s->rq[0].ro.load_avg, 1000);
	atomic_store(&s->rq[60].ro.load_avg, 0);
	pl = select_next_jiffy(e, p, 60, w, TS_WF_TTWU);
	assert_false(pl.affine);
	assert_int_equal(pl.target, 60);
	/* the WA_BIAS edge: this_eff = (L + 99) * 100, prev_eff = (199 - 99) * bias */
	long bias = 100 + ((long)sd->imbalance_pct - 100) / 2;
	long edge = bias - 99; /* this load where this_eff == prev_eff */
	atomic_store(&s->rq[60].ro.load_avg, 199);
	atomic_store(&s->rq[0].ro.load_avg, (unsigned long)edge - 1);
	pl = select_next_jiffy(e, p, 60, w, TS_WF_TTWU);
	assert_true(pl.affine);
	atomic_store(&s->rq[0].ro.load_avg, (unsigned long)edge);
	pl = select_next_jiffy(e, p, 60, w, TS_WF_TTWU);
	assert_false(pl.affine); /* equal: not affine without sync */
	/* sync: the waker's load (299) leaves this CPU, and +1 tips an equal comparison */
	atomic_store(&s->rq[0].ro.load_avg, (unsigned long)edge + 299);
	pl = select_next_jiffy(e, p, 60, w, WAKE_SYNC);
	assert_true(pl.affine);
	/* sync with the waker heavier than its CPU's load: this CPU at once */
	atomic_store(&s->rq[0].ro.load_avg, 200);
	atomic_store(&s->rq[60].ro.load_avg, 0);
	pl = select_next_jiffy(e, p, 60, w, WAKE_SYNC);
	assert_true(pl.affine);
	/* within one jiffy the root's h_load is cached (update_cfs_rq_h_load()): a changed
	 * CPU load only moves the denominator */
	atomic_store(&s->rq[60].ro.load_avg, 1000);
	e->f.now += s->tick_nsec;
	assert_int_equal(ts_task_h_load_of(s, p), 99); /* 100 * 1000 / 1001 */
	atomic_store(&s->rq[60].ro.load_avg, 2000);
	assert_int_equal(ts_task_h_load_of(s, p), 49); /* 100 * 1000 / 2001 */
	e->f.now += s->tick_nsec;
	assert_int_equal(ts_task_h_load_of(s, p), 99); /* 100 * 2000 / 2001 */
	env_free(e);
}

/* Far NUMA: epyc-7601's sockets are 32 apart (> RECLAIM_DISTANCE): no SD_WAKE_AFFINE
 * domain holds both CPUs, so target = prev without wake_affine(). */
static void test_far_numa(void **state)
{
	(void)state;
	struct env *e = env_new("epyc-7601", "");
	struct ts_task *w = busy(e, 0);
	struct ts_task *p = wakee(e, 32, NULL);
	assert_null(affine_domain(e, 0, 32));
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_true(pl.want_affine);
	assert_false(pl.affine_attempted);
	assert_int_equal(pl.target, 32);
	assert_int_equal(pl.cpu, 32);
	assert_int_equal(pl.reason, TS_PLACE_TARGET_IDLE);
	env_free(e);
}

static void test_wake_wide(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", ""); /* sd_llc_size 32 */
	struct ts_task *w = busy(e, 0);
	busy(e, 40);
	struct ts_task *p = wakee(e, 40, NULL);
	/* slave 40 >= 32 and master 2000 >= 40 * 32: wide */
	w->wakee_flips = 1999; /* +1 by record_wakee (new wakee) */
	w->wakee_flip_decay_ts = e->f.now;
	p->wakee_flips = 40;
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(w->wakee_flips, 2000);
	assert_ptr_equal(w->last_wakee, p);
	assert_false(pl.want_affine);
	assert_false(pl.affine_attempted);
	assert_int_equal(pl.target, 40);
	/* same wakee again: no flip; master < slave * factor: not wide */
	w->wakee_flips = 1279;
	p->cpu = 40;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(w->wakee_flips, 1279);
	assert_true(pl.want_affine);
	assert_true(pl.affine);
	/* slave below the LLC size: never wide */
	p->wakee_flips = 31;
	w->wakee_flips = 100000;
	p->cpu = 40;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_true(pl.want_affine);
	/* decay: more than a second later the flips halve once */
	e->f.now += 2 * TS_NSEC_PER_SEC;
	w->wakee_flips = 100;
	w->last_wakee = NULL;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(w->wakee_flips, 51);
	assert_int_equal(w->wakee_flip_decay_ts, e->f.now);
	env_free(e);
}

static void test_recent_used_cpu(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *w = busy(e, 0);
	busy(e, 1);
	struct ts_task *p = wakee(e, 1, NULL);
	p->recent_used_cpu = 2; /* idle, same cluster as target 0 */
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 2);
	assert_int_equal(pl.reason, TS_PLACE_RECENT);
	assert_int_equal(p->recent_used_cpu, 1);
	assert_int_equal(R(st(e, 0)->sis_recent_hit), 1);
	assert_int_equal(R(st(e, 0)->sis_recent_miss), 0);
	/* recent busy: a miss */
	busy(e, 2);
	p->recent_used_cpu = 2;
	p->cpu = 1;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(R(st(e, 0)->sis_recent_miss), 1);
	/* recent == prev: neither */
	p->cpu = 1;
	p->recent_used_cpu = 1;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(R(st(e, 0)->sis_recent_hit) + R(st(e, 0)->sis_recent_miss), 2);
	env_free(e);

	/* SIS_CLUSTER: an idle recent in another cluster is the fallback after the scan */
	e = env_new("kunpeng920", "");
	w = busy(e, 0);
	busy_range(e, 1, 8);
	busy_range(e, 10, 31);
	p = wakee(e, 1, NULL);
	p->recent_used_cpu = 9;
	set_nr_idle_scan(e, 0, 2);
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 9);
	assert_int_equal(pl.reason, TS_PLACE_RECENT_FALLBACK);
	assert_int_equal(R(st(e, 0)->sis_recent_hit), 1);
	/* NO_SIS_CLUSTER: taken at once */
	ts_features_clear(&e->s->features, TS_FEAT_SIS_CLUSTER);
	p->cpu = 1;
	p->recent_used_cpu = 9;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 9);
	assert_int_equal(pl.reason, TS_PLACE_RECENT);
	env_free(e);
}

static void test_kthread_stack(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *k = busy(e, 5);
	struct ts_task *p = wakee(e, 5, NULL);
	set_nr_idle_scan(e, 5, 31);
	k->percpu_kthread = true;
	struct ts_placement pl = ts_select_task_rq(e->s, p, 5, k, TS_WF_TTWU);
	assert_int_equal(pl.cpu, 5);
	assert_int_equal(pl.reason, TS_PLACE_KTHREAD_STACK);
	/* not a kthread: an idle cluster-mate */
	k->percpu_kthread = false;
	p->cpu = 5;
	pl = ts_select_task_rq(e->s, p, 5, k, TS_WF_TTWU);
	assert_int_equal(pl.cpu, 6);
	assert_int_equal(pl.reason, TS_PLACE_CLUSTER_SCAN);
	/* a kthread with company on its CPU: no stacking */
	k->percpu_kthread = true;
	busy(e, 5);
	p->cpu = 5;
	pl = ts_select_task_rq(e->s, p, 5, k, TS_WF_TTWU);
	assert_int_not_equal(pl.reason, TS_PLACE_KTHREAD_STACK);
	env_free(e);
}

static void test_current_cpu_and_fork(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *w = busy(e, 3);
	struct ts_task *p = wakee(e, 70, NULL);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 3, w, TS_WF_TTWU | TS_WF_CURRENT_CPU);
	assert_int_equal(pl.cpu, 3);
	assert_int_equal(pl.reason, TS_PLACE_CURRENT_CPU);
	assert_int_equal(R(st(e, 3)->sis_search), 0);
	/* fork: SD_BALANCE_FORK levels take the slow path */
	pl = ts_select_task_rq(e->s, p, 3, w, TS_WF_FORK);
	assert_int_equal(pl.reason, TS_PLACE_SLOW_PATH);
	assert_true(pl.cpu >= 0 && pl.cpu < e->t->nr_cpus);
	env_free(e);
}

/* select_task_rq(): a task allowed one CPU goes there; select_task_rq_fair() is not
 * asked, so the SIS counters and the waker's wakee flips do not move. */
static void test_single_cpu_skips_the_class(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *w = busy(e, 3);
	struct ts_cpumask *one = ts_cpumask_alloc(e->t->nr_cpus);
	ts_cpumask_set(one, 9);
	struct ts_task *p = wakee(e, 9, one);
	busy(e, 9); /* its CPU busy: a fair wake-up would look elsewhere */
	unsigned int flips = w->wakee_flips;
	struct ts_placement pl = ts_select_task_rq(e->s, p, 3, w, TS_WF_TTWU | TS_WF_SYNC);
	assert_int_equal(pl.cpu, 9);
	assert_int_equal(pl.reason, TS_PLACE_SINGLE_CPU);
	assert_int_equal(R(st(e, 3)->sis_search), 0);
	assert_int_equal(R(st(e, 3)->sis_scanned), 0);
	assert_int_equal(R(st(e, 3)->reasons[TS_PLACE_SINGLE_CPU]), 1);
	assert_int_equal(w->wakee_flips, flips);
	assert_true(w->last_wakee != p);
	/* two CPUs allowed: the class decides, and counts */
	ts_cpumask_set(one, 10);
	p = wakee(e, 9, one);
	pl = ts_select_task_rq(e->s, p, 3, w, TS_WF_TTWU | TS_WF_SYNC);
	assert_true(pl.cpu == 9 || pl.cpu == 10);
	assert_int_not_equal(pl.reason, TS_PLACE_SINGLE_CPU);
	assert_int_equal(R(st(e, 3)->sis_search), 1);
	ts_cpumask_free(one);
	env_free(e);
}

static void test_no_llc(void **state)
{
	(void)state;
	struct fake_host f;
	struct ts_topology *t = preset("kunpeng920");
	struct ts_sched *s = fake_sched(&f, t, "");
	ts_sched_destroy(s);
	struct ts_cpumask *one = ts_cpumask_alloc(t->nr_cpus);
	ts_cpumask_set(one, 0);
	struct ts_sched_config cfg = {.cpu_map = one};
	struct ts_error err = {0};
	assert_int_equal(ts_sched_create(t, ts_features_default(), &fake_ops, &f, &cfg, &s, &err),
			 0);
	assert_null(s->dom->cpu[0].sd_llc);
	struct ts_task w, p;
	assert_int_equal(ts_task_init(s, &w, 0, NULL, 0, &err), 0);
	fake_run_on(s, &f, &w, 0);
	assert_int_equal(ts_task_init(s, &p, 0, NULL, 0, &err), 0);
	struct ts_placement pl = ts_select_task_rq(s, &p, 0, &w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 0);
	assert_int_equal(pl.reason, TS_PLACE_NO_LLC);
	ts_task_destroy(&w);
	ts_task_destroy(&p);
	ts_cpumask_free(one);
	ts_sched_destroy(s);
	ts_topology_free(t);
}

/* Asymmetric capacity (jacobsville with its first 12 CPUs made small). */
static void test_asym_capacity(void **state)
{
	(void)state;
	struct ts_topology *t = preset("jacobsville");
	for (int c = 0; c < 12; c++)
		t->cpu[c].capacity = 400;
	struct env *e = env_on(t, "");
	if (!e->s->dom->asym_cpucapacity || !e->s->dom->cpu[0].sd_asym_cpucapacity) {
		env_free(e);
		skip();
		return; /* skip() jumps out; GCC's -Wuse-after-free does not know it */
	}
	struct ts_task *w = busy(e, 0);
	struct ts_task *p = wakee(e, 0, NULL);
	p->se.avg.util_avg = 500; /* 500 * 1280 >= 400 * 1024: fits only the big CPUs */
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 12);
	assert_int_equal(pl.reason, TS_PLACE_ASYM_CAPACITY);
	assert_int_equal(pl.nr_scanned, 13); /* 0 .. 11 idle-tested, 12 fits */
	/* a small task fits the idle small CPU next to the target */
	p->se.avg.util_avg = 100;
	p->cpu = 0;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_int_equal(pl.cpu, 1);
	/* a big task with only small idle CPUs: the biggest idle one (the first found) */
	busy_range(e, 12, 23);
	p->se.avg.util_avg = 500;
	p->cpu = 0;
	pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_true(pl.cpu >= 1 && pl.cpu < 12);
	assert_int_equal(pl.reason, TS_PLACE_ASYM_CAPACITY);
	env_free(e);
}

/* Affinity respected for random states, masks and wakers. */
static uint64_t xs = 88172645463325252ULL;
static uint64_t rnd(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

static void run_affinity_fuzz(const char *name, const char *features)
{
	struct env *e = env_new(name, features);
	int n = e->t->nr_cpus;
	for (int c = 0; c < n; c++)
		if (rnd() % 3)
			busy(e, c);
	struct ts_cpumask *m = ts_cpumask_alloc(n);
	for (int iter = 0; iter < 300; iter++) {
		ts_cpumask_zero(m);
		int k = 1 + (int)(rnd() % 6);
		for (int j = 0; j < k; j++)
			ts_cpumask_set(m, (int)(rnd() % (uint64_t)n));
		struct ts_task *p = wakee(e, (int)(rnd() % (uint64_t)n), m);
		p->recent_used_cpu = (int)(rnd() % (uint64_t)n);
		for (int c = 0; c < n; c++) {
			struct ts_sched_domain_shared *sds = e->s->dom->cpu[c].sd_llc_shared;
			if (sds && c == e->s->dom->cpu[c].sd_llc_id) {
				atomic_store(&sds->nr_idle_scan, (int)(rnd() % 40));
				atomic_store(&sds->has_idle_cores, (int)(rnd() % 2));
			}
		}
		int wc = (int)(rnd() % (uint64_t)n);
		struct ts_task *w = ts_idle_cpu(e->s, wc) ? NULL : e->s->rq[wc].curr;
		int wf = TS_WF_TTWU | (rnd() % 2 ? TS_WF_SYNC : 0);
		struct ts_placement pl = ts_select_task_rq(e->s, p, wc, w, wf);
		assert_true(ts_task_allowed(p, pl.cpu));
		assert_int_equal(sum_rel(&pl), pl.nr_scanned);
		ts_task_destroy(p);
	}
	ts_cpumask_free(m);
	env_free(e);
}

static void test_affinity_everywhere(void **state)
{
	(void)state;
	run_affinity_fuzz("kunpeng920", "");
	run_affinity_fuzz("kunpeng920", "NO_SIS_CLUSTER NO_SIS_UTIL SIS_PROP SIS_OVERLOAD");
	run_affinity_fuzz("epyc-7601", "");
	run_affinity_fuzz("spr-2s", "NO_SIS_UTIL");
}

static void test_recent_affinity(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	struct ts_task *w = busy(e, 0);
	busy(e, 17);
	struct ts_cpumask *m = ts_cpumask_alloc(e->t->nr_cpus);
	ts_cpumask_set(m, 3);
	ts_cpumask_set(m, 17);
	struct ts_task *p = wakee(e, 17, m);
	p->recent_used_cpu = 2; /* idle but not allowed: a miss */
	set_nr_idle_scan(e, 17, 31);
	struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
	assert_false(pl.want_affine); /* the waker's CPU is not allowed */
	assert_int_equal(pl.target, 17);
	assert_int_equal(pl.cpu, 3);
	assert_int_equal(pl.reason, TS_PLACE_LLC_SCAN);
	assert_int_equal(R(st(e, 0)->sis_recent_miss), 1);
	ts_cpumask_free(m);
	env_free(e);
}

/* ---- statistics ---- */

static void test_sis_metrics(void **state)
{
	(void)state;
	struct ts_sis_counts c = {.search = 100,
				  .domain_search = 40,
				  .scanned = 400,
				  .failed = 10,
				  .recent_hit = 30,
				  .recent_miss = 10,
				  .core_search = 20,
				  .core_failed = 5};
	struct ts_sis_metrics m = ts_sis_metrics(&c);
	assert_true(m.search_efficiency == 25.0);
	assert_true(m.domain_search_efficiency > 11.7646 && m.domain_search_efficiency < 11.7648);
	assert_true(m.fast_success_rate == 60.0);
	assert_true(m.success_rate == 90.0);
	assert_true(m.recent_success_rate == 75.0);
	assert_true(m.core_search_efficiency == 75.0);
	assert_true(m.scanned_per_wakeup == 4.0);
	struct ts_sis_counts z = {0};
	m = ts_sis_metrics(&z);
	assert_true(m.search_efficiency == -1 && m.domain_search_efficiency == -1 &&
		    m.fast_success_rate == -1 && m.success_rate == -1 &&
		    m.recent_success_rate == -1 && m.core_search_efficiency == -1 &&
		    m.scanned_per_wakeup == -1);
	/* all fast hits: domain scanned 0 -> undefined domain efficiency */
	struct ts_sis_counts f = {.search = 10, .scanned = 10};
	m = ts_sis_metrics(&f);
	assert_true(m.search_efficiency == 100.0);
	assert_true(m.domain_search_efficiency == -1);
	assert_true(m.fast_success_rate == 100.0);
}

static void test_names_and_hist(void **state)
{
	(void)state;
	assert_string_equal(ts_place_reason_name(TS_PLACE_CLUSTER_SCAN), "cluster_scan");
	assert_string_equal(ts_place_reason_name(TS_PLACE_BUDGET_EXHAUSTED), "budget_exhausted");
	assert_string_equal(ts_place_reason_name(TS_PLACE_NR), "?");
	for (int r = 0; r < TS_PLACE_NR; r++)
		assert_string_not_equal(ts_place_reason_name((enum ts_place_reason)r), "?");
	for (int r = 0; r < TS_REL_NR; r++)
		assert_string_not_equal(ts_cpu_relation_name((enum ts_cpu_relation)r), "?");
	assert_string_equal(ts_cpu_relation_name(TS_REL_CLUSTER), "cluster");
	static const int n[] = {-3, 0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 512, 513, 100000};
	static const int b[] = {0, 0, 1, 2, 3, 3, 4, 4, 5, 5, 6, 10, 11, 11};
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		assert_int_equal(ts_scan_hist_bucket(n[i]), b[i]);
	assert_string_equal(ts_scan_hist_label(3), "3-4");
	assert_string_equal(ts_scan_hist_label(11), "513+");
	assert_string_equal(ts_scan_hist_label(12), "?");
}

/* A batch of wake-ups through ts_try_to_wake_up(): every one has exactly one reason. */
static void test_reasons_sum_ttwu(void **state)
{
	(void)state;
	struct env *e = env_new("kunpeng920", "");
	int n = e->t->nr_cpus;
	for (int c = 0; c < n; c += 3)
		busy(e, c);
	set_nr_idle_scan(e, 0, 8);
	enum { NR = 200 };
	struct ts_task *ps = calloc(NR, sizeof(*ps));
	assert_non_null(ps);
	struct ts_error err = {0};
	for (int i = 0; i < NR; i++) {
		assert_int_equal(
			ts_task_init(e->s, &ps[i], 0, NULL, (int)(rnd() % (uint64_t)n), &err), 0);
		int wc = (int)(rnd() % (uint64_t)n);
		struct ts_task *w = e->s->rq[wc].curr;
		struct ts_placement pl =
			ts_try_to_wake_up(e->s, &ps[i], wc, w, i % 2 ? TS_WF_SYNC : 0);
		assert_int_equal(ps[i].cpu, pl.cpu);
		e->f.now += 10000;
	}
	uint64_t reasons = 0, ttwu = 0, search = 0;
	for (int c = 0; c < n; c++) {
		for (int r = 0; r < TS_PLACE_NR; r++)
			reasons += R(st(e, c)->reasons[r]);
		ttwu += R(st(e, c)->ttwu_count);
		search += R(st(e, c)->sis_search);
	}
	assert_int_equal(ttwu, NR);
	assert_int_equal(reasons, ttwu);
	struct ts_sis_counts sum;
	ts_sis_counts_sum(&e->s->rq[0].stats, n, sizeof(struct ts_rq), &sum);
	assert_int_equal(sum.search, search);
	assert_true(sum.scanned >= sum.search);
	for (int i = 0; i < NR; i++)
		ts_task_destroy(&ps[i]);
	free(ps);
	env_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_idle),
		cmocka_unit_test(test_prev_other_cluster),
		cmocka_unit_test(test_prev_fallback),
		cmocka_unit_test(test_scan_wrap_order),
		cmocka_unit_test(test_sis_util_budget),
		cmocka_unit_test(test_sis_util_zero),
		cmocka_unit_test(test_sis_overload),
		cmocka_unit_test(test_sis_prop),
		cmocka_unit_test(test_jacobsville),
		cmocka_unit_test(test_smt_idle_core),
		cmocka_unit_test(test_smt_idle_thread_and_hint_cleared),
		cmocka_unit_test(test_smt_sibling_of_prev_and_scan),
		cmocka_unit_test(test_wake_affine),
		cmocka_unit_test(test_wake_affine_weight),
		cmocka_unit_test(test_far_numa),
		cmocka_unit_test(test_wake_wide),
		cmocka_unit_test(test_recent_used_cpu),
		cmocka_unit_test(test_kthread_stack),
		cmocka_unit_test(test_current_cpu_and_fork),
		cmocka_unit_test(test_single_cpu_skips_the_class),
		cmocka_unit_test(test_no_llc),
		cmocka_unit_test(test_asym_capacity),
		cmocka_unit_test(test_affinity_everywhere),
		cmocka_unit_test(test_recent_affinity),
		cmocka_unit_test(test_sis_metrics),
		cmocka_unit_test(test_names_and_hist),
		cmocka_unit_test(test_reasons_sum_ttwu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
