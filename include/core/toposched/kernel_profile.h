/* Kernel profiles (`--kernel VERSION`): which generation of each scheduling mechanism that
 * changed between v5.4 and the newest kernel the core follows (v6.12) a given mainline
 * version has, so that a patch is judged on the kernel it was written for. Every version
 * from 5.4 to 6.12 is accepted; each mechanism takes the generation of that version. The
 * merge version of every change, with its commit, is in docs/kernels.md.
 *
 * A profile only says which code runs: the switches of the era (SIS_PROP on before v6.0,
 * SIS_UTIL from v6.0, ...) are the profile's default feature set
 * (ts_kernel_features_default()), on which --features and --compare apply as usual, so a
 * later mechanism can be tried on an older kernel ("what would SIS_UTIL do on 5.15"). */
#ifndef TOPOSCHED_KERNEL_PROFILE_H
#define TOPOSCHED_KERNEL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "toposched/error.h"
#include "toposched/fair_pick.h"
#include "toposched/features.h"
#include "toposched/tg_layout.h"

/* The fair class's pick, enum ts_fair_pick (fair_pick.h): EEVDF from v6.6
 * (147f3efaa241), CFS (vruntime, sched_latency, wake-up granularity) before. */

/* The shape of select_idle_sibling()'s LLC search. */
enum ts_sis_order {
	/* v6.7+: the merged select_idle_cpu() (cores or CPUs), target's cluster first when
	 * clusters exist (8881e1639f1f), select_idle_smt(prev) before it. */
	TS_SIS_ORDER_CLUSTER,
	/* v5.13-v6.6: select_idle_smt(prev) when no idle core is advertised (c722f35b513f),
	 * then the merged select_idle_cpu(). */
	TS_SIS_ORDER_SMT_PREV,
	/* v5.12: the merged select_idle_cpu() alone (9fe1f127b913 merged the core scan into
	 * it, 6cd56ef1df39 removed select_idle_smt()). */
	TS_SIS_ORDER_MERGED,
	/* v5.4-v5.11: select_idle_core() over the whole LLC without a budget, then
	 * select_idle_cpu() (SIS_PROP), then select_idle_smt(target). */
	TS_SIS_ORDER_SPLIT,
};

/* SIS_PROP's idle-time estimate. */
enum ts_sis_prop {
	/* v5.14+: the waker CPU's wake_avg_idle, halved every jiffy it stays busy and
	 * spent by every scan (94aafc3ee31d, "sched/fair: Age the average idle time"). */
	TS_SIS_PROP_AGED,
	/* v5.4-v5.13: this_rq()->avg_idle / 512, neither aged nor spent. */
	TS_SIS_PROP_AVG_IDLE_512,
};

/* How the SIS counters count (the counters were never merged; mmtests reads them). */
enum ts_sis_counting {
	/* Ours: 1 per call (the fast path) + 1 per CPU actually examined. */
	TS_SIS_COUNT_EXAMINED,
	/* Mel Gorman's March 2020 patch "sched/fair: Track efficiency of
	 * select_idle_sibling" (SCHEDSTAT_VERSION 16), on the v5.6 code: sis_scanned grows
	 * before select_idle_cpu()'s budget test, so the iteration that exhausts the budget
	 * counts; select_idle_smt() counts every sibling of target, target included. */
	TS_SIS_COUNT_SCHEDSTAT16,
};

/* The NUMA imbalance the kernel lets stand: one rule, adjust_numa_imbalance(), shared by
 * fork placement (find_idlest_group()'s SD_NUMA case), periodic balancing
 * (calculate_imbalance()'s) and NUMA balancing (task_numa_find_cpu()'s), changed together by
 * Mel Gorman's series (docs/kernels.md, "The NUMA imbalance"). Newest first. */
enum ts_numa_imbalance {
	/* v6.0+ (cb29a5c19d2d "sched/numa: Apply imbalance limitations consistently",
	 * f5b2eeb49991, 026b98a93bbd): a fork stays local unless the local node would run more
	 * than imb_numa_nr tasks (at most the CPUs the task may use there) or the idle-CPU
	 * difference is above 2; calculate_imbalance() adjusts, then halves; imb_numa_nr of a
	 * node that is one LLC is its span >> 3, at least 1. */
	TS_NUMA_IMB_CONSISTENT,
	/* v5.18-v5.19 (2cfb7a1b031b, e496132ebedd): a fork stays local while the local node's
	 * running tasks + 1 <= imb_numa_nr; calculate_imbalance() halves, then lets an
	 * imbalance of at most 2 stand while local running + 1 <= imb_numa_nr; imb_numa_nr of
	 * a one-LLC node is its span >> 2. */
	TS_NUMA_IMB_LLCS,
	/* v5.11-v5.17 (7d2b5dd0bcc4, 23e6082a522e): allow_numa_imbalance() = running < a
	 * quarter of the CPUs: a fork stays local while the local node runs fewer tasks than a
	 * quarter of the NUMA domain's CPUs; calculate_imbalance() halves, then lets an
	 * imbalance of at most 2 stand while the busiest node runs fewer than a quarter of its
	 * CPUs; task_numa_find_cpu() the same with the destination node. */
	TS_NUMA_IMB_QUARTER,
	/* v5.10 (233e7aca4c8a): as v5.7, but task_numa_find_cpu() counts the destination
	 * node's running tasks. */
	TS_NUMA_IMB_PAIR_DST,
	/* v5.7-v5.9 (fb86f5b21192): task_numa_find_cpu() moves to a node with spare capacity
	 * unless the move leaves an imbalance, ignored while the source node runs at most 2
	 * tasks; otherwise as v5.6. */
	TS_NUMA_IMB_PAIR_SRC,
	/* v5.6 (b396f52326de): calculate_imbalance() halves, then drops any imbalance while
	 * the busiest node runs at most 2 tasks (NUMA_IMBALANCE_MIN, a communicating pair);
	 * task_numa_find_cpu() only weighs loads. */
	TS_NUMA_IMB_PAIR_LB,
	/* v5.4-v5.5: no allowance in calculate_imbalance() nor task_numa_find_cpu(); a fork
	 * stays local while the local node has an idle CPU (57abff067a08, v5.5); v5.4's
	 * load-based find_idlest_group() stays local unless the remote node's runnable load
	 * plus the imbalance is below the local one (idlest_group_by_type). */
	TS_NUMA_IMB_NONE,
};

struct ts_kernel_profile {
	int major, minor; /* the version asked for; 0.0 = newest (ts_kernel_profile_newest) */
	/* A tip/sched/core snapshot on top of major.minor (YYYYMMDD; 0 = the release): the
	 * release's mechanisms plus those of the next release whose commits were in tip by
	 * that day ("5.6+tip-2020-03-13": the kernel published experiments name as "tip/sched/
	 * core as of March 13th"). Known where every change of the next release has its tip
	 * date recorded (docs/kernels.md). */
	int tip;
	enum ts_fair_pick fair_pick;
	enum ts_sis_order sis_order;
	enum ts_sis_prop sis_prop;
	enum ts_sis_counting sis_counting;
	/* select_idle_cpu() starts its wrap at target + 1 (56498cfb045d, v5.15); before,
	 * at target, which select_idle_sibling() has already found busy. */
	bool scan_after_target;
	/* p->recent_used_cpu = prev on every wake-up (89aafd67f28c, v5.15); before, only
	 * when recent_used_cpu was returned, and the waker's recent_used_cpu became its own
	 * CPU after every affine wake-up (current->recent_used_cpu = cpu). */
	bool recent_used_prev;
	/* A per-CPU kthread waking the task that queued work for it stacks on it
	 * (52262ee567ad, v5.6). */
	bool kthread_stack;
	/* avg_scan_cost learns only from SIS_PROP's budgeted scans (bae4ec13640b, v5.12);
	 * before, from every select_idle_cpu() scan that ran to its end. */
	bool scan_cost_sis_prop_only;
	/* sched_balance_newidle() skips its walk while avg_idle < the first domain's
	 * max_newidle_lb_cost (9d783c8dd112), with no sysctl_sched_migration_cost gate
	 * (c5b0a7eefc70), and a rise of max_newidle_lb_cost puts its ~1 %-a-second decay off
	 * by a second (e60b56e46b38), all v5.16; before, the walk was skipped while
	 * avg_idle < sysctl_sched_migration_cost (500 us), and the maximum decayed every
	 * second whatever its last rise. */
	bool newidle_cost_gate;
	/* The scheduling domains have a CLS level, the CPUs of a cluster (sharing an L2 or
	 * the L3 tags), between SMT and MC (778c558f49a2 for arm64, 66558b730f25 for x86,
	 * v5.16, CONFIG_SCHED_CLUSTER); before, MC (the LLC) was the level right above a CPU
	 * or its SMT core on every machine. */
	bool sched_cluster;
	/* need_active_balance() pushes a running task only for an even spread of tasks
	 * (migrate_task: imbalanced_active_balance(), e9b9734b7465, v5.12); before, for any
	 * imbalance that periodic balancing failed to move more than cache_nice_tries + 2
	 * times in a row, and a pushing balancer doubled its interval. */
	bool active_balance_task_only;
	/* load_balance() classifies groups by what has to move (group_has_spare ...
	 * group_overloaded; migrate_task, _util, _load or _misfit) and weighs load_avg
	 * (0b0695f2b34a, b0fb1eb4f04a, fcf0553db6f4, v5.5); before, a group was group_other,
	 * group_imbalanced or group_overloaded, compared by the avg_load of runnable_load_avg,
	 * every imbalance was load, and fix_small_imbalance() raised one below a task's load
	 * (src/core/balance_busiest_v5_4.c). */
	bool lb_group_types;
	/* detach_tasks() skips a task whose load, shifted right by the level's failed
	 * balances, exceeds the imbalance (5a7f55590467, v5.10); before, one whose half load
	 * does while the failures have not passed cache_nice_tries (6cf82d559e1a, v5.5). */
	bool detach_load_shift;
	/* ... and one whose utilisation, shifted likewise, exceeds it (3af7524b1419, v6.8);
	 * before, whose utilisation does. */
	bool detach_util_shift;
	/* Spreading running tasks between sibling groups (prefer_sibling) counts them scaled
	 * by the groups' cores and only when idle (sibling_imbalance(), 7ff1693236f5, v6.6);
	 * before, the plain difference, also from a busy CPU: find_busiest_group() went on
	 * when busiest ran more than local + 1, calculate_imbalance() took nr_diff. */
	bool sibling_imbalance;
	/* An SMT core running more than one task is group_smt_balance, above fully busy and
	 * below overloaded, for an idle balancing CPU; it gives one task, and a has-spare SMT
	 * group is not picked over a non-SMT one (fee1759e4f04, fixed for SMT4 by
	 * 450e749707bc; v6.6). Before, such a core was has-spare or fully busy. */
	bool smt_balance;
	/* Of two fully busy groups with equal avg_load (0: it is computed only when
	 * overloaded) the later one becomes busiest unless the current one is an SMT core
	 * (5fd6d7f43958, v6.5); before, the first stayed. */
	bool fully_busy_smt_busiest;
	/* Spreading tasks to sibling groups (prefer_sibling) follows the busiest group's
	 * SD_PREFER_SIBLING, its child domain's (43726bdedd29, v6.5); before, that of the
	 * balancing CPU's child domain, which a CPU without one (a non-SMT core beside SMT
	 * cores) lacks. They differ too where a NUMA level's groups come from descended
	 * siblings (Kunpeng 920: a remote node's group carries its MC level's flag, the local
	 * CPU's child is a NUMA level without it); elsewhere they agree. */
	bool prefer_sibling_busiest;
	/* should_we_balance(): the first idle CPU of an idle core balances for its group,
	 * else the first idle CPU of a busy one (b1bfeab9b002, v6.6); before, the group's
	 * first idle CPU. */
	bool swb_idle_core;
	/* should_we_balance() lets a newly idle CPU go on only while it has no task and no
	 * wake-up pending (792b9f65a568, v6.0); before, always, and the newly-idle walk itself
	 * stopped before a level once the CPU had a task (or, from v5.13, a pending wake-up). */
	bool newidle_swb_bail;
	/* Newly-idle balancing does not start while a wake-up is pending on the CPU, and its
	 * walk stops at one (9c9f520a1467, v5.13); before, it ignored pending wake-ups. */
	bool newidle_ttwu_pending;
	/* The stopper's move ignores task_hot() by a flag (LBF_ACTIVE_LB, 23fb06d9602b,
	 * v5.13); before, queueing the push set sd->nr_balance_failed to cache_nice_tries + 1,
	 * which let that level's next balances move cache-hot tasks too. */
	bool active_lb_flag;
	/* ttwu_queue_cond(): a wake-up onto an idle CPU of the waker's LLC goes to that CPU's
	 * wakelist, which activates the task itself (f3dd3f674555, 28156108fecb; v6.0);
	 * before, only a CPU of another LLC took the wakelist and the waker activated the
	 * task on an idle CPU of its own LLC. (v5.8-v5.19 also queued a wakee still
	 * descheduling, 2ebb17717550: the core has no such wake-up path in any era.) */
	bool wakelist_idle;
	/* Fork and exec placement (find_idlest_group()) classifies the groups and compares
	 * their idle CPUs, or for busy groups their load_avg (57abff067a08, v5.5, "sched/fair:
	 * Rework find_idlest_group()"); before (v5.4), it took the group whose
	 * runnable_load_avg (the load of the queued entities only) was lower by more than the
	 * domain's imbalance, load_avg deciding between close ones, and outside fork balancing
	 * the group with the most spare capacity first; find_idlest_group_cpu()'s least loaded
	 * CPU was the one of least runnable_load_avg. */
	bool idlest_group_by_type;
	/* sd_init()'s defaults: imbalance_pct of a domain neither of SMT siblings (110) nor
	 * of an LLC (117), 117 from v5.10 (2208cdaa56c9, "sched/fair: Reduce minimal
	 * imbalance threshold"), 125 before; busy_factor, the multiplier of a busy CPU's
	 * balance interval, 16 from v5.10 (6e7499135db7), 32 before. */
	unsigned int sd_imbalance_pct, sd_busy_factor;
	/* get_sd_balance_interval() takes a jiffy off a busy CPU's interval, so that the
	 * levels' periods are not multiples of each other (e4d32e4d5444, v5.10). */
	bool busy_interval_offset;
	/* Load balancing and fork placement classify a group as overloaded, or not fully
	 * busy, by its runnable_avg too (the time its tasks wait: 070f5e860ee2, v5.7, with
	 * the runnable_avg signal itself, 9f68395333ad); before, by utilisation and task
	 * count alone. NUMA balancing's numa_classify() followed in v5.10 (8e0e0eda6a13). */
	bool group_runnable, numa_runnable;
	/* find_busiest_queue() pulls utilisation (migrate_util) only from a CPU running more
	 * than one task (c32b4308295a, v5.7, "sched/fair: Improve spreading of
	 * utilization"); before, from the most utilised CPU, whose single task it then
	 * cannot detach. */
	bool migrate_util_queued;
	/* calculate_imbalance(): a group with spare capacity fills it with utilisation from
	 * an overloaded busiest only outside an LLC; within one it evens the tasks out, as
	 * the wake-up path spreads them (16b0a7a1a0af, v5.10, "sched/fair: Ensure tasks
	 * spreading in LLC during LB"); before, at every level. */
	bool llc_spread_tasks;
	/* The mechanisms the era has (and turns on by default): SIS_UTIL (70fb5ccf2ebb,
	 * v6.0), the cluster-aware wake-up (8881e1639f1f, 22165f61d0c4, v6.7), the
	 * tg->load_avg rate limit (1528c661c24b, v6.7). SIS_PROP is in every kernel up to
	 * v6.6 (on by default before v6.0) and removed in v6.7 (984ffb6a4366). */
	bool has_sis_util, has_sis_cluster, has_tg_load_ratelimit, has_sis_prop;
	enum ts_numa_imbalance numa_imbalance;
};

/* Whether a profile keeps v5.4's runnable_load_avg, which fork placement and load
 * balancing read before v5.5 (both replaced it then). */
static inline bool ts_kernel_keeps_runnable_load(const struct ts_kernel_profile *k)
{
	return !k->idlest_group_by_type || !k->lb_group_types;
}

/* "MAJOR.MINOR" of the newest kernel the core follows. */
#define TS_KERNEL_NEWEST "6.12"
/* The range accepted, for messages: every minor version of each major. */
#define TS_KERNEL_KNOWN "5.4-5.19, 6.0-6.12"

/* The newest kernel's profile (what a zeroed ts_sched_config gets). */
struct ts_kernel_profile ts_kernel_profile_newest(void);

/* Parses "[v]MAJOR.MINOR[.PATCH][-rcN][+tip-YYYY-MM-DD]" (an -rc has the mechanisms of
 * its merge window; the patch level of a stable release changes nothing here; +tip- names
 * a tip/sched/core snapshot, struct ts_kernel_profile's tip). A version outside
 * TS_KERNEL_KNOWN, or text of another shape, is -EINVAL with a message that names the text
 * and lists the known versions. */
int ts_kernel_profile_parse(const char *text, struct ts_kernel_profile *out, struct ts_error *err);

/* The profile of a known version (major.minor); -EINVAL for another. */
int ts_kernel_profile_for(int major, int minor, struct ts_kernel_profile *out,
			  struct ts_error *err);

/* The feature switches as that kernel boots: ts_features_default() with SIS_PROP,
 * SIS_UTIL, SIS_CLUSTER and TG_LOAD_RATELIMIT as the era has them. */
struct ts_features ts_kernel_features_default(const struct ts_kernel_profile *k);

/* struct task_group's layout in that kernel (tg_layout.h): load_avg ____cacheline_aligned
 * since v4.5 (b0367629acf6), with rt_se and rt_rq (CONFIG_RT_GROUP_SCHED) or rcu, list and
 * parent after it in its line, so TS_TG_V6_4 in every release the profiles cover, the
 * newest included (Deng Pan's 2023 re-layout was not merged). What a simulated
 * configuration gets unless it names a layout (tg_layout=, --tg-layout); a zeroed
 * ts_sched_config keeps TS_TG_ALIGNED, as the runtime, which measures real memory, runs. */
enum ts_tg_layout ts_kernel_tg_layout(const struct ts_kernel_profile *k);

/* The size of a buffer that holds any profile's name, "5.19+tip-2022-12-31" included. */
#define TS_KERNEL_NAME_SIZE 32

/* "5.6" ("5.6+tip-2020-03-13" for a snapshot), or TS_KERNEL_NEWEST for the zeroed
 * profile; snprintf semantics. */
int ts_kernel_profile_name(const struct ts_kernel_profile *k, char *buf, size_t size);

/* Takes every "kernel=VERSION" token (blank- or comma-separated, as feature names are) out
 * of a --compare features string, as ts_tg_layout_take() does with tg_layout=: rest gets
 * the other tokens (each taken token blanked, so offsets in messages stay right), *k the
 * last version given, *given whether there was one. -EINVAL with a message for a bad
 * version or features longer than rest_size. */
int ts_kernel_profile_take(const char *features, char *rest, size_t rest_size,
			   struct ts_kernel_profile *k, bool *given, struct ts_error *err);

/* One line per mechanism: its name, the generation this profile has, and the commit that
 * made the change, for `toposched features --kernel`. i from 0 while it returns true. */
struct ts_kernel_mechanism {
	const char *name;	      /* "sis_prop" */
	const char *generation;	      /* "avg_idle/512 (unaged)" */
	int since_major, since_minor; /* the release that made the change */
	const char *commit;	      /* its commit(s) in mainline */
};
bool ts_kernel_profile_mechanism(const struct ts_kernel_profile *k, int i,
				 struct ts_kernel_mechanism *out);

#endif
