/* Kernel profiles (kernel_profile.c) and the SIS generations they select in select.c:
 * the table read at 5.6, 5.13, 5.14, 5.15, 6.1, 6.4, 6.6 and 6.12, the version syntax,
 * each era's feature defaults, and hand-computed wake-ups where the eras differ (the split
 * scans of v5.4-v5.11, v5.12's merged scan without select_idle_smt(), the unaged
 * avg_idle/512 budget, the scan start at target, the 2020 SIS counting, the recent_used_cpu
 * rules before v5.15, the per-CPU kthread stacking of v5.6, the wakelist before v6.0). Then
 * the CLI's --kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched_env.h"
#include "test_support.h"
#include "toposched/kernel_profile.h"
#include "toposched/sched.h"
#include "toposched/ttwu.h"

#define WAKE_SYNC (TS_WF_TTWU | TS_WF_SYNC)
#define R(c)	  ts_stat_read(&(c))

/* ---- the table ---- */

/* Field by field: the struct's padding is not part of a profile. */
static bool same_profile(const struct ts_kernel_profile *a, const struct ts_kernel_profile *b)
{
	return a->major == b->major && a->minor == b->minor && a->fair_pick == b->fair_pick &&
	       a->sis_order == b->sis_order && a->sis_prop == b->sis_prop &&
	       a->sis_counting == b->sis_counting && a->scan_after_target == b->scan_after_target &&
	       a->recent_used_prev == b->recent_used_prev && a->kthread_stack == b->kthread_stack &&
	       a->scan_cost_sis_prop_only == b->scan_cost_sis_prop_only &&
	       a->newidle_cost_gate == b->newidle_cost_gate &&
	       a->sched_cluster == b->sched_cluster && a->wakelist_idle == b->wakelist_idle &&
	       a->has_sis_util == b->has_sis_util && a->has_sis_cluster == b->has_sis_cluster &&
	       a->has_tg_load_ratelimit == b->has_tg_load_ratelimit &&
	       a->has_sis_prop == b->has_sis_prop && a->numa_imbalance == b->numa_imbalance &&
	       a->active_balance_task_only == b->active_balance_task_only &&
	       a->active_lb_flag == b->active_lb_flag &&
	       a->detach_load_shift == b->detach_load_shift &&
	       a->detach_util_shift == b->detach_util_shift &&
	       a->sibling_imbalance == b->sibling_imbalance && a->smt_balance == b->smt_balance &&
	       a->fully_busy_smt_busiest == b->fully_busy_smt_busiest &&
	       a->swb_idle_core == b->swb_idle_core && a->newidle_swb_bail == b->newidle_swb_bail &&
	       a->newidle_ttwu_pending == b->newidle_ttwu_pending &&
	       a->prefer_sibling_busiest == b->prefer_sibling_busiest && a->tip == b->tip &&
	       a->idlest_group_by_type == b->idlest_group_by_type &&
	       a->lb_group_types == b->lb_group_types &&
	       a->sd_imbalance_pct == b->sd_imbalance_pct &&
	       a->sd_busy_factor == b->sd_busy_factor &&
	       a->busy_interval_offset == b->busy_interval_offset &&
	       a->group_runnable == b->group_runnable && a->numa_runnable == b->numa_runnable &&
	       a->migrate_util_queued == b->migrate_util_queued &&
	       a->llc_spread_tasks == b->llc_spread_tasks;
}

static void test_profiles(void **state)
{
	(void)state;
	struct ts_kernel_profile k = kernel("5.6");
	assert_int_equal(k.fair_pick, TS_FAIR_PICK_CFS);
	assert_int_equal(k.sis_order, TS_SIS_ORDER_SPLIT);
	assert_int_equal(k.sis_prop, TS_SIS_PROP_AVG_IDLE_512);
	assert_int_equal(k.sis_counting, TS_SIS_COUNT_SCHEDSTAT16);
	assert_false(k.scan_after_target);
	assert_false(k.recent_used_prev);
	assert_true(k.kthread_stack);
	assert_false(k.scan_cost_sis_prop_only);
	assert_false(k.newidle_cost_gate);
	assert_false(k.wakelist_idle);
	assert_false(k.has_sis_util);
	assert_true(k.has_sis_prop);

	assert_false(kernel("5.5").kthread_stack);
	assert_false(kernel("5.11").active_balance_task_only);
	assert_true(kernel("5.12").active_balance_task_only);
	assert_false(kernel("5.12").active_lb_flag);
	assert_true(kernel("5.13").active_lb_flag);
	assert_false(kernel("5.9").detach_load_shift);
	assert_true(kernel("5.10").detach_load_shift);
	assert_false(kernel("6.7").detach_util_shift);
	assert_true(kernel("6.8").detach_util_shift);
	assert_false(kernel("6.5").sibling_imbalance);
	assert_true(kernel("6.6").sibling_imbalance);
	assert_false(kernel("6.5").smt_balance);
	assert_true(kernel("6.6").smt_balance);
	assert_false(kernel("6.5").swb_idle_core);
	assert_true(kernel("6.6").swb_idle_core);
	assert_false(kernel("6.4").fully_busy_smt_busiest);
	assert_true(kernel("6.5").fully_busy_smt_busiest);
	assert_false(kernel("6.4").prefer_sibling_busiest);
	assert_true(kernel("6.5").prefer_sibling_busiest);
	assert_false(kernel("5.19").newidle_swb_bail);
	assert_true(kernel("6.0").newidle_swb_bail);
	assert_false(kernel("5.12").newidle_ttwu_pending);
	assert_true(kernel("5.13").newidle_ttwu_pending);
	assert_int_equal(kernel("5.12").sis_order, TS_SIS_ORDER_MERGED);
	assert_int_equal(kernel("5.12").sis_counting, TS_SIS_COUNT_EXAMINED);

	k = kernel("5.13");
	assert_int_equal(k.sis_order, TS_SIS_ORDER_SMT_PREV);
	assert_int_equal(k.sis_prop, TS_SIS_PROP_AVG_IDLE_512);
	assert_true(k.scan_cost_sis_prop_only);

	k = kernel("5.14");
	assert_int_equal(k.sis_prop, TS_SIS_PROP_AGED);
	assert_false(k.scan_after_target);
	assert_false(k.recent_used_prev);

	k = kernel("5.15");
	assert_true(k.scan_after_target);
	assert_true(k.recent_used_prev);
	assert_false(k.newidle_cost_gate);
	assert_true(kernel("5.16").newidle_cost_gate);
	assert_false(k.sched_cluster);
	assert_true(kernel("5.16").sched_cluster);
	assert_true(ts_kernel_profile_newest().sched_cluster);
	assert_false(k.has_sis_util);
	assert_int_equal(k.fair_pick, TS_FAIR_PICK_CFS);

	assert_false(kernel("5.19").wakelist_idle);
	k = kernel("6.1");
	assert_true(k.wakelist_idle);
	assert_true(k.has_sis_util);
	assert_true(k.has_sis_prop);
	assert_int_equal(k.fair_pick, TS_FAIR_PICK_CFS);
	assert_int_equal(k.sis_order, TS_SIS_ORDER_SMT_PREV);

	k = kernel("6.4");
	assert_int_equal(k.fair_pick, TS_FAIR_PICK_CFS);
	assert_false(k.has_tg_load_ratelimit);

	k = kernel("6.6");
	assert_int_equal(k.fair_pick, TS_FAIR_PICK_EEVDF);
	assert_false(k.has_sis_cluster);
	assert_true(k.has_sis_prop);

	/* the NUMA imbalance's generations (tests/test_numa_imbalance.c runs them) */
	static const struct {
		const char *v;
		enum ts_numa_imbalance era;
	} numa[] = {{"5.4", TS_NUMA_IMB_NONE},	     {"5.5", TS_NUMA_IMB_NONE},
		    {"5.6", TS_NUMA_IMB_PAIR_LB},    {"5.7", TS_NUMA_IMB_PAIR_SRC},
		    {"5.9", TS_NUMA_IMB_PAIR_SRC},   {"5.10", TS_NUMA_IMB_PAIR_DST},
		    {"5.11", TS_NUMA_IMB_QUARTER},   {"5.17", TS_NUMA_IMB_QUARTER},
		    {"5.18", TS_NUMA_IMB_LLCS},	     {"5.19", TS_NUMA_IMB_LLCS},
		    {"6.0", TS_NUMA_IMB_CONSISTENT}, {"6.12", TS_NUMA_IMB_CONSISTENT}};
	for (size_t i = 0; i < sizeof(numa) / sizeof(numa[0]); i++)
		assert_int_equal(kernel(numa[i].v).numa_imbalance, numa[i].era);

	k = kernel("6.12");
	assert_int_equal(k.sis_order, TS_SIS_ORDER_CLUSTER);
	assert_true(k.has_sis_cluster && k.has_tg_load_ratelimit && !k.has_sis_prop);
	/* the zeroed profile is 6.12 */
	struct ts_kernel_profile n = ts_kernel_profile_newest();
	assert_int_equal(n.major, 0);
	n.major = 6;
	n.minor = 12;
	assert_true(same_profile(&n, &k));
	char name[16];
	struct ts_kernel_profile zero = {0};
	ts_kernel_profile_name(&zero, name, sizeof(name));
	assert_string_equal(name, "6.12");
	struct ts_kernel_profile stable = kernel("v5.15.90");
	ts_kernel_profile_name(&stable, name, sizeof(name));
	assert_string_equal(name, "5.15");
}

static void test_versions(void **state)
{
	(void)state;
	assert_int_equal(kernel("6.4-rc5").minor, 4);
	assert_int_equal(kernel("v5.4").major, 5);
	assert_int_equal(kernel("5.19").minor, 19);
	assert_int_equal(kernel("6.0").minor, 0);
	static const char *const bad[] = {"4.19", "5.3",  "5.20", "6.13", "7.0", "",	 "6",
					  "6.",	  "6.1x", "v",	  "6.1-", "61",	 "6..1", "6.1.2.3"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ts_kernel_profile k;
		struct ts_error err = {0};
		assert_int_equal(ts_kernel_profile_parse(bad[i], &k, &err), -EINVAL);
		assert_non_null(strstr(err.msg, "5.4-5.19, 6.0-6.12"));
	}
}

/* A tip/sched/core snapshot: v5.6 plus the v5.7 changes committed to tip by that day.
 * 070f5e860ee2 (group_runnable) and fb86f5b21192 (numa_spare_move) entered on 24 Feb 2020,
 * c32b4308295a (migrate_util_src) on 20 Mar 2020. */
static void test_tip_snapshot(void **state)
{
	(void)state;
	struct ts_kernel_profile k = kernel("5.6+tip-2020-03-13"), v56 = kernel("5.6"),
				 v57 = kernel("5.7");
	assert_int_equal(k.tip, 20200313);
	assert_true(k.group_runnable && !k.migrate_util_queued);
	assert_int_equal(k.numa_imbalance, TS_NUMA_IMB_PAIR_SRC);
	assert_false(v56.group_runnable || v56.migrate_util_queued);
	assert_int_equal(v56.numa_imbalance, TS_NUMA_IMB_PAIR_LB);
	assert_true(v57.group_runnable && v57.migrate_util_queued);
	/* everything else is v5.6's */
	k.group_runnable = v56.group_runnable;
	k.numa_imbalance = v56.numa_imbalance;
	k.tip = 0;
	assert_true(same_profile(&k, &v56));
	/* a day before the first v5.7 commit: v5.6 itself; from 20 March: all of v5.7's */
	struct ts_kernel_profile before = kernel("v5.6-rc5+tip-2020-02-23");
	assert_false(before.group_runnable);
	assert_true(kernel("5.6+tip-2020-03-20").migrate_util_queued);
	char name[40];
	ts_kernel_profile_name(&before, name, sizeof(name));
	assert_string_equal(name, "5.6+tip-2020-02-23");
	/* the mechanism listing reads the snapshot too */
	struct ts_kernel_profile snap = kernel("5.6+tip-2020-03-13");
	struct ts_kernel_mechanism m;
	bool seen = false;
	for (int i = 0; ts_kernel_profile_mechanism(&snap, i, &m); i++) {
		if (strcmp(m.name, "group_runnable") == 0) {
			assert_non_null(strstr(m.generation, "runnable_avg"));
			seen = true;
		}
	}
	assert_true(seen);
	/* a release whose successors' tip dates are not recorded, and bad dates */
	static const char *const bad[] = {"5.7+tip-2020-03-13",
					  "6.1+tip-2022-11-01",
					  "5.6+tip-2020-13-01",
					  "5.6+tip-2020-03",
					  "5.6+tip-20200313",
					  "5.6+tip-2020-03-13x",
					  "5.6+tip"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ts_kernel_profile x;
		struct ts_error err = {0};
		if (ts_kernel_profile_parse(bad[i], &x, &err) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(err.msg, bad[i]));
	}
}

static void test_feature_defaults(void **state)
{
	(void)state;
	struct ts_kernel_profile k = kernel("5.6");
	struct ts_features f = ts_kernel_features_default(&k);
	assert_true(ts_features_has(f, TS_FEAT_SIS_PROP));
	assert_false(ts_features_has(f, TS_FEAT_SIS_UTIL));
	assert_false(ts_features_has(f, TS_FEAT_SIS_CLUSTER));
	assert_false(ts_features_has(f, TS_FEAT_TG_LOAD_RATELIMIT));
	k = kernel("6.1");
	f = ts_kernel_features_default(&k);
	assert_false(ts_features_has(f, TS_FEAT_SIS_PROP));
	assert_true(ts_features_has(f, TS_FEAT_SIS_UTIL));
	assert_false(ts_features_has(f, TS_FEAT_SIS_CLUSTER));
	k = kernel("6.12");
	assert_int_equal(ts_kernel_features_default(&k).mask, ts_features_default().mask);
	struct ts_kernel_profile zero = {0};
	assert_int_equal(ts_kernel_features_default(&zero).mask, ts_features_default().mask);
}

/* struct task_group: load_avg has had its own aligned line, shared with rt_se/rt_rq or
 * rcu/list/parent, since v4.5 and still has in the newest kernel (the re-layout was not
 * merged), so every profile (and the zeroed one, the newest) gets the v6.4 layout. */
static void test_tg_layout(void **state)
{
	(void)state;
	static const char *const versions[] = {"5.4", "5.6", "5.15", "6.1", "6.4", "6.5", "6.12"};
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct ts_kernel_profile k = kernel(versions[i]);
		assert_int_equal(ts_kernel_tg_layout(&k), TS_TG_V6_4);
	}
	struct ts_kernel_profile zero = {0};
	assert_int_equal(ts_kernel_tg_layout(&zero), TS_TG_V6_4);
	struct ts_kernel_mechanism m;
	assert_true(ts_kernel_profile_mechanism(&zero, 0, &m));
	assert_string_equal(m.name, "tg_layout");
	assert_int_equal(m.since_major * 100 + m.since_minor, 405);
	assert_string_equal(m.commit, "b0367629acf6");
	assert_non_null(strstr(m.generation, "v6.4:"));
}

static void test_take(void **state)
{
	(void)state;
	struct ts_kernel_profile k = {0};
	struct ts_error err = {0};
	char rest[64];
	bool given;
	assert_int_equal(ts_kernel_profile_take("kernel=5.6 SIS_OVERLOAD", rest, sizeof(rest), &k,
						&given, &err),
			 0);
	assert_true(given);
	assert_int_equal(k.minor, 6);
	assert_string_equal(rest, "           SIS_OVERLOAD");
	assert_int_equal(ts_kernel_profile_take("SIS_PROP", rest, sizeof(rest), &k, &given, &err),
			 0);
	assert_false(given);
	assert_int_equal(
		ts_kernel_profile_take("a,kernel=4.4", rest, sizeof(rest), &k, &given, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "'4.4'"));
}

/* ---- select_idle_sibling per era ---- */

/* A scheduler on the preset with kernel `version` and its switches; task[0] is the wakee,
 * then up to 4 busy tasks per CPU. */
static void env_kernel(struct env *e, const char *machine, const char *version)
{
	struct ts_sched_config cfg = {.kernel = kernel(version)};
	struct ts_topology *t = preset(machine);
	env_open(e, t, NULL, &cfg, NULL, 1 + 4 * t->nr_cpus);
	e->s->features = ts_kernel_features_default(&cfg.kernel);
	env_task(e, 0, NULL, 0);
}

static void env_close(struct env *e)
{
	assert_int_equal(e->f.lock_errors, 0);
	env_destroy(e);
}

static struct ts_task *wakee(struct env *e, int prev)
{
	struct ts_task *p = &e->task[0];
	struct ts_error err = {0};
	ts_task_destroy(p);
	assert_int_equal(ts_task_init(e->s, p, 0, NULL, prev, &err), 0);
	return p;
}

/* epyc-7601: CCX 0 = cores {0,64} {1,65} {2,66} {3,67}. An idle core advertised; core 0
 * (the waker's) busy, core 1 half busy, cores 2 and 3 idle; the idle-core scan takes no
 * budget in either era. v5.6's select_idle_core()
 * starts AT target: 0 (busy: next core), 1 (busy: next), 2 and 66 (idle). v6.12's merged
 * scan starts after it: 1, 65 (remembered), 2, 66. Four CPUs each, the waker's own CPU
 * among v5.6's only. */
static void test_split_core_scan(void **state)
{
	(void)state;
	static const char *const versions[] = {"5.6", "6.12"};
	for (int v = 0; v < 2; v++) {
		struct env env, *e = &env;
		env_kernel(e, "epyc-7601", versions[v]);
		struct ts_task *w = env_busy(e, 0);
		env_busy(e, 64);
		env_busy(e, 1);
		struct ts_task *p = wakee(e, 0);
		atomic_store(&e->s->dom->cpu[0].sd_llc_shared->has_idle_cores, 1);
		atomic_store(&e->s->dom->cpu[0].sd_llc_shared->nr_idle_scan, 8); /* SIS_UTIL */
		struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
		assert_int_equal(pl.cpu, 2);
		assert_int_equal(pl.reason, TS_PLACE_IDLE_CORE);
		assert_int_equal(pl.nr_scanned, 4);
		assert_int_equal(pl.scanned_by_relation[TS_REL_SAME_CPU], v == 0 ? 1 : 0);
		assert_int_equal(R(e->s->rq[0].stats.sis_scanned), 1 + 4);
		env_close(e);
	}
}

/* epyc-7601, CCX 0 busy except 64, the SMT sibling of target/prev 0; no idle core
 * advertised; SIS_PROP's budget at its floor of 4 (avg_idle 0). v5.6: select_idle_cpu()
 * from target examines 0, 1, 2, the 4th iteration ends the budget (counted by the 2020
 * patch), then select_idle_smt(target) examines 0 and finds 64: 5 examined, sis_scanned
 * 1 + 5 + 1. v5.12: no select_idle_smt(): 0, 1, 2, then the budget: target. v5.13 and
 * later: select_idle_smt(prev) first: 64 after examining it alone. */
static void test_smt_generations(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		int cpu, scanned, sis_scanned;
		enum ts_place_reason reason;
	} want[] = {
		{"5.6", 64, 5, 7, TS_PLACE_IDLE_SMT},
		{"5.12", 0, 3, 4, TS_PLACE_BUDGET_EXHAUSTED},
		{"5.13", 64, 1, 2, TS_PLACE_IDLE_SMT},
		{"6.12", 64, 1, 2, TS_PLACE_IDLE_SMT},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct env env, *e = &env;
		env_kernel(e, "epyc-7601", want[i].v);
		struct ts_task *w = env_busy(e, 0);
		for (int c = 1; c <= 3; c++) {
			env_busy(e, c);
			env_busy(e, 64 + c);
		}
		struct ts_task *p = wakee(e, 0);
		e->s->rq[0].avg_idle = 0;
		atomic_store(&e->s->rq[0].ro.wake_avg_idle, 0);
		atomic_store(&e->s->dom->cpu[0].sd_llc_shared->has_idle_cores, 0);
		struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
		assert_int_equal(pl.cpu, want[i].cpu);
		assert_int_equal(pl.reason, want[i].reason);
		assert_int_equal(pl.nr_scanned, want[i].scanned);
		assert_int_equal(R(e->s->rq[0].stats.sis_scanned), want[i].sis_scanned);
		env_close(e);
	}
}

/* kunpeng920 node 0 (32 CPUs, no SMT), all busy. SIS_PROP with avg_idle 1000 ns and
 * avg_scan_cost 3999: span 32 x 1000 = 32000 > 4 x 4000, nr = 8: 7 CPUs examined. v5.6
 * reads this_rq()->avg_idle / 512 (512000 / 512 = 1000), starts at target 0 and counts
 * the 8th iteration; two jiffies later nothing has aged. v5.14 reads wake_avg_idle, which
 * two jiffies quarter (nr = 4: 3 examined). v5.15 starts after target. */
static void test_sis_prop_generations(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		int same_cpu, sis_scanned, later;
	} want[] = {
		{"5.6", 1, 1 + 7 + 1, 7},
		{"5.13", 1, 1 + 7, 7},
		{"5.14", 1, 1 + 7, 3},
		{"5.15", 0, 1 + 7, 3},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct env env, *e = &env;
		env_kernel(e, "kunpeng920", want[i].v);
		struct ts_sched *s = e->s;
		struct ts_task *w = env_busy(e, 0);
		for (int c = 1; c < 32; c++)
			env_busy(e, c);
		struct ts_task *p = wakee(e, 0);
		uint64_t jiffies = e->f.now / s->tick_nsec;
		s->rq[0].avg_idle = 512000;
		atomic_store(&s->rq[0].ro.wake_stamp, jiffies);
		atomic_store(&s->rq[0].ro.wake_avg_idle, 1000);
		s->dom->cpu[0].sd_llc->avg_scan_cost = 3999;
		struct ts_placement pl = ts_select_task_rq(s, p, 0, w, WAKE_SYNC);
		assert_int_equal(pl.reason, TS_PLACE_BUDGET_EXHAUSTED);
		assert_int_equal(pl.nr_scanned, 7);
		assert_int_equal(pl.scanned_by_relation[TS_REL_SAME_CPU], want[i].same_cpu);
		assert_int_equal(R(s->rq[0].stats.sis_scanned), want[i].sis_scanned);
		assert_int_equal(s->dom->cpu[0].sd_llc->avg_scan_cost, 3999); /* throttled */
		e->f.now += 2 * s->tick_nsec;
		p->cpu = 0;
		pl = ts_select_task_rq(s, p, 0, w, WAKE_SYNC);
		assert_int_equal(pl.nr_scanned, want[i].later);
		env_close(e);
	}
}

/* Before v5.12 avg_scan_cost learns from every completed scan, SIS_PROP or not: a scan
 * with SIS_PROP off (no budget) that finds CPU 3 idle after 0, 1, 2 (4 examined at the
 * fake host's 100 ns each) moves it by (400 - 800) / 8. From v5.12 it stays. */
static void test_scan_cost_generations(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		uint64_t cost;
	} want[] = {{"5.11", 800 + (400 - 800) / 8}, {"5.12", 800}};
	for (size_t i = 0; i < 2; i++) {
		struct env env, *e = &env;
		env_kernel(e, "kunpeng920", want[i].v);
		struct ts_sched *s = e->s;
		ts_features_clear(&s->features, TS_FEAT_SIS_PROP);
		e->f.scan_ns_per_cpu = 100;
		struct ts_task *w = env_busy(e, 0);
		env_busy(e, 1);
		env_busy(e, 2);
		struct ts_task *p = wakee(e, 1);
		s->dom->cpu[0].sd_llc->avg_scan_cost = 800;
		struct ts_placement pl = ts_select_task_rq(s, p, 0, w, WAKE_SYNC);
		assert_int_equal(pl.cpu, 3);
		assert_int_equal(s->dom->cpu[0].sd_llc->avg_scan_cost, want[i].cost);
		env_close(e);
	}
}

/* recent_used_cpu. The wakee last ran on 5 (busy), recent_used_cpu 9; the waker on 0
 * (busy, alone: a sync wake-up targets it), its own recent_used_cpu 7. 9 idle: both eras
 * return it and remember prev. 9 busy: v5.15 still remembers prev; v5.14 keeps 9 and
 * sets the waker's recent_used_cpu to its CPU after the affine wake-up. */
static void test_recent_used_generations(void **state)
{
	(void)state;
	static const char *const versions[] = {"5.14", "5.15"};
	for (int v = 0; v < 2; v++) {
		bool v515 = v == 1;
		struct env env, *e = &env;
		env_kernel(e, "kunpeng920", versions[v]);
		struct ts_task *w = env_busy(e, 0);
		env_busy(e, 5);
		struct ts_task *p = wakee(e, 5);
		p->recent_used_cpu = 9;
		w->recent_used_cpu = 7;
		struct ts_placement pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
		assert_int_equal(pl.cpu, 9);
		assert_int_equal(pl.reason, TS_PLACE_RECENT);
		assert_int_equal(p->recent_used_cpu, 5);
		assert_int_equal(w->recent_used_cpu, v515 ? 7 : 0);

		env_busy(e, 9);
		p->cpu = 5;
		p->recent_used_cpu = 9;
		w->recent_used_cpu = 7;
		pl = ts_select_task_rq(e->s, p, 0, w, WAKE_SYNC);
		assert_int_not_equal(pl.reason, TS_PLACE_RECENT);
		assert_int_equal(p->recent_used_cpu, v515 ? 5 : 9);
		assert_int_equal(w->recent_used_cpu, v515 ? 7 : 0);
		env_close(e);
	}
}

/* A per-CPU kthread's wakee stacks on it from v5.6 (52262ee567ad); on v5.5 the scan
 * finds an idle CPU. */
static void test_kthread_stack_generations(void **state)
{
	(void)state;
	static const char *const versions[] = {"5.5", "5.6"};
	for (int v = 0; v < 2; v++) {
		struct env env, *e = &env;
		env_kernel(e, "kunpeng920", versions[v]);
		struct ts_task *k = env_busy(e, 5);
		struct ts_task *p = wakee(e, 5);
		k->percpu_kthread = true;
		struct ts_placement pl = ts_select_task_rq(e->s, p, 5, k, TS_WF_TTWU);
		if (v == 1) {
			assert_int_equal(pl.cpu, 5);
			assert_int_equal(pl.reason, TS_PLACE_KTHREAD_STACK);
		} else {
			assert_int_equal(pl.cpu, 6); /* the scan from target 5: 5, then 6 */
			assert_int_equal(pl.reason, TS_PLACE_LLC_SCAN);
		}
		env_close(e);
	}
}

/* The wakelist: from v6.0 (f3dd3f674555) a wake-up onto an idle CPU of the waker's LLC
 * is queued there; on v5.19 only a CPU of another LLC takes it. Kunpeng 920: the waker on
 * CPU 0, an idle CPU 5 of its LLC, a busy CPU 6 of it, an idle CPU 40 of the next node's. */
static void test_wakelist_generations(void **state)
{
	(void)state;
	static const char *const versions[] = {"5.19", "6.0"};
	for (int v = 0; v < 2; v++) {
		struct env env, *e = &env;
		env_kernel(e, "kunpeng920", versions[v]);
		env_busy(e, 0);
		env_busy(e, 6);
		struct ts_task *p = wakee(e, 5);
		assert_int_equal(ts_ttwu_queue_cond(e->s, p, 0, 5), v == 1);
		assert_false(ts_ttwu_queue_cond(e->s, p, 0, 6));
		assert_true(ts_ttwu_queue_cond(e->s, p, 0, 40));
		assert_false(ts_ttwu_queue_cond(e->s, p, 0, 0));
		env_close(e);
	}
}

/* ---- the CLI ---- */

static void test_cli_kernel(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_kernel_profile.XXXXXX";
	assert_non_null(mkdtemp(dir));
	static const char *const bad0[] = {"sim", "--kernel", "4.19", NULL};
	static const char *const bad1[] = {"sim", "--compare", "a=kernel=9.1", "b=SIS_PROP", NULL};
	static const char *const bad2[] = {"features", "--kernel", "latest", NULL};
	static const char *const *const bad[] = {bad0, bad1, bad2};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r = ts_run_cli(dir, bad[i], 60);
		assert_int_equal(r.status, 2);
		assert_string_equal(r.out, "");
		assert_int_equal(count_lines(r.err), 1);
		assert_non_null(strstr(r.err, "error:"));
		assert_non_null(
			strstr(r.err, "not a known kernel version (known: 5.4-5.19, 6.0-6.12"));
		run_free(&r);
	}
	struct run r =
		ts_run_cli(dir, (const char *const[]){"features", "--kernel", "5.6", NULL}, 60);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\nkernel 5.6:\n"));
	assert_non_null(strstr(r.out, "avg_idle / 512"));
	assert_non_null(strstr(r.out, "\nSIS_PROP                on       on "));
	run_free(&r);
	/* a snapshot's name in full, in the text heading and in JSON */
	r = ts_run_cli(
		dir, (const char *const[]){"features", "--kernel", "5.6+tip-2020-03-13", NULL}, 60);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\nkernel 5.6+tip-2020-03-13:\n"));
	run_free(&r);
	r = ts_run_cli(dir,
		       (const char *const[]){"features", "--kernel", "5.6+tip-2020-03-13",
					     "--format", "json", NULL},
		       60);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"5.6+tip-2020-03-13\""));
	run_free(&r);
	ts_tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_tip_snapshot),
		cmocka_unit_test(test_feature_defaults),
		cmocka_unit_test(test_tg_layout),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_split_core_scan),
		cmocka_unit_test(test_smt_generations),
		cmocka_unit_test(test_sis_prop_generations),
		cmocka_unit_test(test_scan_cost_generations),
		cmocka_unit_test(test_recent_used_generations),
		cmocka_unit_test(test_kthread_stack_generations),
		cmocka_unit_test(test_wakelist_generations),
		cmocka_unit_test(test_cli_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
