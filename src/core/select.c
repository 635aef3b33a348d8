/* Wake-up placement: select_task_rq_fair() and its fast path select_idle_sibling(), in the
 * order of kernel/sched/fair.c (v6.8 for the structure and the v6.7 cluster-first scan;
 * SIS_PROP as it was before its removal in 984ffb6a4366; SIS_OVERLOAD as Mel Gorman's
 * February 2020 tree and the review of his March 2020 posting describe it, docs/kernels.md);
 * the kernel source is the specification. The generations of older
 * kernels (s->kernel, kernel_profile.h; docs/kernels.md) are here too: the split scans of
 * v5.4-v5.11 (select_idle_core(), select_idle_cpu(), select_idle_smt(target)), the merged
 * scan of v5.12, select_idle_smt(prev) from v5.13, the unaged avg_idle/512 of SIS_PROP
 * before v5.14, the scan start at target before v5.15, the recent_used_cpu rules before
 * v5.15 and the SIS counting of Mel Gorman's 2020 patch.
 *
 * Everything here is lock-free: other CPUs are read through the rq `ro` block (READ_ONCE
 * in the kernel), the SIS hints in sd_llc_shared are relaxed atomics, and the only state
 * written is the waker CPU's own (its statistics, its sd_llc->avg_scan_cost, its
 * wake_avg_idle, its select_rq_mask scratch), the waker task's wakee state and the
 * wakee's recent_used_cpu and schedstat fields — as in the kernel, where the waker owns
 * p during try_to_wake_up().
 *
 * Where we differ from mainline on purpose:
 *  - choose_idle_cpu()/sched_idle_cpu(): there is no SCHED_IDLE policy yet, so every
 *    "available_idle_cpu(c) || sched_idle_cpu(c)" test is available_idle_cpu(c), and
 *    select_idle_core() never takes its sched_idle_cpu() branch.
 *  - no core scheduling cookies (__select_idle_cpu() is the idle test alone), no EAS
 *    (find_energy_efficient_cpu() is never tried), no uclamp.
 *  - util_fits_cpu() is fits_capacity(util, capacity_of(cpu)), i.e.
 *    util * 1280 < capacity * 1024 (the kernel's ~20 % margin), with util = the task's
 *    PELT util_avg (no util_est, no uclamp, no thermal pressure); it never returns -1.
 *  - cpu_smt_mask(c) is the span of c's SMT domain (c alone when it has none): the same
 *    set unless the scheduled CPU map splits a core.
 *  - task_h_load(p) = ts_task_h_load_of() (the task-group hierarchy of rq.c), lock-free:
 *    the waker's and the wakee's load and their groups' averages on their CPUs are relaxed
 *    atomic loads (pelt.h, group.h) where the kernel reads them with plain loads.
 *  - wake_affine_idle()'s "waker alone" test uses nr_running (no delayed-dequeue count).
 *  - a wake-up from no task (waker == NULL, e.g. a timer) records no wakee flips, counts
 *    as wakee_flips 0 for wake_wide() and is never sync.
 *  - SIS_PROP and SIS_OVERLOAD are placed in today's single select_idle_cpu() (which also
 *    holds the idle-core scan): both apply only in its "no idle core" mode, which is what
 *    the old select_idle_cpu() was; SIS_UTIL, when on, replaces SIS_PROP's budget (as in
 *    v6.0-v6.6, where both existed).
 *  - sis_scanned counts CPUs actually examined: the iteration that hits the budget is not
 *    counted (Mel Gorman's patch incremented before the budget test), except under the
 *    profiles that count as that patch (TS_SIS_COUNT_SCHEDSTAT16, v5.4-v5.11). The 2021
 *    counters (recent hit/miss, core search/failed) are counted in every era.
 *  - the cluster-first scan (SIS_CLUSTER turned on for an older kernel) is written for the
 *    merged select_idle_cpu(): with the split scans of v5.4-v5.11 it does nothing.
 *  - select_idle_capacity() (asymmetric capacity, v5.7+) is today's in every era.
 *  - the result is checked against p's affinity at the end, standing in for core.c's
 *    is_cpu_allowed()/select_fallback_rq() (simplified: first allowed scheduled CPU). */
#include <limits.h>
#include <stddef.h>

#include "toposched/sched.h"

/* The state of one select_idle_sibling() call. */
struct sis {
	struct ts_sched *s;
	struct ts_task *p;
	int this_cpu;		 /* the waker's CPU: smp_processor_id() */
	struct ts_cpu_stats *st; /* this_rq()'s schedstats */
	struct ts_placement *pl;
	const struct ts_kernel_profile *k;
	bool cluster;	  /* sched_cluster_active && SIS_CLUSTER */
	bool asym;	  /* sched_asym_cpucap_active() */
	int counted_only; /* sis_scanned counts without a CPU examined (SCHEDSTAT16) */
	int recent_busy;  /* recent_used_cpu, examined in step 4 and not idle; else -1 */
	unsigned long task_util;
	enum ts_place_reason scan_reason; /* why select_idle_cpu() returned what it did */
};

static inline bool feat(const struct ts_sched *s, enum ts_feature f)
{
	return ts_features_has(s->features, f);
}

/* choose_idle_cpu(): no SCHED_IDLE yet, so exactly available_idle_cpu(). */
static inline bool choose_idle_cpu(struct ts_sched *s, int cpu)
{
	return ts_available_idle_cpu(s, cpu);
}

/* One CPU (or SMT sibling) examined by a scan: sis_scanned and the placement's counts. */
static inline void examined(struct sis *c, int cpu)
{
	c->pl->nr_scanned++;
	c->pl->scanned_by_relation[ts_cpu_relation(c->s, c->this_cpu, cpu)]++;
}

static inline bool fits_capacity(unsigned long util, unsigned long cap)
{
	return util * 1280 < cap * 1024;
}

/* asym_fits_cpu(): always true on symmetric machines (asym: sched_asym_cpucap_active()). */
static inline bool asym_fits_cpu(struct ts_sched *s, bool asym, unsigned long task_util, int cpu)
{
	return !asym || fits_capacity(task_util, ts_capacity_of(s, cpu));
}

/* cpu_smt_mask(cpu), or NULL when cpu is its own core. */
static inline const struct ts_cpumask *smt_mask(struct ts_sched *s, int cpu)
{
	struct ts_sched_domain *sd = s->dom->cpu[cpu].sd;
	return sd && (sd->flags & TS_SD_SHARE_CPUCAPACITY) ? sd->span : NULL;
}

static inline bool test_idle_cores(struct ts_sched *s, int cpu)
{
	struct ts_sched_domain_shared *sds = s->dom->cpu[cpu].sd_llc_shared;
	return sds && atomic_load_explicit(&sds->has_idle_cores, memory_order_relaxed);
}

static inline void set_idle_cores(struct ts_sched *s, int cpu, int val)
{
	struct ts_sched_domain_shared *sds = s->dom->cpu[cpu].sd_llc_shared;
	if (sds)
		atomic_store_explicit(&sds->has_idle_cores, val, memory_order_relaxed);
}

/* cpus = span ∩ p->cpus_ptr */
static void and_allowed(struct ts_cpumask *cpus, const struct ts_cpumask *span,
			const struct ts_task *p)
{
	if (p->cpus_allowed)
		ts_cpumask_and(cpus, span, p->cpus_allowed);
	else
		ts_cpumask_copy(cpus, span);
}

/* update_avg() */
static inline void update_avg(uint64_t *avg, uint64_t sample)
{
	int64_t diff = (int64_t)sample - (int64_t)*avg;
	*avg = (uint64_t)((int64_t)*avg + diff / 8);
}

/* ---- record_wakee / wake_wide ---- */

static void record_wakee(struct ts_sched *s, struct ts_task *waker, struct ts_task *p)
{
	if (!waker)
		return;
	/* jiffies > decay_ts + HZ, in ns: decay once per second at most */
	uint64_t now = s->ops.clock(s->host);
	if (now > waker->wakee_flip_decay_ts + TS_NSEC_PER_SEC) {
		waker->wakee_flips >>= 1;
		waker->wakee_flip_decay_ts = now;
	}
	if (waker->last_wakee != p) {
		waker->last_wakee = p;
		waker->wakee_flips++;
	}
}

static bool wake_wide(struct ts_sched *s, struct ts_task *waker, struct ts_task *p, int this_cpu)
{
	unsigned int master = waker ? waker->wakee_flips : 0;
	unsigned int slave = p->wakee_flips;
	unsigned int factor = (unsigned int)s->dom->cpu[this_cpu].sd_llc_size;
	if (master < slave) {
		unsigned int t = master;
		master = slave;
		slave = t;
	}
	if (slave < factor || master < slave * factor)
		return false;
	return true;
}

/* ---- wake_affine ---- */

#define NO_TARGET (-1)

static int wake_affine_idle(struct ts_sched *s, int this_cpu, int prev_cpu, bool sync)
{
	/* An idle waker CPU means an interrupt-context wake-up: move only within the cache. */
	if (ts_available_idle_cpu(s, this_cpu) && ts_cpus_share_cache(s->dom, this_cpu, prev_cpu))
		return ts_available_idle_cpu(s, prev_cpu) ? prev_cpu : this_cpu;
	if (sync && ts_rq_nr_running(s, this_cpu) == 1)
		return this_cpu;
	if (ts_available_idle_cpu(s, prev_cpu))
		return prev_cpu;
	return NO_TARGET;
}

static int wake_affine_weight(struct ts_sched *s, struct ts_sched_domain *sd, struct ts_task *p,
			      struct ts_task *waker, int this_cpu, int prev_cpu, bool sync)
{
	int64_t this_eff_load = (int64_t)ts_cpu_load(s, this_cpu);
	if (sync) {
		int64_t current_load =
			(int64_t)ts_task_h_load_of(s, waker); /* task_h_load(current) */
		if (current_load > this_eff_load)
			return this_cpu;
		this_eff_load -= current_load;
	}
	int64_t task_load = (int64_t)ts_task_h_load_of(s, p);
	this_eff_load += task_load;
	if (feat(s, TS_FEAT_WA_BIAS))
		this_eff_load *= 100;
	this_eff_load *= (int64_t)ts_capacity_of(s, prev_cpu);

	int64_t prev_eff_load = (int64_t)ts_cpu_load(s, prev_cpu);
	prev_eff_load -= task_load;
	if (feat(s, TS_FEAT_WA_BIAS))
		prev_eff_load *= 100 + ((int64_t)sd->imbalance_pct - 100) / 2;
	prev_eff_load *= (int64_t)ts_capacity_of(s, this_cpu);
	/* equal loads on a sync wake-up: let select_idle_sibling() consider stacking */
	if (sync)
		prev_eff_load += 1;
	return this_eff_load < prev_eff_load ? this_cpu : NO_TARGET;
}

static int wake_affine(struct ts_sched *s, struct ts_sched_domain *sd, struct ts_task *p,
		       struct ts_task *waker, int this_cpu, int prev_cpu, bool sync,
		       struct ts_placement *pl)
{
	struct ts_cpu_stats *st = &s->rq[this_cpu].stats;
	int target = NO_TARGET;
	if (feat(s, TS_FEAT_WA_IDLE))
		target = wake_affine_idle(s, this_cpu, prev_cpu, sync);
	if (feat(s, TS_FEAT_WA_WEIGHT) && target == NO_TARGET)
		target = wake_affine_weight(s, sd, p, waker, this_cpu, prev_cpu, sync);

	pl->affine_attempted = true;
	p->nr_wakeups_affine_attempts++;
	ts_stat_inc(&st->wake_affine_attempts);
	if (target != this_cpu)
		return prev_cpu;

	pl->affine = true;
	ts_stat_inc(&sd->stats.ttwu_move_affine);
	p->nr_wakeups_affine++;
	ts_stat_inc(&st->wake_affine);
	return target;
}

/* ---- the LLC scan helpers ---- */

/* select_idle_smt(): an idle sibling of `target` (prev here) inside sd. */
static int select_idle_smt(struct sis *c, struct ts_sched_domain *sd, int target)
{
	struct ts_sched *s = c->s;
	const struct ts_cpumask *smt = smt_mask(s, target);
	int cpu;
	if (!smt)
		return -1;
	ts_for_each_cpu(cpu, smt)
	{
		if (cpu == target || !ts_task_allowed(c->p, cpu))
			continue;
		/* isolcpus: a sibling need not be in the LLC domain */
		if (!ts_cpumask_test(sd->span, cpu))
			continue;
		examined(c, cpu);
		if (choose_idle_cpu(s, cpu))
			return cpu;
	}
	return -1;
}

/* select_idle_core(): `core` if all its siblings are idle; else remember the first idle
 * thread in *idle_cpu and drop the core's siblings from cpus. */
static int select_idle_core(struct sis *c, int core, struct ts_cpumask *cpus, int *idle_cpu)
{
	struct ts_sched *s = c->s;
	const struct ts_cpumask *smt = smt_mask(s, core);
	bool idle = true;
	int cpu;
	ts_stat_inc(&c->st->sis_core_search);
	if (!smt) { /* a core of one CPU */
		examined(c, core);
		if (choose_idle_cpu(s, core))
			return core;
		ts_stat_inc(&c->st->sis_core_failed);
		ts_cpumask_clear_cpu(cpus, core);
		return -1;
	}
	ts_for_each_cpu(cpu, smt)
	{
		examined(c, cpu);
		if (!ts_available_idle_cpu(s, cpu)) {
			idle = false;
			/* (sched_idle_cpu() branch: no SCHED_IDLE yet) */
			if (*idle_cpu == -1)
				continue;
			break;
		}
		if (*idle_cpu == -1 && ts_cpumask_test(cpus, cpu))
			*idle_cpu = cpu;
	}
	if (idle)
		return core;
	ts_stat_inc(&c->st->sis_core_failed);
	ts_cpumask_andnot(cpus, cpus, smt);
	return -1;
}

/* select_idle_capacity(): first idle CPU (wrapping from target) the task fits, else the
 * idle CPU of largest capacity. */
static int select_idle_capacity(struct sis *c, struct ts_sched_domain *sd, int target)
{
	struct ts_sched *s = c->s;
	struct ts_cpumask *cpus = s->select_rq_mask[c->this_cpu];
	unsigned long best_cap = 0;
	int best_cpu = -1, cpu;
	and_allowed(cpus, sd->span, c->p);
	ts_for_each_cpu_wrap(cpu, cpus, target)
	{
		unsigned long cap = ts_capacity_of(s, cpu);
		examined(c, cpu);
		if (!choose_idle_cpu(s, cpu))
			continue;
		if (fits_capacity(c->task_util, cap))
			return cpu;
		/* fits == best_fits == 0: keep the biggest (fits < 0 needs uclamp) */
		if (cap > best_cap) {
			best_cap = cap;
			best_cpu = cpu;
		}
	}
	return best_cpu;
}

/* abort_sd_overloaded() (SIS_OVERLOAD): is an LLC marked overloaded still so? A target or
 * prev with at most one task is a cheap place to go, so the mark is cleared. */
static bool abort_sd_overloaded(struct ts_sched *s, struct ts_sched_domain_shared *sds, int prev,
				int target)
{
	if (!sds || !atomic_load_explicit(&sds->overloaded, memory_order_relaxed))
		return false;
	if (ts_rq_nr_running(s, target) <= 1 ||
	    (prev != target && ts_cpus_share_cache(s->dom, prev, target) &&
	     ts_rq_nr_running(s, prev) <= 1)) {
		atomic_store_explicit(&sds->overloaded, 0, memory_order_relaxed);
		return false;
	}
	return true;
}

/* ---- select_idle_cpu (SIS_UTIL, SIS_PROP, SIS_OVERLOAD, the SIS counters) ---- */

enum scan_step { STEP_NEXT, STEP_FOUND, STEP_BUDGET, STEP_OVERLOADED };

struct scan {
	int nr;			  /* budget: !--nr stops the scan */
	bool overload;		  /* SIS_OVERLOAD sampling on */
	int ov_scanned;		  /* CPUs looked at, the fast targets included */
	unsigned long ov_running; /* their nr_running */
};

/* SIS_OVERLOAD: twice as many running tasks as runqueues scanned. */
static inline bool scan_overloaded(const struct scan *sc)
{
	return sc->ov_running >= 2 * (unsigned long)sc->ov_scanned;
}

/* One CPU of the "no idle core" scan: budget, then __select_idle_cpu(). */
static enum scan_step scan_cpu(struct sis *c, struct scan *sc, int cpu)
{
	if (--sc->nr <= 0) {
		/* the 2020 counters: schedstat_inc(sis_scanned) came before the budget test */
		if (c->k->sis_counting == TS_SIS_COUNT_SCHEDSTAT16)
			c->counted_only++;
		return STEP_BUDGET;
	}
	examined(c, cpu);
	if (choose_idle_cpu(c->s, cpu))
		return STEP_FOUND;
	if (sc->overload) {
		sc->ov_scanned++;
		sc->ov_running += ts_rq_nr_running(c->s, cpu);
		if (scan_overloaded(sc))
			return STEP_OVERLOADED;
	}
	return STEP_NEXT;
}

/* One segment of select_idle_cpu(): the CPUs of span that are still in cpus, wrapping
 * from target + 1 (from target itself before v5.15); in idle-core mode whole cores
 * (select_idle_core() drops a busy core's siblings from cpus), else single CPUs against the
 * shared budget. */
static enum scan_step scan_segment(struct sis *c, struct scan *sc, const struct ts_cpumask *span,
				   struct ts_cpumask *cpus, int target, bool has_idle_core,
				   enum ts_place_reason reason, int *idle_cpu)
{
	int cpu, start = c->k->scan_after_target ? target + 1 : target;
	ts_for_each_cpu_wrap(cpu, span, start)
	{
		if (!ts_cpumask_test(cpus, cpu))
			continue;
		if (has_idle_core) {
			int i = select_idle_core(c, cpu, cpus, idle_cpu);
			if (i >= 0) {
				*idle_cpu = i;
				c->scan_reason = TS_PLACE_IDLE_CORE;
				return STEP_FOUND;
			}
			continue;
		}
		enum scan_step r = scan_cpu(c, sc, cpu);
		if (r == STEP_FOUND) {
			*idle_cpu = cpu;
			c->scan_reason = reason;
		}
		if (r != STEP_NEXT)
			return r;
	}
	return STEP_NEXT;
}

static int select_idle_cpu(struct sis *c, struct ts_sched_domain *sd, bool has_idle_core, int prev,
			   int target)
{
	struct ts_sched *s = c->s;
	struct ts_cpumask *cpus = s->select_rq_mask[c->this_cpu];
	struct ts_sched_domain_shared *sds = s->dom->cpu[target].sd_llc_shared;
	struct ts_rq_ro *this_ro = &s->rq[c->this_cpu].ro;
	struct ts_sched_domain *this_sd = NULL;
	struct scan sc = {.nr = INT_MAX};
	int idle_cpu = -1;
	int scanned0 = c->pl->nr_scanned;
	bool budget_out = false, cut_short = false;
	uint64_t t0 = s->ops.clock(s->host);

	c->scan_reason = TS_PLACE_TARGET_FALLBACK;
	and_allowed(cpus, sd->span, c->p);

	bool sis_prop = feat(s, TS_FEAT_SIS_PROP) && !has_idle_core;
	bool aged = c->k->sis_prop == TS_SIS_PROP_AGED;
	/* avg_scan_cost learns from SIS_PROP's scans since v5.12 (bae4ec13640b), before
	 * from every scan of select_idle_cpu(), which needed sd_llc of this CPU for it */
	if (sis_prop || !c->k->scan_cost_sis_prop_only) {
		this_sd = s->dom->cpu[c->this_cpu].sd_llc;
		if (!this_sd)
			goto out;
	}
	if (sis_prop) {
		uint64_t avg_idle;
		if (aged) {
			/* Busy: the last idle period no longer predicts the future; age it
			 * away. */
			uint64_t now = t0 / s->tick_nsec; /* jiffies */
			uint64_t stamp =
				atomic_load_explicit(&this_ro->wake_stamp, memory_order_relaxed);
			avg_idle =
				atomic_load_explicit(&this_ro->wake_avg_idle, memory_order_relaxed);
			if (stamp < now) {
				while (stamp < now && avg_idle) {
					stamp++;
					avg_idle >>= 1;
				}
				atomic_store_explicit(&this_ro->wake_stamp, stamp,
						      memory_order_relaxed);
				atomic_store_explicit(&this_ro->wake_avg_idle, avg_idle,
						      memory_order_relaxed);
			}
		} else {
			/* v5.4-v5.13: "Due to large variance we need a large fuzz factor;
			 * hackbench in particularly is sensitive here." this_rq()->avg_idle is
			 * this CPU's, written under its lock by whoever wakes a task onto it. */
			avg_idle = __atomic_load_n(&s->rq[c->this_cpu].avg_idle, __ATOMIC_RELAXED) /
				   512;
		}
		uint64_t avg_cost = this_sd->avg_scan_cost + 1;
		uint64_t span_avg = (uint64_t)sd->span_weight * avg_idle;
		if (span_avg > 4 * avg_cost) {
			uint64_t n = span_avg / avg_cost;
			sc.nr = n > INT_MAX ? INT_MAX : (int)n;
		} else {
			sc.nr = 4;
		}
	}

	if (feat(s, TS_FEAT_SIS_UTIL) && sds) {
		/* +1 because !--nr stops the scan */
		sc.nr = atomic_load_explicit(&sds->nr_idle_scan, memory_order_relaxed) + 1;
		/* an overloaded LLC is unlikely to have an idle CPU/core */
		if (sc.nr <= 1) {
			budget_out = true;
			goto out;
		}
	}

	if (feat(s, TS_FEAT_SIS_OVERLOAD) && !has_idle_core) {
		if (abort_sd_overloaded(s, sds, prev, target)) {
			c->scan_reason = TS_PLACE_SCAN_ABORTED;
			goto out;
		}
		sc.overload = sds != NULL;
		/* the CPUs the fast path found busy count as scanned (fast_targets) */
		sc.ov_scanned = 1;
		sc.ov_running = ts_rq_nr_running(s, target);
		if (prev != target && ts_cpus_share_cache(s->dom, prev, target)) {
			sc.ov_scanned++;
			sc.ov_running += ts_rq_nr_running(s, prev);
		}
		if (c->recent_busy >= 0) {
			sc.ov_scanned++;
			sc.ov_running += ts_rq_nr_running(s, c->recent_busy);
		}
	}

	enum scan_step r = STEP_NEXT;
	if (c->cluster && (sd->groups[0]->flags & TS_SD_CLUSTER)) {
		/* v6.7: the target's own cluster first (sd->groups is the target's group). */
		const struct ts_cpumask *sg = sd->groups[0]->span;
		r = scan_segment(c, &sc, sg, cpus, target, has_idle_core, TS_PLACE_CLUSTER_SCAN,
				 &idle_cpu);
		if (r == STEP_NEXT)
			ts_cpumask_andnot(cpus, cpus, sg);
	}
	if (r == STEP_NEXT) /* the rest of the LLC, again from target + 1 */
		r = scan_segment(c, &sc, cpus, cpus, target, has_idle_core, TS_PLACE_LLC_SCAN,
				 &idle_cpu);
	if (r == STEP_FOUND)
		goto found;
	if (r == STEP_BUDGET) {
		budget_out = cut_short = true;
		goto found;
	}
	if (r == STEP_OVERLOADED) {
		/* set_sd_overloaded(sds, 1): written only on the transition; the scan returns
		 * as at the budget's end */
		if (!atomic_load_explicit(&sds->overloaded, memory_order_relaxed))
			atomic_store_explicit(&sds->overloaded, 1, memory_order_relaxed);
		c->scan_reason = TS_PLACE_SCAN_ABORTED;
		cut_short = true;
		goto found;
	}

	if (has_idle_core) {
		/* The whole LLC was searched and no core is idle. */
		set_idle_cores(s, target, 0);
		if (idle_cpu >= 0)
			c->scan_reason = TS_PLACE_IDLE_THREAD;
	}

found:;
	int n = c->pl->nr_scanned - scanned0;
	uint64_t t = s->ops.scan_time ? s->ops.scan_time(s->host, c->this_cpu, n, t0)
				      : s->ops.clock(s->host) - t0;
	/* SIS_PROP: charge the scan against the predicted idle time; a scan cut short by
	 * the budget or by SIS_OVERLOAD is not accounted (the kernel returns before this). */
	if (this_sd && !cut_short) {
		if (sis_prop && aged) { /* the scan spends the predicted idle time */
			uint64_t avg_idle =
				atomic_load_explicit(&this_ro->wake_avg_idle, memory_order_relaxed);
			avg_idle -= avg_idle < t ? avg_idle : t;
			atomic_store_explicit(&this_ro->wake_avg_idle, avg_idle,
					      memory_order_relaxed);
		}
		update_avg(&this_sd->avg_scan_cost, t);
	}
	c->pl->scan_time_ns += t;
	ts_stat_add(&c->st->scan_time_ns, t);
	ts_stat_inc(&c->st->scan_hist[ts_scan_hist_bucket(n)]);
	if (budget_out) {
		c->scan_reason = TS_PLACE_BUDGET_EXHAUSTED;
		return -1;
	}
	return idle_cpu;

out:
	ts_stat_inc(&c->st->scan_hist[ts_scan_hist_bucket(0)]);
	if (budget_out)
		c->scan_reason = TS_PLACE_BUDGET_EXHAUSTED;
	return -1;
}

/* ---- v5.4-v5.11: the split scans ---- */

/* select_idle_core() of v5.6 as tip/sched/core had it under the March 2020 SIS series
 * (Message-ID <20200320151245.21152-2-mgorman@techsingularity.net> patches it): the whole
 * LLC from target, core by core, without a budget; a core's siblings are examined until
 * the first busy one, then dropped from cpus. Runs only while the LLC advertises an idle
 * core; a search that finds none clears the hint. */
static int select_idle_core_split(struct sis *c, struct ts_sched_domain *sd, int target)
{
	struct ts_sched *s = c->s;
	struct ts_cpumask *cpus = s->select_rq_mask[c->this_cpu];
	int core, cpu;
	if (!s->dom->smt_active || !test_idle_cores(s, target))
		return -1;
	and_allowed(cpus, sd->span, c->p);
	ts_for_each_cpu_wrap(core, cpus, target)
	{
		const struct ts_cpumask *smt = smt_mask(s, core);
		bool idle = true;
		ts_stat_inc(&c->st->sis_core_search);
		if (!smt) { /* a core of one CPU */
			examined(c, core);
			idle = ts_available_idle_cpu(s, core);
			ts_cpumask_clear_cpu(cpus, core);
		} else {
			ts_for_each_cpu(cpu, smt)
			{
				examined(c, cpu);
				if (!ts_available_idle_cpu(s, cpu)) {
					idle = false;
					break;
				}
			}
			ts_cpumask_andnot(cpus, cpus, smt);
		}
		if (idle)
			return core;
		ts_stat_inc(&c->st->sis_core_failed);
	}
	/* Failed to find an idle core; stop looking for one. */
	set_idle_cores(s, target, 0);
	return -1;
}

/* select_idle_smt() of v5.4-v5.11, tried after both scans failed: any idle thread of
 * target's core, target itself included (that kernel's loop does not skip it). */
static int select_idle_smt_split(struct sis *c, int target)
{
	struct ts_sched *s = c->s;
	const struct ts_cpumask *smt = smt_mask(s, target);
	int cpu;
	if (!s->dom->smt_active)
		return -1;
	if (!smt) { /* cpu_smt_mask(target) is target alone */
		examined(c, target);
		return choose_idle_cpu(s, target) ? target : -1;
	}
	ts_for_each_cpu(cpu, smt)
	{
		if (!ts_task_allowed(c->p, cpu)) {
			/* the 2020 patch counts before the affinity test */
			if (c->k->sis_counting == TS_SIS_COUNT_SCHEDSTAT16)
				c->counted_only++;
			continue;
		}
		examined(c, cpu);
		if (choose_idle_cpu(s, cpu))
			return cpu;
	}
	return -1;
}

/* Steps 7.-11. of v5.4-v5.11: select_idle_core(), select_idle_cpu() (no idle-core mode:
 * the core scan came first), select_idle_smt(target), target. */
static int select_idle_split(struct sis *c, struct ts_sched_domain *sd, int prev, int target)
{
	struct ts_placement *pl = c->pl;
	int i = select_idle_core_split(c, sd, target);
	if (i >= 0) {
		pl->reason = TS_PLACE_IDLE_CORE;
		return i;
	}
	i = select_idle_cpu(c, sd, false, prev, target);
	if (i >= 0) {
		pl->reason = c->scan_reason;
		return i;
	}
	i = select_idle_smt_split(c, target);
	if (i >= 0) {
		pl->reason = TS_PLACE_IDLE_SMT;
		return i;
	}
	ts_stat_inc(&c->st->sis_failed);
	pl->reason = c->scan_reason;
	return target;
}

/* ---- select_idle_sibling ---- */

/* select_idle_sibling() from step 5 on: the scans of sd_asym_cpucapacity or sd_llc. Out of
 * line, so that its state and scans do not weigh on the fast steps' frame. */
static __attribute__((noinline)) int select_idle_scan(struct sis *c, int prev, int target,
						      int prev_aff, int recent_used_cpu)
{
	struct ts_sched *s = c->s;
	const struct ts_domains *d = s->dom;
	struct ts_placement *pl = c->pl;
	struct ts_sched_domain *sd;
	bool has_idle_core = false;
	int i;

	/* 5. Asymmetric capacity: the domain of interest is sd_asym_cpucapacity. */
	if (c->asym) {
		sd = d->cpu[target].sd_asym_cpucapacity;
		if (sd) {
			ts_stat_inc(&c->st->sis_domain_search);
			i = select_idle_capacity(c, sd, target);
			if (i >= 0) {
				pl->reason = TS_PLACE_ASYM_CAPACITY;
				return i;
			}
			ts_stat_inc(&c->st->sis_failed);
			pl->reason = TS_PLACE_TARGET_FALLBACK;
			return target;
		}
	}

	/* 6. */
	sd = d->cpu[target].sd_llc;
	if (!sd) {
		pl->reason = TS_PLACE_NO_LLC;
		return target;
	}
	ts_stat_inc(&c->st->sis_domain_search);

	if (c->k->sis_order == TS_SIS_ORDER_SPLIT)
		return select_idle_split(c, sd, prev, target);

	/* 7. (v5.12 had no select_idle_smt()) */
	if (d->smt_active) {
		has_idle_core = test_idle_cores(s, target);
		if (c->k->sis_order != TS_SIS_ORDER_MERGED && !has_idle_core &&
		    ts_cpus_share_cache(d, prev, target)) {
			i = select_idle_smt(c, sd, prev);
			if (i >= 0) {
				pl->reason = TS_PLACE_IDLE_SMT;
				return i;
			}
		}
	}

	/* 8. */
	i = select_idle_cpu(c, sd, has_idle_core, prev, target);
	if (i >= 0) {
		pl->reason = c->scan_reason;
		return i;
	}

	/* 9./10. No idle CPU in the target's cluster or LLC: an idle prev or recent CPU of
	 * another cluster is still good (returned without re-checking, as 22165f61d0c4). */
	if (prev_aff >= 0) {
		pl->reason = TS_PLACE_PREV_FALLBACK;
		return prev_aff;
	}
	if (recent_used_cpu >= 0) {
		pl->reason = TS_PLACE_RECENT_FALLBACK;
		return recent_used_cpu;
	}

	/* 11. Nothing: the reason says why the scan found nothing, when it was cut short. */
	ts_stat_inc(&c->st->sis_failed);
	pl->reason = c->scan_reason;
	return target;
}

/* sched_cluster_active && SIS_CLUSTER: the SIS steps look at clusters (the cluster scan is
 * written for the merged select_idle_cpu()). */
static inline bool sis_cluster(const struct ts_sched *s)
{
	return s->dom->cluster_active && feat(s, TS_FEAT_SIS_CLUSTER) &&
	       s->kernel.sis_order != TS_SIS_ORDER_SPLIT;
}

/* select_idle_sibling(): steps 1-4 here, with their state in registers; the scans from
 * step 5 on (select_idle_scan()) take theirs in a struct sis, built only when there is a
 * domain to scan. *counted_only: the scans' sis_scanned count without a CPU examined. */
static inline __attribute__((always_inline)) int
select_idle_sibling(struct ts_sched *s, struct ts_task *p, int this_cpu, struct ts_cpu_stats *st,
		    struct ts_placement *pl, struct ts_task *waker, int prev, int target,
		    int *counted_only)
{
	const struct ts_domains *d = s->dom;
	const struct ts_kernel_profile *k = &s->kernel;
	bool asym = d->asym_cpucapacity;
	unsigned long task_util = asym ? p->se.avg.util_avg : 0; /* task_util_est(), simplified */
	int recent_used_cpu, prev_aff = -1, recent_busy = -1;

	/* 1. */
	if (choose_idle_cpu(s, target) && asym_fits_cpu(s, asym, task_util, target)) {
		pl->reason = TS_PLACE_TARGET_IDLE;
		return target;
	}

	/* 2. The previous CPU is cache affine and idle: don't be stupid. */
	if (prev != target && ts_cpus_share_cache(d, prev, target) && choose_idle_cpu(s, prev) &&
	    asym_fits_cpu(s, asym, task_util, prev)) {
		if (!sis_cluster(s) || ts_cpus_share_resources(d, prev, target)) {
			pl->reason = TS_PLACE_PREV;
			return prev;
		}
		prev_aff = prev; /* idle, same LLC, other cluster */
	}

	/* 3. A per-CPU kthread (IO completion) waking the task that queued work for it:
	 * essentially a sync wake-up, stack on it. */
	if (k->kthread_stack && waker && waker->percpu_kthread && prev == this_cpu &&
	    ts_rq_nr_running(s, this_cpu) <= 1 && asym_fits_cpu(s, asym, task_util, prev)) {
		pl->reason = TS_PLACE_KTHREAD_STACK;
		return prev;
	}

	/* 4. A recently used CPU, replaced by prev as the candidate for next time (before
	 * v5.15 only when it is used). */
	recent_used_cpu = p->recent_used_cpu;
	if (k->recent_used_prev)
		p->recent_used_cpu = prev;
	if (recent_used_cpu != prev && recent_used_cpu != target) {
		bool near = recent_used_cpu >= 0 && recent_used_cpu < s->nr_cpus &&
			    ts_cpus_share_cache(d, recent_used_cpu, target);
		bool idle = near && choose_idle_cpu(s, recent_used_cpu);
		if (idle && ts_task_allowed(p, recent_used_cpu) &&
		    asym_fits_cpu(s, asym, task_util, recent_used_cpu)) {
			ts_stat_inc(&st->sis_recent_hit);
			if (!k->recent_used_prev)
				p->recent_used_cpu = prev;
			if (!sis_cluster(s) ||
			    ts_cpus_share_resources(d, recent_used_cpu, target)) {
				pl->reason = TS_PLACE_RECENT;
				return recent_used_cpu;
			}
		} else {
			ts_stat_inc(&st->sis_recent_miss);
			if (near && !idle) /* looked at and busy: SIS_OVERLOAD counts it */
				recent_busy = recent_used_cpu;
			recent_used_cpu = -1;
		}
	} else {
		recent_used_cpu = -1;
	}

	/* 5./6. No domain to scan (select_idle_scan() would find the same). */
	if (!(asym && d->cpu[target].sd_asym_cpucapacity) && !d->cpu[target].sd_llc) {
		pl->reason = TS_PLACE_NO_LLC;
		return target;
	}
	struct sis c = {
		.s = s,
		.p = p,
		.this_cpu = this_cpu,
		.st = st,
		.pl = pl,
		.k = k,
		.cluster = sis_cluster(s),
		.asym = asym,
		.task_util = task_util,
		.recent_busy = recent_busy,
	};
	int cpu = select_idle_scan(&c, prev, target, prev_aff, recent_used_cpu);
	*counted_only = c.counted_only;
	return cpu;
}

/* ---- select_task_rq_fair ---- */

void ts_select_task_rq_to(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
			  int waker_cpu, struct ts_task *waker, int wake_flags)
{
	*pl = (struct ts_placement){0};
	const struct ts_domains *d = s->dom;
	int cpu = waker_cpu, prev_cpu = p->cpu, new_cpu = prev_cpu;
	bool want_affine = false;
	bool sync = (wake_flags & TS_WF_SYNC) && waker; /* && !(current->flags & PF_EXITING) */
	int sd_flag = wake_flags & 0xF;
	struct ts_sched_domain *tmp, *sd = NULL;
	struct ts_cpu_stats *st = &s->rq[waker_cpu].stats;

	pl->cpu = prev_cpu;
	pl->target = prev_cpu;
	pl->reason = TS_PLACE_TARGET_FALLBACK;

	/* select_task_rq() (kernel/sched/core.c): a task allowed one CPU goes there without
	 * asking its class, so neither the wakee bookkeeping nor the SIS counters see it
	 * (a per-CPU kworker, a task pinned to one CPU). */
	if (p->cpus_allowed && p->nr_cpus_allowed == 1) {
		int only = ts_cpumask_first(p->cpus_allowed);
		if (only < s->nr_cpus && ts_cpumask_test(d->cpu_map, only)) {
			pl->cpu = pl->target = only;
			pl->reason = TS_PLACE_SINGLE_CPU;
			goto done;
		}
	}

	if (wake_flags & TS_WF_TTWU) {
		record_wakee(s, waker, p);
		if ((wake_flags & TS_WF_CURRENT_CPU) && ts_task_allowed(p, cpu)) {
			pl->cpu = pl->target = cpu;
			pl->reason = TS_PLACE_CURRENT_CPU;
			goto done;
		}
		/* (no EAS: find_energy_efficient_cpu() is never tried) */
		want_affine = !wake_wide(s, waker, p, cpu) && ts_task_allowed(p, cpu);
	}
	pl->want_affine = want_affine;

	ts_for_each_domain(d, cpu, tmp)
	{
		/* If both cpu and prev_cpu are part of this domain, cpu is a valid
		 * SD_WAKE_AFFINE target; affine wins over the balance flags. */
		if (want_affine && (tmp->flags & TS_SD_WAKE_AFFINE) &&
		    ts_cpumask_test(tmp->span, prev_cpu)) {
			if (cpu != prev_cpu)
				new_cpu = wake_affine(s, tmp, p, waker, cpu, prev_cpu, sync, pl);
			sd = NULL;
			break;
		}
		if (tmp->flags & (unsigned int)sd_flag)
			sd = tmp;
		else if (!want_affine)
			break;
	}

	if (sd) {
		/* The slow path: fork/exec balancing (or an SD_BALANCE_WAKE level). */
		new_cpu = ts_sched_balance_find_dst_cpu(s, sd, p, cpu, prev_cpu, sd_flag);
		pl->cpu = new_cpu;
		pl->reason = TS_PLACE_SLOW_PATH;
	} else if (wake_flags & TS_WF_TTWU) {
		int counted_only = 0;
		pl->target = new_cpu;
		ts_stat_inc(&st->sis_search);
		pl->cpu = select_idle_sibling(s, p, cpu, st, pl, waker, prev_cpu, new_cpu,
					      &counted_only);
		/* +1: the fast path counts as one scan (Mel Gorman's accounting) */
		ts_stat_add(&st->sis_scanned,
			    1 + (uint64_t)pl->nr_scanned + (uint64_t)counted_only);
		/* before v5.15 (89aafd67f28c) the waker remembered its own CPU */
		if (!s->kernel.recent_used_prev && want_affine && waker)
			waker->recent_used_cpu = cpu;
	} else {
		pl->cpu = new_cpu;
		pl->target = new_cpu;
	}

	/* is_cpu_allowed() / select_fallback_rq(), simplified: only reachable when the
	 * affinity changed while p slept (prev no longer allowed). */
	if (pl->cpu < 0 || pl->cpu >= s->nr_cpus || !ts_task_allowed(p, pl->cpu) ||
	    !ts_cpumask_test(d->cpu_map, pl->cpu)) {
		int f = p->cpus_allowed ? ts_cpumask_first_and(p->cpus_allowed, d->cpu_map)
					: ts_cpumask_first(d->cpu_map);
		if (f < s->nr_cpus)
			pl->cpu = f;
	}
done:
	/* Reasons describe wake-ups (their sum is ttwu_count); fork/exec placements are
	 * counted on their own (the kernel keeps separate exec/fork balance schedstats). */
	if (wake_flags & TS_WF_TTWU)
		ts_stat_inc(&st->reasons[pl->reason]);
	else
		ts_stat_inc(&st->fork_exec_placements);
}

struct ts_placement ts_select_task_rq(struct ts_sched *s, struct ts_task *p, int waker_cpu,
				      struct ts_task *waker, int wake_flags)
{
	struct ts_placement pl;
	ts_select_task_rq_to(&pl, s, p, waker_cpu, waker, wake_flags);
	return pl;
}
