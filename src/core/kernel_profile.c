/* Kernel profiles: one table of the mainline changes the core models, each with the
 * version whose merge window took it and its commit (docs/kernels.md lists the same with
 * its sources); a profile is that table read at one version. */
#include "toposched/kernel_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V(major, minor) ((major)*100 + (minor))

/* The changes, in merge order. */
enum change {
	TG_LOAD_AVG_LINE,
	LB_GROUP_TYPES,
	IDLEST_GROUP_TYPES,
	KTHREAD_STACK,
	NUMA_LB_PAIR,
	NUMA_SPARE_MOVE,
	GROUP_RUNNABLE,
	MIGRATE_UTIL_QUEUED,
	NUMA_BALANCE_DST,
	NUMA_RUNNABLE,
	DETACH_LOAD_SHIFT,
	IMBALANCE_PCT_117,
	BUSY_INTERVAL_OFFSET,
	BUSY_FACTOR_16,
	LLC_SPREAD_TASKS,
	NUMA_QUARTER,
	MERGED_SCAN,
	ACTIVE_BALANCE_TASK,
	SCAN_COST_SIS_PROP,
	SIS_COUNTING,
	SMT_PREV,
	ACTIVE_LB_FLAG,
	NEWIDLE_TTWU_PENDING,
	AGED_IDLE,
	SCAN_AFTER_TARGET,
	RECENT_USED_PREV,
	NEWIDLE_COST_GATE,
	SCHED_CLUSTER,
	NUMA_IMB_NR,
	NUMA_CONSISTENT,
	WAKELIST_IDLE,
	NEWIDLE_SWB_BAIL,
	SIS_UTIL,
	PREFER_SIBLING_BUSIEST,
	FULLY_BUSY_SMT,
	EEVDF,
	SIBLING_IMBALANCE,
	SMT_BALANCE,
	SWB_IDLE_CORE,
	SIS_PROP_REMOVED,
	CLUSTER_SCAN,
	TG_LOAD_RATELIMIT,
	DETACH_UTIL_SHIFT,
	NR_CHANGES
};

struct change_info {
	const char *name;
	int since; /* V(major, minor) of the first release with it */
	const char *commit;
	const char *before, *after;
};

static const struct change_info changes[NR_CHANGES] = {
	/* before every profile; listed so that `features --kernel` shows the layout */
	[TG_LOAD_AVG_LINE] = {"tg_layout", V(4, 5), "b0367629acf6",
			      "v4.4: load_avg in the line of se, cfs_rq and shares",
			      "v6.4: load_avg aligned, rt_se/rt_rq or rcu/list/parent after it"},
	[LB_GROUP_TYPES] =
		{"load_balance", V(5, 5), "0b0695f2b34a b0fb1eb4f04a fcf0553db6f4",
		 "avg_load of runnable_load_avg; imbalance in load; fix_small_imbalance()",
		 "group types; migrate tasks, util, load_avg or misfit"},
	[IDLEST_GROUP_TYPES] = {"find_idlest_group", V(5, 5), "57abff067a08",
				"runnable_load_avg, then load_avg; spare capacity outside fork",
				"group type, then idle CPUs or load_avg"},
	[KTHREAD_STACK] = {"sis_kthread_stack", V(5, 6), "52262ee567ad", "no",
			   "a per-CPU kthread's wakee stacks on it"},
	[NUMA_LB_PAIR] = {"numa_lb_allowance", V(5, 6), "b396f52326de", "none",
			  "an imbalance dropped while the busiest node runs <= 2 tasks"},
	[NUMA_SPARE_MOVE] = {"numa_spare_move", V(5, 7), "fb86f5b21192",
			     "task_numa_find_cpu() weighs loads only",
			     "a move to a node with spare capacity unless it unbalances"},
	[GROUP_RUNNABLE] = {"group_runnable", V(5, 7), "070f5e860ee2",
			    "groups classified by utilisation and task count",
			    "also by runnable_avg (time spent waiting)"},
	[MIGRATE_UTIL_QUEUED] = {"migrate_util_src", V(5, 7), "c32b4308295a",
				 "the most utilised CPU, even one running a single task",
				 "the most utilised CPU running more than one task"},
	[NUMA_BALANCE_DST] = {"numa_spare_count", V(5, 10), "233e7aca4c8a",
			      "the source node's tasks decide (from v5.7)",
			      "the destination node's tasks decide"},
	[NUMA_RUNNABLE] = {"numa_runnable", V(5, 10), "8e0e0eda6a13",
			   "nodes classified by utilisation and task count",
			   "also by runnable_avg, as groups"},
	[DETACH_LOAD_SHIFT] = {"detach_load", V(5, 10), "5a7f55590467",
			       "skip a task whose load / 2 > imbalance until the failures pass "
			       "cache_nice_tries",
			       "skip a task whose load >> failures > imbalance"},
	[IMBALANCE_PCT_117] = {"imbalance_pct", V(5, 10), "2208cdaa56c9",
			       "125 above the LLC (sd_init()'s default)", "117"},
	[BUSY_INTERVAL_OFFSET] = {"busy_interval", V(5, 10), "e4d32e4d5444",
				  "balance_interval x busy_factor",
				  "balance_interval x busy_factor - 1 jiffy"},
	[BUSY_FACTOR_16] = {"busy_factor", V(5, 10), "6e7499135db7", "32", "16"},
	[LLC_SPREAD_TASKS] = {"llc_spread", V(5, 10), "16b0a7a1a0af",
			      "an overloaded busiest gives utilisation at every level",
			      "within an LLC it gives tasks (nr_running), outside it utilisation"},
	[NUMA_QUARTER] = {"numa_imbalance", V(5, 11), "7d2b5dd0bcc4 23e6082a522e",
			  "fork: stay while the local node has an idle CPU (v5.5-v5.10)",
			  "fork, balancing: allowed below a quarter of the CPUs"},
	[MERGED_SCAN] = {"sis_scan", V(5, 12), "9fe1f127b913 6cd56ef1df39",
			 "select_idle_core(), select_idle_cpu(), select_idle_smt(target)",
			 "one select_idle_cpu() for cores and CPUs"},
	[ACTIVE_BALANCE_TASK] = {"active_balance", V(5, 12), "e9b9734b7465",
				 "after cache_nice_tries + 2 failures, any imbalance",
				 "after cache_nice_tries + 2 failures, an even spread of tasks"},
	[SCAN_COST_SIS_PROP] = {"sis_scan_cost", V(5, 12), "bae4ec13640b",
				"avg_scan_cost from every completed scan",
				"avg_scan_cost from SIS_PROP scans only"},
	/* the counters were never merged: the 2020 patch applies to the split scan */
	[SIS_COUNTING] = {"sis_counting", V(5, 12), "(with 9fe1f127b913)",
			  "SCHEDSTAT_VERSION 16 (Mel Gorman, Mar 2020)", "CPUs examined"},
	[SMT_PREV] = {"sis_smt_prev", V(5, 13), "c722f35b513f", "no",
		      "select_idle_smt(prev) before the scan"},
	[ACTIVE_LB_FLAG] = {"active_lb_hot", V(5, 13), "23fb06d9602b",
			    "a push sets nr_balance_failed to cache_nice_tries + 1",
			    "the stopper ignores task_hot() (LBF_ACTIVE_LB)"},
	[NEWIDLE_TTWU_PENDING] = {"newidle_pending", V(5, 13), "9c9f520a1467",
				  "newly-idle balancing ignores a pending wake-up",
				  "none while one is pending; the walk stops at one"},
	[AGED_IDLE] = {"sis_prop_idle", V(5, 14), "94aafc3ee31d", "avg_idle / 512",
		       "aged wake_avg_idle"},
	[SCAN_AFTER_TARGET] = {"sis_scan_start", V(5, 15), "56498cfb045d", "target", "target + 1"},
	[RECENT_USED_PREV] = {"recent_used_cpu", V(5, 15), "89aafd67f28c",
			      "prev when it was used; the waker's own CPU after affine wake-ups",
			      "prev on every wake-up"},
	[NEWIDLE_COST_GATE] = {"newidle_gate", V(5, 16), "9d783c8dd112 c5b0a7eefc70 e60b56e46b38",
			       "no newly-idle walk while avg_idle < sysctl_sched_migration_cost",
			       "no newly-idle walk while avg_idle < max_newidle_lb_cost"},
	[SCHED_CLUSTER] = {"sched_cluster", V(5, 16), "778c558f49a2 66558b730f25",
			   "no CLS level: MC (the LLC) right above the CPUs or SMT cores",
			   "CLS: the CPUs of a cluster (CONFIG_SCHED_CLUSTER=y)"},
	[NUMA_IMB_NR] = {"numa_imb_nr", V(5, 18), "2cfb7a1b031b e496132ebedd",
			 "the rule of the rows above",
			 "imb_numa_nr (one LLC: span >> 2; else LLCs)"},
	[NUMA_CONSISTENT] = {"numa_consistent", V(6, 0), "cb29a5c19d2d f5b2eeb49991 026b98a93bbd",
			     "the rule of the rows above: halve, then allow",
			     "allow, then halve; fork also by idle CPUs; one LLC: span >> 3"},
	[WAKELIST_IDLE] = {"wakelist", V(6, 0), "f3dd3f674555 28156108fecb",
			   "another LLC's CPU only", "also an idle CPU of the waker's LLC"},
	[NEWIDLE_SWB_BAIL] = {"newidle_bail", V(6, 0), "792b9f65a568",
			      "a newly idle CPU balances every level",
			      "it stops once it has a task or a wake-up pending"},
	[SIS_UTIL] = {"SIS_UTIL", V(6, 0), "70fb5ccf2ebb", "absent (SIS_PROP on)",
		      "present, on (SIS_PROP off)"},
	[PREFER_SIBLING_BUSIEST] = {"prefer_sibling", V(6, 5), "43726bdedd29",
				    "the balancing CPU's child domain's flag",
				    "the busiest group's flag"},
	[FULLY_BUSY_SMT] = {"fully_busy_tie", V(6, 5), "5fd6d7f43958",
			    "of fully busy groups alike the first is busiest",
			    "the last, unless the first is an SMT core"},
	[EEVDF] = {"fair_pick", V(6, 6), "147f3efaa241", "CFS", "EEVDF"},
	[SIBLING_IMBALANCE] = {"sibling_imbalance", V(6, 6), "7ff1693236f5",
			       "prefer_sibling: nr_diff, busy balancing too",
			       "prefer_sibling: sibling_imbalance(), idle balancing only"},
	[SMT_BALANCE] = {"smt_balance", V(6, 6), "fee1759e4f04 450e749707bc", "absent",
			 "an SMT core running 2+ tasks is group_smt_balance for an idle CPU"},
	[SWB_IDLE_CORE] = {"swb_idle_core", V(6, 6), "b1bfeab9b002",
			   "the group's first idle CPU balances",
			   "the first idle CPU of an idle core, else of a busy one"},
	[SIS_PROP_REMOVED] = {"SIS_PROP", V(6, 7), "984ffb6a4366", "present", "removed"},
	[CLUSTER_SCAN] = {"SIS_CLUSTER", V(6, 7), "8881e1639f1f 22165f61d0c4", "absent",
			  "target's cluster first, prev/recent fallback"},
	[TG_LOAD_RATELIMIT] = {"TG_LOAD_RATELIMIT", V(6, 7), "1528c661c24b", "absent",
			       "present, on"},
	[DETACH_UTIL_SHIFT] = {"detach_util", V(6, 8), "3af7524b1419",
			       "skip a task whose util > imbalance",
			       "skip a task whose util >> failures > imbalance"},
};

/* YYYYMMDD each change's commit entered tip/sched/core (the tip-bot mail's CommitterDate);
 * 0: not recorded. A tip snapshot needs it for every change of the release it precedes. */
static const int tip_date[NR_CHANGES] = {
	[NUMA_SPARE_MOVE] = 20200224,
	[GROUP_RUNNABLE] = 20200224,
	[MIGRATE_UTIL_QUEUED] = 20200320,
};

static const int newest = V(6, 12);

static bool known(int major, int minor)
{
	return (major == 5 && minor >= 4 && minor <= 19) ||
	       (major == 6 && minor >= 0 && minor <= 12);
}

static int version_of(const struct ts_kernel_profile *k)
{
	return k->major ? V(k->major, k->minor) : newest;
}

/* The release after v. */
static int next_release(int v)
{
	return v == V(5, 19) ? V(6, 0) : v + 1;
}

/* Whether kernel v, or with tip (YYYYMMDD, 0 = none) tip/sched/core of that day on top
 * of v, has change c: every change of v and before, and of the next release those
 * already in tip that day. */
static bool at_tip(int v, int tip, enum change c)
{
	if (v >= changes[c].since)
		return true;
	return tip && changes[c].since == next_release(v) && tip_date[c] && tip_date[c] <= tip;
}

/* Whether every change of the release after v has its tip date recorded. */
static bool tip_dates_known(int v)
{
	int next = next_release(v), n = 0;
	for (int c = 0; c < NR_CHANGES; c++) {
		if (changes[c].since != next)
			continue;
		if (!tip_date[c])
			return false;
		n++;
	}
	return n > 0;
}

/* The profile of major.minor, with tip (YYYYMMDD, 0 = none) tip/sched/core of that day. */
static void profile_of(int major, int minor, int tip, struct ts_kernel_profile *out)
{
	int v = V(major, minor);
	*out = (struct ts_kernel_profile){
		.major = major,
		.minor = minor,
		.tip = tip,
		.fair_pick = at_tip(v, tip, EEVDF) ? TS_FAIR_PICK_EEVDF : TS_FAIR_PICK_CFS,
		.sis_order = at_tip(v, tip, CLUSTER_SCAN)  ? TS_SIS_ORDER_CLUSTER
			     : at_tip(v, tip, SMT_PREV)	   ? TS_SIS_ORDER_SMT_PREV
			     : at_tip(v, tip, MERGED_SCAN) ? TS_SIS_ORDER_MERGED
							   : TS_SIS_ORDER_SPLIT,
		.sis_prop = at_tip(v, tip, AGED_IDLE) ? TS_SIS_PROP_AGED : TS_SIS_PROP_AVG_IDLE_512,
		.sis_counting = at_tip(v, tip, SIS_COUNTING) ? TS_SIS_COUNT_EXAMINED
							     : TS_SIS_COUNT_SCHEDSTAT16,
		.scan_after_target = at_tip(v, tip, SCAN_AFTER_TARGET),
		.recent_used_prev = at_tip(v, tip, RECENT_USED_PREV),
		.newidle_cost_gate = at_tip(v, tip, NEWIDLE_COST_GATE),
		.sched_cluster = at_tip(v, tip, SCHED_CLUSTER),
		.active_balance_task_only = at_tip(v, tip, ACTIVE_BALANCE_TASK),
		.detach_load_shift = at_tip(v, tip, DETACH_LOAD_SHIFT),
		.group_runnable = at_tip(v, tip, GROUP_RUNNABLE),
		.migrate_util_queued = at_tip(v, tip, MIGRATE_UTIL_QUEUED),
		.llc_spread_tasks = at_tip(v, tip, LLC_SPREAD_TASKS),
		.numa_runnable = at_tip(v, tip, NUMA_RUNNABLE),
		.sd_imbalance_pct = at_tip(v, tip, IMBALANCE_PCT_117) ? 117 : 125,
		.busy_interval_offset = at_tip(v, tip, BUSY_INTERVAL_OFFSET),
		.sd_busy_factor = at_tip(v, tip, BUSY_FACTOR_16) ? 16 : 32,
		.detach_util_shift = at_tip(v, tip, DETACH_UTIL_SHIFT),
		.sibling_imbalance = at_tip(v, tip, SIBLING_IMBALANCE),
		.smt_balance = at_tip(v, tip, SMT_BALANCE),
		.fully_busy_smt_busiest = at_tip(v, tip, FULLY_BUSY_SMT),
		.prefer_sibling_busiest = at_tip(v, tip, PREFER_SIBLING_BUSIEST),
		.swb_idle_core = at_tip(v, tip, SWB_IDLE_CORE),
		.newidle_swb_bail = at_tip(v, tip, NEWIDLE_SWB_BAIL),
		.newidle_ttwu_pending = at_tip(v, tip, NEWIDLE_TTWU_PENDING),
		.active_lb_flag = at_tip(v, tip, ACTIVE_LB_FLAG),
		.wakelist_idle = at_tip(v, tip, WAKELIST_IDLE),
		.idlest_group_by_type = at_tip(v, tip, IDLEST_GROUP_TYPES),
		.lb_group_types = at_tip(v, tip, LB_GROUP_TYPES),
		.kthread_stack = at_tip(v, tip, KTHREAD_STACK),
		.scan_cost_sis_prop_only = at_tip(v, tip, SCAN_COST_SIS_PROP),
		.has_sis_util = at_tip(v, tip, SIS_UTIL),
		.has_sis_cluster = at_tip(v, tip, CLUSTER_SCAN),
		.has_tg_load_ratelimit = at_tip(v, tip, TG_LOAD_RATELIMIT),
		.has_sis_prop = !at_tip(v, tip, SIS_PROP_REMOVED),
		.numa_imbalance = at_tip(v, tip, NUMA_CONSISTENT)    ? TS_NUMA_IMB_CONSISTENT
				  : at_tip(v, tip, NUMA_IMB_NR)	     ? TS_NUMA_IMB_LLCS
				  : at_tip(v, tip, NUMA_QUARTER)     ? TS_NUMA_IMB_QUARTER
				  : at_tip(v, tip, NUMA_BALANCE_DST) ? TS_NUMA_IMB_PAIR_DST
				  : at_tip(v, tip, NUMA_SPARE_MOVE)  ? TS_NUMA_IMB_PAIR_SRC
				  : at_tip(v, tip, NUMA_LB_PAIR)     ? TS_NUMA_IMB_PAIR_LB
								     : TS_NUMA_IMB_NONE,
	};
}

int ts_kernel_profile_for(int major, int minor, struct ts_kernel_profile *out, struct ts_error *err)
{
	if (!known(major, minor))
		return ts_error_set(
			err, -EINVAL,
			"kernel %d.%d is not one of the known versions (" TS_KERNEL_KNOWN ")",
			major, minor);
	profile_of(major, minor, 0, out);
	return 0;
}

struct ts_kernel_profile ts_kernel_profile_newest(void)
{
	struct ts_kernel_profile k;
	ts_kernel_profile_for(newest / 100, newest % 100, &k, NULL);
	k.major = k.minor = 0; /* "the newest": a zeroed profile */
	return k;
}

/* A decimal number of at most 4 digits at *p; advances *p. */
static bool number(const char **p, int *out)
{
	int n = 0, digits = 0;
	while (**p >= '0' && **p <= '9' && digits < 5) {
		n = n * 10 + (**p - '0');
		(*p)++;
		digits++;
	}
	*out = n;
	return digits > 0 && digits <= 4;
}

int ts_kernel_profile_parse(const char *text, struct ts_kernel_profile *out, struct ts_error *err)
{
	const char *p = text ? text : "";
	int major, minor, patch, rc;
	if (*p == 'v')
		p++;
	bool ok = number(&p, &major) && *p++ == '.' && number(&p, &minor);
	if (ok && *p == '.')
		ok = (p++, number(&p, &patch));
	if (ok && strncmp(p, "-rc", 3) == 0)
		ok = (p += 3, number(&p, &rc));
	int year = 0, month = 0, day = 0;
	bool tip = ok && strncmp(p, "+tip-", 5) == 0;
	if (tip) {
		p += 5;
		ok = number(&p, &year) && *p++ == '-' && number(&p, &month) && *p++ == '-' &&
		     number(&p, &day) && year >= 1991 && month >= 1 && month <= 12 && day >= 1 &&
		     day <= 31;
	}
	if (!ok || *p || !known(major, minor))
		return ts_error_set(err, -EINVAL,
				    "'%.40s' is not a known kernel version (known: " TS_KERNEL_KNOWN
				    "; written as 6.1, v5.15.90, 6.4-rc5 or 5.6+tip-2020-03-13)",
				    text ? text : "");
	if (tip && !tip_dates_known(V(major, minor)))
		return ts_error_set(err, -EINVAL,
				    "'%.40s': no tip/sched/core dates are recorded for the changes "
				    "that followed v%d.%d, so its tip snapshots are not known",
				    text, major, minor);
	profile_of(major, minor, tip ? year * 10000 + month * 100 + day : 0, out);
	return 0;
}

struct ts_features ts_kernel_features_default(const struct ts_kernel_profile *k)
{
	struct ts_features f = ts_features_default();
	int v = version_of(k), tip = k->tip;
	/* SIS_UTIL turned SIS_PROP off when it came in (features.h of v6.0) */
	if (at_tip(v, tip, SIS_UTIL)) {
		ts_features_clear(&f, TS_FEAT_SIS_PROP);
		ts_features_set(&f, TS_FEAT_SIS_UTIL);
	} else {
		ts_features_set(&f, TS_FEAT_SIS_PROP);
		ts_features_clear(&f, TS_FEAT_SIS_UTIL);
	}
	if (!at_tip(v, tip, CLUSTER_SCAN))
		ts_features_clear(&f, TS_FEAT_SIS_CLUSTER);
	if (!at_tip(v, tip, TG_LOAD_RATELIMIT))
		ts_features_clear(&f, TS_FEAT_TG_LOAD_RATELIMIT);
	return f;
}

enum ts_tg_layout ts_kernel_tg_layout(const struct ts_kernel_profile *k)
{
	return at_tip(version_of(k), k->tip, TG_LOAD_AVG_LINE) ? TS_TG_V6_4 : TS_TG_PACKED;
}

int ts_kernel_profile_name(const struct ts_kernel_profile *k, char *buf, size_t size)
{
	if (!k->major)
		return snprintf(buf, size, "%s", TS_KERNEL_NEWEST);
	if (k->tip)
		return snprintf(buf, size, "%d.%d+tip-%04d-%02d-%02d", k->major, k->minor,
				k->tip / 10000, k->tip / 100 % 100, k->tip % 100);
	return snprintf(buf, size, "%d.%d", k->major, k->minor);
}

struct take {
	struct ts_kernel_profile k;
	bool given;
};

static int take_kernel(const char *value, void *ctx, struct ts_error *err)
{
	struct take *t = ctx;
	t->given = true;
	return ts_kernel_profile_parse(value, &t->k, err);
}

int ts_kernel_profile_take(const char *features, char *rest, size_t rest_size,
			   struct ts_kernel_profile *k, bool *given, struct ts_error *err)
{
	struct take t = {.k = *k};
	*given = false;
	int rc = ts_features_take_key(features, "kernel=", rest, rest_size, take_kernel, &t, err);
	if (rc)
		return rc;
	*k = t.k;
	*given = t.given;
	return 0;
}

bool ts_kernel_profile_mechanism(const struct ts_kernel_profile *k, int i,
				 struct ts_kernel_mechanism *out)
{
	if (i < 0 || i >= NR_CHANGES)
		return false;
	const struct change_info *c = &changes[i];
	out->name = c->name;
	out->generation = at_tip(version_of(k), k->tip, (enum change)i) ? c->after : c->before;
	out->since_major = c->since / 100;
	out->since_minor = c->since % 100;
	out->commit = c->commit;
	return true;
}
