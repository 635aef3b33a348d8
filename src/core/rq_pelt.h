/* PELT over the task-group hierarchy, shared by the run-queue files of the core (rq.c,
 * rq_group.c), after kernel/sched/fair.c (v6.12, CONFIG_FAIR_GROUP_SCHED). Inline: every
 * enqueue, dequeue and tick walks them. All run with the rq lock held. */
#ifndef TOPOSCHED_CORE_RQ_PELT_H
#define TOPOSCHED_CORE_RQ_PELT_H

#include "toposched/sched.h"

#include "pelt_sum.h"

/* update_load_avg() flags (fair.c). */
enum { UPDATE_TG = 0x1, SKIP_AGE_LOAD = 0x2, DO_ATTACH = 0x4, DO_DETACH = 0x8 };

/* update_rq_clock(): read the host's clock (it never goes back), and pass the steal the
 * host accounted (ts_sched_account_steal()) into the steal clock that update_curr() takes
 * off each entity's charge, no more than the clock advanced, as update_rq_clock_task()
 * (kernel/sched/core.c, up to v6.13) takes it off rq->clock_task; the rest waits for the
 * next advance. v6.14 drops that rest (108ad0999085: there it is a sampling race, not
 * steal); the runtime's rest is real steal learnt late, at a tick (docs/runtime.md). */
static inline uint64_t rq_clock(struct ts_sched *s, struct ts_rq *rq)
{
	uint64_t now = s->ops.clock(s->host);
	if (now > rq->clock) {
		if (rq->steal_pending) {
			uint64_t steal = now - rq->clock;
			if (steal > rq->steal_pending)
				steal = rq->steal_pending;
			rq->steal += steal;
			rq->steal_pending -= steal;
		}
		rq->clock = now;
	}
	return rq->clock;
}

static inline bool entity_is_task(const struct ts_sched_entity *se)
{
	return !se->my_q;
}

static inline struct ts_task_group *task_group_of(struct ts_sched *s, const struct ts_task *p)
{
	return p->tg ? p->tg : s->root_tg;
}

/* p->cpu and p->tg are read lock-free by ts_task_h_load_of() (task_h_load() of another
 * CPU's running task in task_numa_compare()), so they are stored with relaxed atomics; the
 * lock holders read them plainly (sched.h, struct ts_task). */
static inline void set_task_cpu(struct ts_task *p, int cpu)
{
	__atomic_store_n(&p->cpu, cpu, __ATOMIC_RELAXED);
}
static inline void set_task_tg(struct ts_task *p, struct ts_task_group *tg)
{
	__atomic_store_n(&p->tg, tg, __ATOMIC_RELAXED);
}

static inline void add_tg_cfs_propagate(struct ts_cfs_rq *cfs, long runnable_sum)
{
	cfs->propagate = 1;
	cfs->prop_runnable_sum += runnable_sum;
}

/* list_add_leaf_cfs_rq(): this group cfs_rq has load to keep decaying. */
static inline void list_add_leaf_cfs_rq(struct ts_cfs_rq *cfs)
{
	if (!cfs->on_list && cfs->tg) /* if (cfs_rq->tg->parent && ...) */
		ts_tg_note_parent_read(cfs->tg, cfs->cpu);
	cfs->on_list = true;
}

/* update_tg_load_avg(cfs_rq) with the switches of the feature set, at the rq clock (the
 * kernel's sched_clock_cpu()). Nothing for the root group. */
static inline void update_tg_load_avg(struct ts_sched *s, struct ts_cfs_rq *cfs, uint64_t now)
{
	if (cfs->tg == s->root_tg || !cfs->tg)
		return;
	ts_update_tg_load_avg(cfs->tg, cfs->cpu, now, ts_tg_switches_of(s->features));
}

/* v5.4's runnable_load_sum/_avg of cfs (___update_load_sum()'s runnable channel, weighted
 * by cfs_rq->runnable_weight): aged before avg, from avg's clock, so both cross the same
 * periods. */
static inline void update_runnable_load_avg(struct ts_cfs_rq *cfs, uint64_t now)
{
	struct ts_sched_avg sa = {.last_update_time = cfs->avg.last_update_time,
				  .period_contrib = cfs->avg.period_contrib,
				  .load_sum = cfs->runnable_load_sum};
	if (pelt_update_load_sum(now, &sa, cfs->runnable_weight, 0, 0))
		cfs->runnable_load_avg = (unsigned long)(sa.load_sum / ts_pelt_divider(&sa));
	cfs->runnable_load_sum = sa.load_sum;
}

/* v5.4's se_runnable(): a task's runnable weight is its weight; a group entity's is
 * calc_group_runnable()'s, kept in the queue it owns. */
static inline unsigned long se_runnable_v5_4(const struct ts_sched_entity *se)
{
	return se->my_q ? se->my_q->owner_runnable_weight : se->load.weight;
}

/* v5.4's se->avg.runnable_load_avg: runnable x runnable_load_sum / divider, the entity's
 * runnable_load_sum being its load_sum (both accrue while it is queued); for a task, its
 * load_avg. */
static inline unsigned long se_runnable_load_avg(const struct ts_sched_entity *se,
						 unsigned long runnable)
{
	if (runnable == se->load.weight)
		return se->avg.load_avg;
	return (unsigned long)(runnable * se->avg.load_sum / ts_pelt_divider(&se->avg));
}

/* v5.4's enqueue_runnable_load_avg() / dequeue_runnable_load_avg(): a queued entity's
 * runnable load counts in its queue's. A queued entity's runnable weight changes only
 * between a dequeue and an enqueue of its runnable load (update_cfs_group() below), so the
 * dequeue takes off what the enqueue added, as the PELT averages allow. */
static inline void enqueue_runnable_load_avg(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	unsigned long runnable = se_runnable_v5_4(se);
	cfs->runnable_weight += runnable;
	cfs->runnable_load_avg += se_runnable_load_avg(se, runnable);
	cfs->runnable_load_sum += runnable * se->avg.load_sum;
}

static inline void dequeue_runnable_load_avg(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	unsigned long runnable = se_runnable_v5_4(se);
	unsigned long avg = se_runnable_load_avg(se, runnable);
	uint64_t sum = runnable * se->avg.load_sum;
	cfs->runnable_weight -= runnable;
	cfs->runnable_load_avg = cfs->runnable_load_avg > avg ? cfs->runnable_load_avg - avg : 0;
	cfs->runnable_load_sum = cfs->runnable_load_sum > sum ? cfs->runnable_load_sum - sum : 0;
}

/* v5.4's calc_group_runnable(): the group entity's shares scaled by the share of its
 * queue's load that is queued, max(runnable_load_avg, runnable_weight) over max(load_avg,
 * load.weight), held within [MIN_SHARES, shares]. */
static inline unsigned long calc_group_runnable(const struct ts_cfs_rq *gcfs, unsigned long shares)
{
	unsigned long load_avg =
		gcfs->avg.load_avg > gcfs->load.weight ? gcfs->avg.load_avg : gcfs->load.weight;
	unsigned long runnable = gcfs->runnable_load_avg > gcfs->runnable_weight
					 ? gcfs->runnable_load_avg
					 : gcfs->runnable_weight;
	runnable *= shares;
	if (load_avg)
		runnable /= load_avg;
	if (runnable < TS_MIN_SHARES)
		return TS_MIN_SHARES;
	return runnable < shares ? runnable : shares;
}

/* Whether se's load is in its queue's runnable load now: queued, under the v5.4 profile. */
static inline bool runnable_load_counted(const struct ts_sched *s, const struct ts_sched_entity *se)
{
	return __builtin_expect(ts_kernel_keeps_runnable_load(&s->kernel), 0) && se->on_rq;
}

/* update_cfs_rq_load_avg(): fold in the load of tasks that left while we were unlocked,
 * then age the queue's averages. Returns 1 if the load decayed or some was removed. */
static inline __attribute__((always_inline)) int update_cfs_rq_load_avg(struct ts_cfs_rq *cfs,
									uint64_t now)
{
	int decayed = 0;
	if (__builtin_expect(atomic_load_explicit(&cfs->removed->nr, memory_order_relaxed) != 0,
			     0)) {
		long prop;
		if (ts_apply_removed_load(&cfs->avg, cfs->removed, &prop)) {
			add_tg_cfs_propagate(cfs, prop);
			decayed = 1;
		}
	}
	if (__builtin_expect((cfs->runnable_weight | cfs->runnable_load_sum) != 0, 0))
		update_runnable_load_avg(cfs, now);
	decayed |= pelt_update_load_avg_cfs_rq(now, &cfs->avg, cfs->load.weight, cfs->h_nr_runnable,
					       cfs->curr != NULL);
	return decayed;
}

/* propagate_entity_load_avg(): a group entity takes over what changed in its group
 * cfs_rq (attach/detach/removal below) and passes it one level up. */
static inline __attribute__((always_inline)) int
propagate_entity_load_avg(struct ts_sched_entity *se)
{
	struct ts_cfs_rq *gcfs = se->my_q;
	if (!gcfs || !gcfs->propagate)
		return 0;
	gcfs->propagate = 0;
	struct ts_cfs_rq *cfs = se->cfs_rq;
	add_tg_cfs_propagate(cfs, gcfs->prop_runnable_sum);
	ts_update_tg_cfs_util(&cfs->avg, &se->avg, &gcfs->avg);
	ts_update_tg_cfs_runnable(&cfs->avg, &se->avg, &gcfs->avg);
	ts_update_tg_cfs_load(&cfs->avg, &se->avg, se->load.weight, &gcfs->avg, gcfs->load.weight,
			      &gcfs->prop_runnable_sum);
	return 1;
}

/* se_runnable(): a task's runnable is its on_rq (no delayed dequeue); a group entity's the
 * number of runnable tasks below it, as of se_update_runnable(). */
static inline unsigned long se_runnable(const struct ts_sched_entity *se)
{
	return entity_is_task(se) ? se->on_rq : se->runnable_weight;
}

static inline void se_update_runnable(struct ts_sched_entity *se)
{
	if (!entity_is_task(se))
		se->runnable_weight = se->my_q->h_nr_runnable;
}

static inline void attach_entity_load_avg(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	ts_attach_entity_load_avg(&cfs->avg, &se->avg, se->load.weight);
	add_tg_cfs_propagate(cfs, (long)se->avg.load_sum);
}

static inline void detach_entity_load_avg(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	ts_detach_entity_load_avg(&cfs->avg, &se->avg, se->load.weight);
	add_tg_cfs_propagate(cfs, -(long)se->avg.load_sum);
}

/* update_load_avg(cfs_rq, se, flags), with KIND = TASK_SE when the caller knows se is a
 * task (no group queue below it): the group-entity steps then compile away. */
enum { ANY_SE = 0, TASK_SE = 1 };

static inline __attribute__((always_inline)) void
update_load_avg_se(struct ts_sched *s, struct ts_cfs_rq *cfs, struct ts_sched_entity *se,
		   uint64_t now, int flags, int kind)
{
	if (se->avg.last_update_time && !(flags & SKIP_AGE_LOAD))
		pelt_update_load_avg_se(now, &se->avg, se->load.weight, se->on_rq,
					kind == TASK_SE ? se->on_rq : se_runnable(se),
					cfs->curr == se);
	int decayed = update_cfs_rq_load_avg(cfs, now);
	if (kind != TASK_SE) {
		/* v5.4's update_tg_cfs_runnable() passes a queued group entity's new load
		 * into its queue's runnable load too */
		bool counted = runnable_load_counted(s, se);
		if (counted)
			dequeue_runnable_load_avg(cfs, se);
		decayed |= propagate_entity_load_avg(se);
		if (counted)
			enqueue_runnable_load_avg(cfs, se);
	}
	if (!se->avg.last_update_time && (flags & DO_ATTACH)) {
		/* enqueue of an entity that migrated (or is new): join this queue's sums */
		attach_entity_load_avg(cfs, se);
		update_tg_load_avg(s, cfs, now);
	} else if (flags & DO_DETACH) {
		detach_entity_load_avg(cfs, se);
		update_tg_load_avg(s, cfs, now);
	} else if (decayed && (flags & UPDATE_TG)) {
		update_tg_load_avg(s, cfs, now);
	}
}

/* update_load_avg(cfs_rq, se, flags). */
static inline __attribute__((always_inline)) void update_load_avg(struct ts_sched *s,
								  struct ts_cfs_rq *cfs,
								  struct ts_sched_entity *se,
								  uint64_t now, int flags)
{
	update_load_avg_se(s, cfs, se, now, flags, ANY_SE);
}

/* update_cfs_group(se): a group entity's weight from its group's shares. */
static inline void update_cfs_group(struct ts_sched *s, struct ts_sched_entity *se, uint64_t now)
{
	struct ts_cfs_rq *gcfs = se->my_q;
	if (!gcfs)
		return;
	/* v5.4's reweight_entity() takes a queued entity's runnable load out and puts it
	 * back at the new weight */
	bool counted = runnable_load_counted(s, se);
	if (counted)
		dequeue_runnable_load_avg(se->cfs_rq, se);
	ts_update_cfs_group(gcfs->tg, gcfs->cpu, now, s->features);
	if (__builtin_expect(ts_kernel_keeps_runnable_load(&s->kernel), 0))
		gcfs->owner_runnable_weight = calc_group_runnable(gcfs, se->load.weight);
	if (counted)
		enqueue_runnable_load_avg(se->cfs_rq, se);
}

/* set_task_rq(): p's entity points at its group's queue and entity on cpu. */
static inline __attribute__((always_inline)) void set_task_rq(struct ts_sched *s, struct ts_task *p,
							      int cpu)
{
	struct ts_task_group *tg = task_group_of(s, p);
	struct ts_sched_entity *se = &p->se;
	struct ts_cfs_rq *cfs = se->cfs_rq;
	if (cfs && cfs->cpu == cpu && cfs->tg == tg)
		return;
	if (tg == s->root_tg) {
		se->cfs_rq = &s->rq[cpu].cfs;
		se->parent = NULL;
		se->depth = 0;
	} else {
		ts_tg_set_task_rq(tg, cpu, se);
	}
}

/* rq_group.c: __update_blocked_fair(), the blocked-load decay of rq's group queues. */
void ts_update_blocked_fair(struct ts_sched *s, struct ts_rq *rq, uint64_t now);

#endif
