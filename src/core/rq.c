/* Run-queue operations: activation (ttwu_do_activate), deactivation, __schedule(), the
 * tick, yield and migration, with PELT and EEVDF called in the kernel's order (see the
 * call-order comment in eevdf.h); with the CFS pick (s->fair_pick, cfs.h) the same walks
 * take v6.1's check_preempt_tick(), check_preempt_wakeup(), yield_task_fair(),
 * task_fork_fair() and the vruntime normalisation of migrate_task_rq_fair(), over the task-group
 * hierarchy of kernel/sched/fair.c (v6.12, CONFIG_FAIR_GROUP_SCHED): enqueue_task_fair(),
 * dequeue_entities(), pick_next_task_fair(), put_prev_task_fair(), set_next_task_fair(),
 * task_tick_fair(), yield_task_fair(), check_preempt_wakeup_fair(), migrate_task_rq_fair(),
 * task_change_group_fair() and __update_blocked_fair(). A task outside any group is one
 * level deep (se->parent NULL): every walk is then the flat code path. Every function
 * here runs with the rq lock held, unless it says otherwise. PELT over the hierarchy is in
 * rq_pelt.h; the blocked-load decay of group queues and a task changing group in
 * rq_group.c. */
#include "toposched/cfs.h"
#include "toposched/sched.h"
#include "toposched/ttwu.h"

#include <errno.h>
#include <stdlib.h>

#include "eevdf_internal.h"
#include "rq_pelt.h"

/* update_avg(): avg += (sample - avg) / 8, the difference signed as in the kernel's s64. */
static inline void update_avg(uint64_t *avg, uint64_t sample)
{
	int64_t diff = (int64_t)(sample - *avg);
	*avg += (uint64_t)(diff / 8);
}

void ts_rq_publish(struct ts_sched *s, struct ts_rq *rq)
{
	atomic_store_explicit(&rq->ro.nr_running, rq->nr_running, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.idle, rq->curr == NULL, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.load_avg, rq->cfs.avg.load_avg, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.runnable_avg, rq->cfs.avg.runnable_avg, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.util_avg, rq->cfs.avg.util_avg, memory_order_relaxed);
	if (__builtin_expect(ts_kernel_keeps_runnable_load(&s->kernel), 0))
		atomic_store_explicit(&rq->ro.runnable_load_avg, rq->cfs.runnable_load_avg,
				      memory_order_relaxed);
}

/* resched_curr(rq) from any level: a group cfs_rq's request becomes the CPU's (the root
 * cfs_rq's flag, which the tick and __schedule() read and clear). */
static inline void fold_resched(struct ts_rq *rq, struct ts_cfs_rq *cfs)
{
	if (__builtin_expect(cfs->resched, 0) && cfs != &rq->cfs) {
		cfs->resched = false;
		rq->cfs.resched = true;
	}
}

/* The queue p's load sits on while it is not queued: its group's on p->cpu. */
static struct ts_cfs_rq *task_cfs_rq_now(struct ts_sched *s, struct ts_task *p)
{
	struct ts_task_group *tg = task_group_of(s, p);
	struct ts_cfs_rq *cfs = p->se.cfs_rq;
	if (cfs && cfs->cpu == p->cpu && cfs->tg == tg)
		return cfs;
	return tg == s->root_tg ? &s->rq[p->cpu].cfs : ts_tg_cfs_rq(tg, p->cpu);
}

/* ---- per-level entity operations ----------------------------------------------------------- */

static inline __attribute__((always_inline)) void
enqueue_entity(struct ts_sched *s, struct ts_rq *rq, struct ts_cfs_rq *cfs,
	       struct ts_sched_entity *se, uint64_t now, int flags, int kind)
{
	update_curr_charge(cfs, now, s->features);
	update_load_avg_se(s, cfs, se, now, UPDATE_TG | DO_ATTACH, kind);
	if (kind != TASK_SE) {
		se_update_runnable(se);
		/* The group entity's new weight before it is placed. */
		update_cfs_group(s, se, now);
	}
	if (__builtin_expect(ts_kernel_keeps_runnable_load(&s->kernel), 0))
		enqueue_runnable_load_avg(cfs, se);
	eevdf_enqueue_entity(cfs, se, now, flags, s->features);
	if (cfs->nr_queued == 1 && cfs != &rq->cfs)
		list_add_leaf_cfs_rq(cfs);
	fold_resched(rq, cfs);
}

static inline __attribute__((always_inline)) void
dequeue_entity(struct ts_sched *s, struct ts_rq *rq, struct ts_cfs_rq *cfs,
	       struct ts_sched_entity *se, uint64_t now, int flags, bool migrating, int kind)
{
	update_curr_charge(cfs, now, s->features);
	int action = UPDATE_TG;
	if (migrating && kind == TASK_SE)
		action |= DO_DETACH;
	update_load_avg_se(s, cfs, se, now, action, kind);
	if (runnable_load_counted(s, se))
		dequeue_runnable_load_avg(cfs, se);
	if (kind != TASK_SE)
		se_update_runnable(se);
	eevdf_dequeue_entity(cfs, se, now, flags, s->features);
	if (kind != TASK_SE)
		update_cfs_group(s, se, now);
	fold_resched(rq, cfs);
}

static inline __attribute__((always_inline)) void
set_next_entity(struct ts_sched *s, struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now)
{
	/* PELT while the entity is not yet running (cfs->curr is not se). */
	if (se->on_rq)
		update_load_avg(s, cfs, se, now, UPDATE_TG);
	eevdf_set_next_entity(cfs, se, now);
}

static inline __attribute__((always_inline)) void
put_prev_entity(struct ts_sched *s, struct ts_rq *rq, struct ts_cfs_rq *cfs,
		struct ts_sched_entity *prev, uint64_t now)
{
	/* still on the runqueue: charge it; PELT while it still counts as running */
	if (prev->on_rq) {
		update_curr(cfs, now, s->features);
		update_load_avg(s, cfs, prev, now, 0);
	}
	eevdf_put_prev_entity(cfs, prev, now, s->features);
	fold_resched(rq, cfs);
}

/* ---- task-level walks ---------------------------------------------------------------------- */

/* add_nr_running(): a second runnable task makes the root domain overloaded. */
static void add_nr_running(struct ts_sched *s, struct ts_rq *rq)
{
	rq->nr_running++;
	if (rq->nr_running >= 2 && !atomic_load_explicit(&s->overloaded, memory_order_relaxed))
		atomic_store_explicit(&s->overloaded, true, memory_order_relaxed);
}

/* enqueue_task_fair() above the task's level: enqueue every ancestor not yet queued; the
 * levels above that only get their load, weight and slice brought up to date. Group
 * entities take the smallest slice queued below them (v6.12). */
static void enqueue_group_levels(struct ts_sched *s, struct ts_rq *rq, struct ts_sched_entity *se,
				 uint64_t now)
{
	uint64_t slice = ts_cfs_rq_min_slice(se->cfs_rq);
	for (se = se->parent; se; se = se->parent) {
		if (se->on_rq)
			break;
		struct ts_cfs_rq *cfs = se->cfs_rq;
		se->slice = slice;
		se->custom_slice = true;
		enqueue_entity(s, rq, cfs, se, now, TS_ENQUEUE_WAKEUP, ANY_SE);
		if (se->parent)
			slice = ts_cfs_rq_min_slice(cfs);
		cfs->h_nr_runnable++;
		cfs->h_nr_queued++;
	}
	for (; se; se = se->parent) {
		struct ts_cfs_rq *cfs = se->cfs_rq;
		update_load_avg(s, cfs, se, now, UPDATE_TG);
		se_update_runnable(se);
		update_cfs_group(s, se, now);
		se->slice = slice;
		ts_entity_slice_changed(cfs, se);
		if (se->parent)
			slice = ts_cfs_rq_min_slice(cfs);
		cfs->h_nr_runnable++;
		cfs->h_nr_queued++;
		fold_resched(rq, cfs);
	}
}

/* enqueue_task_fair(): p's entity, then (in a group) the levels above. Inline: the call
 * is a wake-up's largest (saved registers, spilled arguments). */
static inline __attribute__((always_inline)) void
enqueue_task_fair(struct ts_sched *s, struct ts_rq *rq, struct ts_task *p, uint64_t now, int flags)
{
	struct ts_sched_entity *se = &p->se;
	struct ts_cfs_rq *cfs = se->cfs_rq;
	enqueue_entity(s, rq, cfs, se, now, flags, TASK_SE);
	cfs->h_nr_runnable++;
	cfs->h_nr_queued++;
	if (__builtin_expect(se->parent != NULL, 0))
		enqueue_group_levels(s, rq, se, now);
	ts_list_add(&p->cfs_node, &rq->cfs_tasks);
	add_nr_running(s, rq);
	if (p->numa) /* account_entity_enqueue() */
		ts_numa_account_enqueue(s, p, rq->cpu);
	ts_task_set_state(p, TS_TASK_RUNNABLE);
}

/* dequeue_entities() above the task's level (se: the task's entity, just dequeued from
 * cfs): dequeue every ancestor whose queue it leaves empty; above the first level that
 * keeps load, bring load, weight and slice up to date. A task going to sleep makes the
 * group entity above the first level that keeps load the next buddy (as v6.12,
 * unconditionally; cfs->next is picked only with NEXT_BUDDY here). */
static void dequeue_group_levels(struct ts_sched *s, struct ts_rq *rq, struct ts_sched_entity *se,
				 uint64_t now, int flags, bool task_sleep)
{
	struct ts_cfs_rq *cfs = se->cfs_rq;
	uint64_t slice = 0;
	se = se->parent;
	if (!cfs->load.weight) {
		flags |= TS_DEQUEUE_SLEEP;
		for (; se; se = se->parent) {
			cfs = se->cfs_rq;
			dequeue_entity(s, rq, cfs, se, now, flags, false, ANY_SE);
			cfs->h_nr_runnable--;
			cfs->h_nr_queued--;
			/* Don't dequeue the parent if it has other entities besides us. */
			if (cfs->load.weight) {
				se = se->parent;
				break;
			}
		}
	}
	if (!se)
		return;
	slice = ts_cfs_rq_min_slice(cfs);
	/* Bias pick_next to a task of this cfs_rq: p sleeps within its slice. */
	if (task_sleep)
		ts_set_next_buddy(se->cfs_rq, se);
	for (; se; se = se->parent) {
		cfs = se->cfs_rq;
		update_load_avg(s, cfs, se, now, UPDATE_TG);
		se_update_runnable(se);
		update_cfs_group(s, se, now);
		se->slice = slice;
		ts_entity_slice_changed(cfs, se);
		if (se->parent)
			slice = ts_cfs_rq_min_slice(cfs);
		cfs->h_nr_runnable--;
		cfs->h_nr_queued--;
		fold_resched(rq, cfs);
	}
}

/* dequeue_entities(): p's entity, then (in a group) the levels above. Inline, as
 * enqueue_task_fair(). */
static inline __attribute__((always_inline)) void dequeue_task_fair(struct ts_sched *s,
								    struct ts_rq *rq,
								    struct ts_task *p, uint64_t now,
								    int flags, bool migrating)
{
	struct ts_sched_entity *se = &p->se;
	struct ts_cfs_rq *cfs = se->cfs_rq;
	dequeue_entity(s, rq, cfs, se, now, flags, migrating, TASK_SE);
	cfs->h_nr_runnable--;
	cfs->h_nr_queued--;
	if (__builtin_expect(se->parent != NULL, 0))
		dequeue_group_levels(s, rq, se, now, flags, flags & TS_DEQUEUE_SLEEP);
	ts_list_del(&p->cfs_node);
	rq->nr_running--;
	if (p->numa) /* account_entity_dequeue() */
		ts_numa_account_dequeue(s, p);
}

/* pick_task_fair(): top down from the root, pick_next_entity() per level with each level's
 * curr still in place (charged first if it is still queued). */
static inline __attribute__((always_inline)) struct ts_sched_entity *
pick_task_fair(struct ts_sched *s, struct ts_rq *rq, uint64_t now)
{
	struct ts_cfs_rq *cfs = &rq->cfs;
	struct ts_sched_entity *se;
	if (!cfs->nr_queued)
		return NULL;
	do {
		if (cfs->curr && cfs->curr->on_rq) {
			update_curr(cfs, now, s->features);
			fold_resched(rq, cfs);
		}
		se = eevdf_pick_next_entity(cfs, s->features);
		if (!se)
			return NULL;
		cfs = se->my_q;
	} while (cfs);
	return se;
}

/* put_prev_task_fair(): every level of prev's path. */
static void put_prev_task_fair(struct ts_sched *s, struct ts_rq *rq, struct ts_task *prev,
			       uint64_t now)
{
	for (struct ts_sched_entity *se = &prev->se; se; se = se->parent)
		put_prev_entity(s, rq, se->cfs_rq, se, now);
}

/* set_next_task_fair(): every level of next's path, bottom up. */
static void set_next_task_fair(struct ts_sched *s, struct ts_task *next, uint64_t now)
{
	for (struct ts_sched_entity *se = &next->se; se; se = se->parent)
		set_next_entity(s, se->cfs_rq, se, now);
}

/* pick_next_task_fair()'s switch from prev to next: put and set only the levels below
 * their common ancestor. When prev is picked again the kernel does nothing; here every
 * level of its path is put and set again, renewing its slice protection at each level
 * (what the flat core always did at its one level), so that a task alone in its groups is
 * scheduled exactly like a root task of the same weight. Inline into both picks (a call
 * was ~20 instructions a switch). */
static inline __attribute__((always_inline)) void
put_prev_set_next(struct ts_sched *s, struct ts_rq *rq, struct ts_task *prev, struct ts_task *next,
		  uint64_t now)
{
	struct ts_sched_entity *se = &next->se, *pse = &prev->se;
	/* CFS: prev keeps running as the kernel's does, its slice (prev_sum_exec_runtime)
	 * not renewed, so that check_preempt_tick() still sees how long it has run. */
	if (prev == next && s->fair_pick == TS_FAIR_PICK_CFS)
		return;
	if (prev == next) {
		for (; se; se = se->parent) {
			put_prev_entity(s, rq, se->cfs_rq, se, now);
			set_next_entity(s, se->cfs_rq, se, now);
		}
		return;
	}
	while (se->cfs_rq != pse->cfs_rq) { /* !is_same_group(se, pse) */
		int se_depth = se->depth, pse_depth = pse->depth;
		if (se_depth <= pse_depth) {
			put_prev_entity(s, rq, pse->cfs_rq, pse, now);
			pse = pse->parent;
		}
		if (se_depth >= pse_depth) {
			set_next_entity(s, se->cfs_rq, se, now);
			se = se->parent;
		}
	}
	put_prev_entity(s, rq, se->cfs_rq, pse, now);
	set_next_entity(s, se->cfs_rq, se, now);
}

/* wakeup_preempt(): an idle CPU always reschedules; else check_preempt_wakeup_fair(). */
static inline __attribute__((always_inline)) bool
preempt_on(struct ts_sched *s, struct ts_rq *rq, struct ts_task *p, uint64_t now, int wake_flags)
{
	struct ts_task *curr = rq->curr;
	bool resched = false;
	if (!curr) {
		resched = true;
	} else if (__builtin_expect(s->fair_pick == TS_FAIR_PICK_CFS, 0)) {
		/* check_preempt_wakeup() of v6.1 */
		resched = ts_cfs_check_preempt_wakeup(&curr->se, &p->se, now, wake_flags,
						      rq->cfs.resched, s->features);
		if (resched)
			rq->cfs.resched = true;
	} else if (curr != p) {
		struct ts_sched_entity *se = &curr->se, *pse = &p->se;
		if (ts_features_has(s->features, TS_FEAT_NEXT_BUDDY) && !(wake_flags & TS_WF_FORK))
			ts_set_next_buddy(pse->cfs_rq, pse);
		/* test_tsk_need_resched(curr): a reschedule is already on its way. */
		if (!rq->cfs.resched && ts_features_has(s->features, TS_FEAT_WAKEUP_PREEMPTION)) {
			ts_find_matching_se(&se, &pse);
			struct ts_cfs_rq *cfs = se->cfs_rq;
			resched = eevdf_wakeup_preempt_entity(cfs, pse, now, s->features);
			if (resched)
				rq->cfs.resched = true;
			fold_resched(rq, cfs);
		}
	}
	if (resched)
		s->ops.resched_cpu(s->host, rq->cpu);
	return resched;
}

/* ---- activation, wake-up, migration -------------------------------------------------------- */

/* migrate_task_rq_fair() for a sleeping task woken onto another CPU: its load leaves the
 * old queue (its group's cfs_rq there) through that queue's removed accumulator (we do not
 * hold its lock). */
static void migrate_task_rq(struct ts_sched *s, struct ts_task *p, int new_cpu, uint64_t now)
{
	struct ts_sched_entity *se = &p->se;
	/* CFS: a blocked task keeps an absolute vruntime; make it relative to the old queue's
	 * min_vruntime (read without its lock, as u64_u32_load()); the enqueue on the new
	 * queue adds that one's. */
	if (s->fair_pick == TS_FAIR_PICK_CFS && p->state == TS_TASK_SLEEPING)
		se->vruntime -=
			__atomic_load_n(&task_cfs_rq_now(s, p)->min_vruntime, __ATOMIC_RELAXED);
	if (se->avg.last_update_time) {
		struct ts_cfs_rq *old = task_cfs_rq_now(s, p);
		/* sync_entity_load_avg(): decay to now; one clock serves every rq here. */
		ts_update_load_avg_blocked_se(now, &se->avg, se->load.weight);
		ts_remove_entity_load_avg(old->removed, &se->avg);
	}
	se->avg.last_update_time = 0; /* attach on the new queue */
	se->exec_start = 0;	      /* no longer cache hot */
	if (s->ops.migrate_task)
		s->ops.migrate_task(s->host, p, new_cpu);
	set_task_cpu(p, new_cpu);
	p->nr_migrations++;
}

/* activate_task(), inline into try_to_wake_up(). */
static inline __attribute__((always_inline)) bool activate_task(struct ts_sched *s, int cpu,
								struct ts_task *p, int wake_flags)
{
	struct ts_rq *rq = &s->rq[cpu];
	uint64_t now = rq_clock(s, rq);
	bool new_task = p->state == TS_TASK_NEW;
	int flags = new_task ? TS_ENQUEUE_INITIAL : TS_ENQUEUE_WAKEUP;
	/* WF_MIGRATED: try_to_wake_up()'s set_task_cpu() moved p already (ttwu_set_task_cpu) */
	bool migrated = wake_flags & TS_WF_MIGRATED;
	if (p->cpu != cpu) {
		migrate_task_rq(s, p, cpu, now);
		migrated = true;
	}
	if (migrated) {
		flags |= TS_ENQUEUE_MIGRATED;
		p->nr_wakeups_migrate += !new_task;
		ts_stat_inc(&rq->stats.migrations);
	}
	set_task_rq(s, p, cpu);
	/* CFS: a new task activated without ts_wake_up_new_task() forks on this CPU */
	if (s->fair_pick == TS_FAIR_PICK_CFS && new_task)
		ts_cfs_task_fork(&p->se, now);
	enqueue_task_fair(s, rq, p, now, flags);
	/* ttwu_do_activate(): the idle period that just ended feeds avg_idle (newidle
	 * balancing's gate) and SIS_PROP's wake-up budget. A wake-up that lands while a
	 * modelled newly-idle pass would still be running samples it too, from the pass's
	 * start: the kernel's pass drops the rq lock with idle_stamp set, and clears it only
	 * after pulling (sched_balance_newidle()). A new task's activation is
	 * wake_up_new_task()'s activate_task(), which samples nothing. */
	uint64_t idle_stamp = new_task ? 0 : rq->idle_stamp;
	if (rq->newidle_until && !new_task) {
		if (!idle_stamp && now < rq->newidle_until)
			idle_stamp = rq->newidle_stamp;
		rq->newidle_until = 0;
	}
	if (idle_stamp) {
		uint64_t delta = now - idle_stamp, max = 2 * rq->max_idle_balance_cost;
		update_avg(&rq->avg_idle, delta);
		if (rq->avg_idle > max)
			rq->avg_idle = max;
		atomic_store_explicit(&rq->ro.wake_stamp, now / s->tick_nsec, memory_order_relaxed);
		atomic_store_explicit(&rq->ro.wake_avg_idle, rq->avg_idle / 2,
				      memory_order_relaxed);
		ts_rq_set_idle_stamp(rq, 0);
	}
	bool resched = preempt_on(s, rq, p, now, wake_flags);
	ts_rq_publish(s, rq);
	return resched;
}

bool ts_activate_task(struct ts_sched *s, int cpu, struct ts_task *p, int wake_flags)
{
	return activate_task(s, cpu, p, wake_flags);
}

/* post_init_entity_util_avg(): a new task starts with half the spare capacity of the
 * queue it lands on (its group's cfs_rq), in proportion to its weight. */
static void post_init_entity_util_avg(struct ts_sched *s, struct ts_task *p, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	const struct ts_cfs_rq *cfs = p->se.cfs_rq;
	struct ts_sched_avg *sa = &p->se.avg;
	long cap = ((long)rq->cpu_capacity - (long)cfs->avg.util_avg) / 2;
	if (cap > 0) {
		if (cfs->avg.util_avg) {
			sa->util_avg =
				cfs->avg.util_avg * p->se.load.weight / (cfs->avg.load_avg + 1);
			if (sa->util_avg > (unsigned long)cap)
				sa->util_avg = (unsigned long)cap;
		} else {
			sa->util_avg = (unsigned long)cap;
		}
	}
	sa->runnable_avg = sa->util_avg;
}

static inline __attribute__((always_inline)) void
count_wakeup(struct ts_sched *s, struct ts_task *p, int waker_cpu, int cpu,
	     const struct ts_placement *pl, int wake_flags)
{
	struct ts_cpu_stats *st = &s->rq[waker_cpu].stats;
	ts_stat_inc(&st->ttwu_count);
	/* a local wake-up: ts_cpu_relation()'s answer, without the call */
	enum ts_cpu_relation rel =
		cpu == waker_cpu ? TS_REL_SAME_CPU : ts_cpu_relation(s, waker_cpu, cpu);
	ts_stat_inc(&st->wakeups_by_relation[rel]);
	p->nr_wakeups++;
	if (wake_flags & TS_WF_SYNC)
		p->nr_wakeups_sync++;
	if (cpu == waker_cpu) {
		ts_stat_inc(&st->ttwu_local);
		p->nr_wakeups_local++;
	} else {
		p->nr_wakeups_remote++;
		struct ts_sched_domain *sd;
		ts_for_each_domain(s->dom, waker_cpu, sd)
		{
			if (ts_cpumask_test(sd->span, cpu)) {
				ts_stat_inc(&sd->stats.ttwu_wake_remote);
				break;
			}
		}
	}
	(void)pl;
}

/* try_to_wake_up() after select_task_rq(): ttwu_queue() onto pl->cpu. */
static inline __attribute__((always_inline)) void ttwu_queue(struct ts_placement *pl,
							     struct ts_sched *s, struct ts_task *p,
							     int waker_cpu, struct ts_task *waker,
							     int wake_flags)
{
	int cpu = pl->cpu; /* a local: pl escapes into the host's calls */
	struct ts_rq *rq = &s->rq[cpu];
	/* Until p is queued, other wakers must not take cpu for idle; the waker's own CPU
	 * runs the waker and never looks idle, so a local wake-up (not queued on a wake list)
	 * skips the two locked instructions. */
	bool mark = !waker || cpu != waker_cpu || pl->ttwu_queued;
	if (mark)
		atomic_fetch_add_explicit(&rq->ro.ttwu_pending, 1, memory_order_relaxed);
	s->ops.rq_lock(s->host, cpu);
	if (pl->ttwu_queued && s->ops.wakelist_ipi) {
		/* __ttwu_queue_wakelist(): p joins the target's wake list, off its run queue
		 * (ttwu_pending keeps the CPU from looking idle), until the target takes the
		 * IPI: no balancer can see it, nothing counts it in nr_running or load. */
		p->wake_flags = wake_flags;
		p->wake_next = NULL;
		*rq->wake_tail = p;
		rq->wake_tail = &p->wake_next;
		count_wakeup(s, p, waker_cpu, cpu, pl, wake_flags);
		s->ops.rq_unlock(s->host, cpu);
		s->ops.wakelist_ipi(s->host, cpu);
		return;
	}
	if (mark)
		atomic_fetch_sub_explicit(&rq->ro.ttwu_pending, 1, memory_order_relaxed);
	activate_task(s, cpu, p, wake_flags);
	/* Under the target's lock: once it is dropped p may run, block and be woken again,
	 * and its nr_wakeups* would be written by two wakers at once. */
	count_wakeup(s, p, waker_cpu, cpu, pl, wake_flags);
	s->ops.rq_unlock(s->host, cpu);
}

/* try_to_wake_up() between select_task_rq() and ttwu_queue(): a blocked task that changes
 * CPU is moved by its waker (TASK_WAKING, under p->pi_lock, no rq lock): set_task_cpu(),
 * i.e. migrate_task_rq_fair() (its load leaves the old queue through the removed
 * accumulator) and __set_task_cpu() (set_task_rq(): the group's queue and entity on cpu,
 * task-group lines read by the waker). The activation then sees WF_MIGRATED. A new task
 * keeps the activation's path, as wake_up_new_task() does. */
static inline __attribute__((always_inline)) int
ttwu_set_task_cpu(struct ts_sched *s, struct ts_task *p, int cpu, int wake_flags)
{
	if (p->cpu == cpu || p->state != TS_TASK_SLEEPING)
		return wake_flags;
	migrate_task_rq(s, p, cpu, s->ops.clock(s->host));
	set_task_rq(s, p, cpu);
	return wake_flags | TS_WF_MIGRATED;
}

/* try_to_wake_up() up to ttwu_queue(): select_task_rq() into *pl and whether the kernel
 * would queue the activation on pl->cpu's wakelist. Returns the wake-up's flags. */
static inline __attribute__((always_inline)) int ttwu_select(struct ts_placement *pl,
							     struct ts_sched *s, struct ts_task *p,
							     int waker_cpu, struct ts_task *waker,
							     int wake_flags)
{
	wake_flags |= TS_WF_TTWU;
	ts_select_task_rq_to(pl, s, p, waker_cpu, waker, wake_flags);
	/* ttwu_queue_wakelist(): ttwu_queue_cond() is false for the waker's own CPU */
	pl->ttwu_queued = pl->cpu != waker_cpu && ts_ttwu_queue_cond(s, p, waker_cpu, pl->cpu);
	return wake_flags;
}

void ts_try_to_wake_up_to(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
			  int waker_cpu, struct ts_task *waker, int wake_flags)
{
	wake_flags = ttwu_select(pl, s, p, waker_cpu, waker, wake_flags);
	wake_flags = ttwu_set_task_cpu(s, p, pl->cpu, wake_flags);
	ttwu_queue(pl, s, p, waker_cpu, waker, wake_flags);
}

int ts_ttwu_select(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p, int waker_cpu,
		   struct ts_task *waker, int wake_flags)
{
	return ttwu_select(pl, s, p, waker_cpu, waker, wake_flags);
}

int ts_ttwu_set_task_cpu(struct ts_sched *s, struct ts_task *p, int cpu, int wake_flags)
{
	return ttwu_set_task_cpu(s, p, cpu, wake_flags);
}

void ts_ttwu_queue(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p, int waker_cpu,
		   struct ts_task *waker, int wake_flags)
{
	pl->ttwu_queued = pl->cpu != waker_cpu && ts_ttwu_queue_cond(s, p, waker_cpu, pl->cpu);
	ttwu_queue(pl, s, p, waker_cpu, waker, wake_flags);
}

bool ts_try_to_wake_up_or_list(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
			       int waker_cpu, struct ts_task *waker, int wake_flags)
{
	wake_flags = ttwu_select(pl, s, p, waker_cpu, waker, wake_flags);
	int cpu = pl->cpu;
	wake_flags = ttwu_set_task_cpu(s, p, cpu, wake_flags);
	if (!pl->ttwu_queued || ts_rq_nr_running(s, cpu) != 0) {
		ttwu_queue(pl, s, p, waker_cpu, waker, wake_flags);
		return false;
	}
	/* __ttwu_queue_wakelist() without the target's lock: the host hands p over. Until it
	 * is activated ttwu_pending keeps cpu from looking idle; p cannot run, so no other
	 * waker writes its counters meanwhile. */
	atomic_fetch_add_explicit(&s->rq[cpu].ro.ttwu_pending, 1, memory_order_relaxed);
	p->wake_flags = wake_flags;
	count_wakeup(s, p, waker_cpu, cpu, pl, wake_flags);
	return true;
}

bool ts_ttwu_listed_activate(struct ts_sched *s, struct ts_task *p, int cpu)
{
	s->ops.rq_lock(s->host, cpu);
	atomic_fetch_sub_explicit(&s->rq[cpu].ro.ttwu_pending, 1, memory_order_relaxed);
	bool resched = activate_task(s, cpu, p, p->wake_flags);
	s->ops.rq_unlock(s->host, cpu);
	return resched;
}

struct ts_placement ts_try_to_wake_up(struct ts_sched *s, struct ts_task *p, int waker_cpu,
				      struct ts_task *waker, int wake_flags)
{
	struct ts_placement pl;
	ts_try_to_wake_up_to(&pl, s, p, waker_cpu, waker, wake_flags);
	return pl;
}

void ts_sched_ttwu_pending(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *p = rq->wake_list;
	rq->wake_list = NULL;
	rq->wake_tail = &rq->wake_list;
	while (p) {
		struct ts_task *next = p->wake_next;
		p->wake_next = NULL;
		atomic_fetch_sub_explicit(&rq->ro.ttwu_pending, 1, memory_order_relaxed);
		ts_activate_task(s, cpu, p, p->wake_flags);
		p = next;
	}
}

/* task_fork_fair() of the CFS pick on the forking CPU (sched_cgroup_fork(): p's entity on
 * that CPU's queue of its group, under that rq's lock): p's vruntime relative to it. */
static void cfs_task_fork(struct ts_sched *s, struct ts_task *p, int fork_cpu, bool locked)
{
	struct ts_rq *rq = &s->rq[fork_cpu];
	if (!locked)
		s->ops.rq_lock(s->host, fork_cpu);
	set_task_rq(s, p, fork_cpu);
	ts_cfs_task_fork(&p->se, rq_clock(s, rq));
	if (!locked)
		s->ops.rq_unlock(s->host, fork_cpu);
}

/* wake_up_new_task() once the CPU is chosen: under cpu's lock (taken here),
 * __set_task_cpu(), the PELT start of post_init_entity_util_avg() on the queue p joins,
 * activate_task(ENQUEUE_INITIAL) and wakeup_preempt(). CFS: p was forked on fork_cpu
 * (-1: on cpu, under its lock). */
static bool wake_up_new_task_at(struct ts_sched *s, struct ts_task *p, int cpu, int fork_cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	s->ops.rq_lock(s->host, cpu);
	if (s->fair_pick == TS_FAIR_PICK_CFS && fork_cpu < 0)
		cfs_task_fork(s, p, cpu, true);
	if (p->cpu != cpu) /* __set_task_cpu(): a new task has no load to move */
		set_task_cpu(p, cpu);
	set_task_rq(s, p, cpu);
	uint64_t now = rq_clock(s, rq);
	update_cfs_rq_load_avg(p->se.cfs_rq, now);
	post_init_entity_util_avg(s, p, cpu);
	enqueue_task_fair(s, rq, p, now, TS_ENQUEUE_INITIAL);
	bool resched = preempt_on(s, rq, p, now, TS_WF_FORK);
	ts_rq_publish(s, rq);
	s->ops.rq_unlock(s->host, cpu);
	return resched;
}

/* wake_up_new_task() up to the choice of the CPU, into *pl. */
static void new_task_select(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
			    int parent_cpu, struct ts_task *parent)
{
	/* The child sits on the forking CPU (sched_cgroup_fork()), which wake_up_new_task()
	 * remembers as its recent_used_cpu before fork balancing moves it. */
	p->recent_used_cpu = parent_cpu;
	if (s->fair_pick == TS_FAIR_PICK_CFS)
		cfs_task_fork(s, p, parent_cpu, false);
	ts_select_task_rq_to(pl, s, p, parent_cpu, parent, TS_WF_FORK);
}

/* CFS: task_fork_fair() ran on the forking CPU, which p->recent_used_cpu still names
 * (a fork's select does not change it). */
static int new_task_fork_cpu(struct ts_sched *s, const struct ts_task *p)
{
	return s->fair_pick == TS_FAIR_PICK_CFS ? p->recent_used_cpu : -1;
}

struct ts_placement ts_wake_up_new_task(struct ts_sched *s, struct ts_task *p, int parent_cpu,
					struct ts_task *parent)
{
	struct ts_placement pl;
	new_task_select(&pl, s, p, parent_cpu, parent);
	wake_up_new_task_at(s, p, pl.cpu, new_task_fork_cpu(s, p));
	return pl;
}

void ts_wake_up_new_task_or_queue(struct ts_placement *pl, struct ts_sched *s, struct ts_task *p,
				  int parent_cpu, struct ts_task *parent)
{
	new_task_select(pl, s, p, parent_cpu, parent);
	int cpu = pl->cpu; /* a local: pl escapes into the host's calls */
	if (cpu != parent_cpu && ts_ttwu_queue_cond(s, p, parent_cpu, cpu)) {
		atomic_fetch_add_explicit(&s->rq[cpu].ro.ttwu_pending, 1, memory_order_relaxed);
		pl->ttwu_queued = true;
		return;
	}
	wake_up_new_task_at(s, p, cpu, new_task_fork_cpu(s, p));
}

bool ts_wake_up_new_task_queued(struct ts_sched *s, struct ts_task *p, int cpu)
{
	atomic_fetch_sub_explicit(&s->rq[cpu].ro.ttwu_pending, 1, memory_order_relaxed);
	return wake_up_new_task_at(s, p, cpu, new_task_fork_cpu(s, p));
}

bool ts_wake_up_new_task_on(struct ts_sched *s, struct ts_task *p, int cpu)
{
	p->recent_used_cpu = cpu; /* no forking CPU: the chosen one */
	return wake_up_new_task_at(s, p, cpu, -1);
}

/* The current task p (runnable) leaves the queue: it sleeps or exits. */
static inline __attribute__((always_inline)) void deactivate_curr(struct ts_sched *s,
								  struct ts_rq *rq,
								  struct ts_task *p, uint64_t now,
								  enum ts_task_state new_state)
{
	dequeue_task_fair(s, rq, p, now, TS_DEQUEUE_SLEEP, false);
	ts_task_set_state(p, new_state);
	ts_rq_publish(s, rq);
}

void ts_deactivate_curr(struct ts_sched *s, int cpu, enum ts_task_state new_state)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *p = rq->curr;
	if (!p || p->state != TS_TASK_RUNNABLE)
		return;
	deactivate_curr(s, rq, p, rq_clock(s, rq), new_state);
}

/* __update_idle_core(): a CPU going idle whose SMT siblings are all idle tells its LLC
 * that an idle core may exist (has_idle_cores is a hint, cleared by a failed scan). */
static void update_idle_core(struct ts_sched *s, int cpu)
{
	if (!s->dom->smt_active)
		return;
	struct ts_sched_domain_shared *sds = s->dom->cpu[cpu].sd_llc_shared;
	if (!sds || atomic_load_explicit(&sds->has_idle_cores, memory_order_relaxed))
		return;
	const struct ts_topology *t = s->topo;
	int core = t->cpu[cpu].core;
	/* Siblings are few; the topology lists them by core id. */
	for (int c = 0; c < t->nr_cpus; c++)
		if (c != cpu && t->cpu[c].core == core && !ts_available_idle_cpu(s, c))
			return;
	atomic_store_explicit(&sds->has_idle_cores, 1, memory_order_relaxed);
}

/* __schedule()'s pick and switch at now, the pass's rq clock. */
static inline __attribute__((always_inline)) struct ts_task *
schedule_at(struct ts_sched *s, struct ts_rq *rq, int cpu, uint64_t now)
{
	struct ts_task *prev = rq->curr;
	bool was_busy = prev != NULL;
	/* prev is charged at its own level even when it just blocked; a queued prev is charged
	 * by the pick walk or by its put. */
	if (prev && !prev->se.on_rq) {
		update_curr(prev->se.cfs_rq, now, s->features);
		fold_resched(rq, prev->se.cfs_rq);
	}
	struct ts_sched_entity *se = pick_task_fair(s, rq, now);
	struct ts_task *next = se ? ts_task_of(se) : NULL;
	if (!next) {
		if (prev) {
			put_prev_task_fair(s, rq, prev, now);
			ts_rq_set_curr(rq, NULL);
			prev = NULL;
		}
		if (ts_features_has(s->features, TS_FEAT_NEWIDLE_BALANCE)) {
			ts_rq_set_idle_stamp(rq, now);
			ts_rq_publish(s, rq);
			if (ts_balance_newidle(s, cpu) > 0) {
				now = rq_clock(s, rq);
				se = pick_task_fair(s, rq, now);
				next = se ? ts_task_of(se) : NULL;
			}
		}
	}
	if (next) {
		if (prev)
			put_prev_set_next(s, rq, prev, next, now);
		else
			set_next_task_fair(s, next, now);
		ts_list_move(&next->cfs_node, &rq->cfs_tasks);
	}
	rq->cfs.resched = false;
	ts_rq_set_curr(rq, next);
	/* Only a wake-up (ttwu_do_activate()) and a newly-idle pass that pulled clear
	 * idle_stamp: a CPU that leaves idle for a forked task (wake_up_new_task()) or one a
	 * balancer attached keeps it, and the next wake-up onto it samples the whole time
	 * since, as the kernel's does. Going idle stamps the CPU (sched_balance_newidle()
	 * does before its walk), unless it was idle already. */
	if (!next) {
		if (was_busy || !rq->idle_stamp)
			ts_rq_set_idle_stamp(rq, now);
		update_cfs_rq_load_avg(&rq->cfs, now);
	}
	ts_rq_publish(s, rq);
	if (!next)
		update_idle_core(s, cpu);
	return next;
}

struct ts_task *ts_schedule(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	return schedule_at(s, rq, cpu, rq_clock(s, rq));
}

struct ts_task *ts_schedule_deactivate(struct ts_sched *s, int cpu, enum ts_task_state new_state)
{
	struct ts_rq *rq = &s->rq[cpu];
	uint64_t now = rq_clock(s, rq);
	struct ts_task *p = rq->curr;
	if (p && p->state == TS_TASK_RUNNABLE)
		deactivate_curr(s, rq, p, now, new_state);
	return schedule_at(s, rq, cpu, now);
}

void ts_put_prev_task(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *prev = rq->curr;
	if (!prev)
		return;
	put_prev_task_fair(s, rq, prev, rq_clock(s, rq));
	ts_rq_set_curr(rq, NULL);
}

bool ts_sched_tick(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	uint64_t now = rq_clock(s, rq);
	bool has_groups = s->root_tg->first_child != NULL;
	if (rq->curr) {
		/* task_tick_fair(): entity_tick() at every level of curr's path. */
		for (struct ts_sched_entity *se = &rq->curr->se; se; se = se->parent) {
			struct ts_cfs_rq *cfs = se->cfs_rq;
			update_curr(cfs, now, s->features);
			update_load_avg(s, cfs, se, now, UPDATE_TG);
			update_cfs_group(s, se, now);
			if (cfs->pick == TS_FAIR_PICK_CFS && cfs->nr_queued > 1)
				ts_check_preempt_tick(cfs, se);
			fold_resched(rq, cfs);
		}
		if (rq->cfs.resched && rq->nr_running > 1)
			s->ops.resched_cpu(s->host, cpu);
	} else {
		/* blocked-load decay of an idle CPU */
		if (has_groups)
			ts_update_blocked_fair(s, rq, now);
		update_cfs_rq_load_avg(&rq->cfs, now);
	}
	rq->last_blocked_load_update = now;
	bool balance = now >= rq->next_balance;
	/* sched_balance_softirq(): the blocked averages are brought up to date before the
	 * periodic balancing the host now runs. */
	if (balance && has_groups && rq->curr)
		ts_update_blocked_fair(s, rq, now);
	ts_rq_publish(s, rq);
	return balance;
}

void ts_sched_account_steal(struct ts_sched *s, int cpu, uint64_t ns)
{
	s->rq[cpu].steal_pending += ns;
}

void ts_yield_task(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *p = rq->curr;
	if (!p || rq->nr_running <= 1)
		return;
	uint64_t now = rq_clock(s, rq);
	struct ts_cfs_rq *cfs = p->se.cfs_rq;
	if (s->fair_pick == TS_FAIR_PICK_CFS) {
		/* yield_task_fair() of v6.1: the skip buddy does the rest, in the pick */
		ts_cfs_yield_task(cfs, now);
		s->ops.resched_cpu(s->host, cpu);
		return;
	}
	clear_buddies(cfs, &p->se);
	update_curr_charge(cfs, now, s->features);
	fold_resched(rq, cfs);
	/* yield_task_fair(): give up the rest of this request */
	p->se.deadline += calc_delta_fair(p->se.slice, &p->se);
	s->ops.resched_cpu(s->host, cpu);
}

void ts_move_queued_task(struct ts_sched *s, struct ts_task *p, int src_cpu, int dst_cpu)
{
	struct ts_rq *src = &s->rq[src_cpu], *dst = &s->rq[dst_cpu];
	uint64_t now = rq_clock(s, src);
	if (rq_clock(s, dst) > now)
		now = dst->clock;
	/* detach_task(): dequeue (lag kept) and detach the load, both locks held */
	dequeue_task_fair(s, src, p, now, 0, true);
	p->se.avg.last_update_time = 0;
	p->se.exec_start = 0;
	if (s->ops.migrate_task)
		s->ops.migrate_task(s->host, p, dst_cpu);
	set_task_cpu(p, dst_cpu);
	p->nr_migrations++;
	ts_stat_inc(&dst->stats.migrations);
	ts_rq_publish(s, src);
	/* attach_task() */
	set_task_rq(s, p, dst_cpu);
	enqueue_task_fair(s, dst, p, now, TS_ENQUEUE_MIGRATED);
	preempt_on(s, dst, p, now, 0);
	ts_rq_publish(s, dst);
}
