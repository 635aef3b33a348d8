/* Run-queue operations: activation (ttwu_do_activate), deactivation, __schedule(), the
 * tick, yield and migration, with PELT and EEVDF called in the kernel's order (see the
 * call-order comment in eevdf.h), over the task-group hierarchy of kernel/sched/fair.c
 * (v6.12, CONFIG_FAIR_GROUP_SCHED): enqueue_task_fair(), dequeue_entities(),
 * pick_next_task_fair(), put_prev_task_fair(), set_next_task_fair(), task_tick_fair(),
 * yield_task_fair(), check_preempt_wakeup_fair(), migrate_task_rq_fair(),
 * task_change_group_fair() and __update_blocked_fair(). A task outside any group is one
 * level deep (se->parent NULL): every walk is then the flat code path. Every function
 * here runs with the rq lock held, unless it says otherwise. */
#include "toposched/sched.h"
#include "toposched/ttwu.h"

#include <errno.h>
#include <stdlib.h>

/* update_avg(): avg += (sample - avg) / 8, the difference signed as in the kernel's s64. */
static inline void update_avg(uint64_t *avg, uint64_t sample)
{
	int64_t diff = (int64_t)(sample - *avg);
	*avg += (uint64_t)(diff / 8);
}

/* update_load_avg() flags (fair.c). */
enum { UPDATE_TG = 0x1, SKIP_AGE_LOAD = 0x2, DO_ATTACH = 0x4, DO_DETACH = 0x8 };

static inline uint64_t rq_clock(struct ts_sched *s, struct ts_rq *rq)
{
	uint64_t now = s->ops.clock(s->host);
	if (now > rq->clock)
		rq->clock = now;
	return rq->clock;
}

void ts_rq_publish(struct ts_sched *s, struct ts_rq *rq)
{
	(void)s;
	atomic_store_explicit(&rq->ro.nr_running, rq->nr_running, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.idle, rq->curr == NULL, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.load_avg, rq->cfs.avg.load_avg, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.runnable_avg, rq->cfs.avg.runnable_avg, memory_order_relaxed);
	atomic_store_explicit(&rq->ro.util_avg, rq->cfs.avg.util_avg, memory_order_relaxed);
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

/* resched_curr(rq) from any level: a group cfs_rq's request becomes the CPU's (the root
 * cfs_rq's flag, which the tick and __schedule() read and clear). */
static inline void fold_resched(struct ts_rq *rq, struct ts_cfs_rq *cfs)
{
	if (__builtin_expect(cfs->resched, 0) && cfs != &rq->cfs) {
		cfs->resched = false;
		rq->cfs.resched = true;
	}
}

/* ---- PELT over the hierarchy --------------------------------------------------------------- */

static inline void add_tg_cfs_propagate(struct ts_cfs_rq *cfs, long runnable_sum)
{
	cfs->propagate = 1;
	cfs->prop_runnable_sum += runnable_sum;
}

/* list_add_leaf_cfs_rq(): this group cfs_rq has load to keep decaying. */
static inline void list_add_leaf_cfs_rq(struct ts_cfs_rq *cfs)
{
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
	decayed |= ts_update_load_avg_cfs_rq(now, &cfs->avg, cfs->load.weight, cfs->h_nr_runnable,
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

static void attach_entity_load_avg(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	ts_attach_entity_load_avg(&cfs->avg, &se->avg, se->load.weight);
	add_tg_cfs_propagate(cfs, (long)se->avg.load_sum);
}

static void detach_entity_load_avg(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
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
		ts_update_load_avg_se(now, &se->avg, se->load.weight, se->on_rq,
				      kind == TASK_SE ? se->on_rq : se_runnable(se),
				      cfs->curr == se);
	int decayed = update_cfs_rq_load_avg(cfs, now);
	if (kind != TASK_SE)
		decayed |= propagate_entity_load_avg(se);
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
	if (gcfs)
		ts_update_cfs_group(gcfs->tg, gcfs->cpu, now, s->features);
}

/* propagate_entity_cfs_rq(): after an attach/detach outside enqueue/dequeue, bring every
 * level above se up to date so that the change reaches the root. */
static void propagate_entity_cfs_rq(struct ts_sched *s, struct ts_sched_entity *se, uint64_t now)
{
	list_add_leaf_cfs_rq(se->cfs_rq);
	for (se = se->parent; se; se = se->parent) {
		update_load_avg(s, se->cfs_rq, se, now, UPDATE_TG);
		list_add_leaf_cfs_rq(se->cfs_rq);
	}
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

/* The queue p's load sits on while it is not queued: its group's on p->cpu. */
static struct ts_cfs_rq *task_cfs_rq_now(struct ts_sched *s, struct ts_task *p)
{
	struct ts_task_group *tg = task_group_of(s, p);
	struct ts_cfs_rq *cfs = p->se.cfs_rq;
	if (cfs && cfs->cpu == p->cpu && cfs->tg == tg)
		return cfs;
	return tg == s->root_tg ? &s->rq[p->cpu].cfs : ts_tg_cfs_rq(tg, p->cpu);
}

/* ---- blocked load (__update_blocked_fair) -------------------------------------------------- */

static inline bool load_avg_is_decayed(const struct ts_sched_avg *sa)
{
	return !sa->load_sum && !sa->util_sum && !sa->runnable_sum;
}

/* skip_blocked_update(): nothing left to decay or propagate in this group entity. */
static inline bool skip_blocked_update(const struct ts_sched_entity *se)
{
	if (se->avg.load_avg || se->avg.util_avg)
		return false;
	return !se->my_q->propagate;
}

/* One group and its subtree on rq's CPU, children first (the leaf list's bottom-up order).
 * Returns whether the group's cfs_rq stays on the leaf list. */
static bool update_blocked_group(struct ts_sched *s, struct ts_rq *rq, struct ts_task_group *tg,
				 uint64_t now)
{
	bool child_on_list = false;
	for (struct ts_task_group *c = tg->first_child; c; c = c->next_sibling)
		child_on_list |= update_blocked_group(s, rq, c, now);
	struct ts_tg_cpu *tc = ts_tg_pcpu(tg, rq->cpu);
	struct ts_cfs_rq *cfs = &tc->cfs;
	if (!cfs->on_list)
		return false;
	ts_tg_note_ro_read(tg, rq->cpu); /* se = cfs_rq->tg->se[cpu] */
	if (update_cfs_rq_load_avg(cfs, now))
		update_tg_load_avg(s, cfs, now);
	/* Propagate pending load changes to the parent, if any. */
	struct ts_sched_entity *se = &tc->se;
	if (!skip_blocked_update(se))
		update_load_avg(s, se->cfs_rq, se, now, UPDATE_TG);
	/* cfs_rq_is_decayed(): don't let fully decayed cfs_rqs linger on the list. */
	if (!cfs->load.weight && load_avg_is_decayed(&cfs->avg) && !child_on_list &&
	    !tc->tg_load_avg_contrib)
		cfs->on_list = false;
	return cfs->on_list;
}

static void update_blocked_fair(struct ts_sched *s, struct ts_rq *rq, uint64_t now)
{
	for (struct ts_task_group *c = s->root_tg->first_child; c; c = c->next_sibling)
		update_blocked_group(s, rq, c, now);
}

void ts_update_rq_load(struct ts_sched *s, struct ts_rq *rq, uint64_t now)
{
	struct ts_task *curr = rq->curr;
	if (curr)
		update_load_avg(s, curr->se.cfs_rq, &curr->se, now, 0);
	update_blocked_fair(s, rq, now);
	if (!curr || curr->se.cfs_rq != &rq->cfs)
		update_cfs_rq_load_avg(&rq->cfs, now);
	rq->last_blocked_load_update = now;
}

/* ---- per-level entity operations ----------------------------------------------------------- */

static inline __attribute__((always_inline)) void
enqueue_entity(struct ts_sched *s, struct ts_rq *rq, struct ts_cfs_rq *cfs,
	       struct ts_sched_entity *se, uint64_t now, int flags, int kind)
{
	ts_update_curr(cfs, now, s->features);
	update_load_avg_se(s, cfs, se, now, UPDATE_TG | DO_ATTACH, kind);
	if (kind != TASK_SE) {
		se_update_runnable(se);
		/* The group entity's new weight before it is placed. */
		update_cfs_group(s, se, now);
	}
	ts_enqueue_entity(cfs, se, now, flags, s->features);
	if (cfs->nr_queued == 1 && cfs != &rq->cfs)
		list_add_leaf_cfs_rq(cfs);
	fold_resched(rq, cfs);
}

static inline __attribute__((always_inline)) void
dequeue_entity(struct ts_sched *s, struct ts_rq *rq, struct ts_cfs_rq *cfs,
	       struct ts_sched_entity *se, uint64_t now, int flags, bool migrating, int kind)
{
	ts_update_curr(cfs, now, s->features);
	int action = UPDATE_TG;
	if (migrating && kind == TASK_SE)
		action |= DO_DETACH;
	update_load_avg_se(s, cfs, se, now, action, kind);
	if (kind != TASK_SE)
		se_update_runnable(se);
	ts_dequeue_entity(cfs, se, now, flags, s->features);
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
	ts_set_next_entity(cfs, se, now);
}

static inline __attribute__((always_inline)) void
put_prev_entity(struct ts_sched *s, struct ts_rq *rq, struct ts_cfs_rq *cfs,
		struct ts_sched_entity *prev, uint64_t now)
{
	/* still on the runqueue: charge it; PELT while it still counts as running */
	if (prev->on_rq) {
		ts_update_curr(cfs, now, s->features);
		update_load_avg(s, cfs, prev, now, 0);
	}
	ts_put_prev_entity(cfs, prev, now, s->features);
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

/* enqueue_task_fair(): p's entity, then (in a group) the levels above. */
static void enqueue_task_fair(struct ts_sched *s, struct ts_rq *rq, struct ts_task *p, uint64_t now,
			      int flags)
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
	ts_numa_account_enqueue(s, p, rq->cpu); /* account_entity_enqueue() */
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

/* dequeue_entities(): p's entity, then (in a group) the levels above. */
static void dequeue_task_fair(struct ts_sched *s, struct ts_rq *rq, struct ts_task *p, uint64_t now,
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
	ts_numa_account_dequeue(s, p); /* account_entity_dequeue() */
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
			ts_update_curr(cfs, now, s->features);
			fold_resched(rq, cfs);
		}
		se = ts_pick_next_entity(cfs, s->features);
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
 * scheduled exactly like a root task of the same weight. */
static void put_prev_set_next(struct ts_sched *s, struct ts_rq *rq, struct ts_task *prev,
			      struct ts_task *next, uint64_t now)
{
	struct ts_sched_entity *se = &next->se, *pse = &prev->se;
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

/* find_matching_se(): walk both up to siblings of a common parent. */
static inline void find_matching_se(struct ts_sched_entity **se, struct ts_sched_entity **pse)
{
	if ((*se)->cfs_rq == (*pse)->cfs_rq) /* siblings already (always for root tasks) */
		return;
	int se_depth = (*se)->depth, pse_depth = (*pse)->depth;
	while (se_depth > pse_depth) {
		se_depth--;
		*se = (*se)->parent;
	}
	while (pse_depth > se_depth) {
		pse_depth--;
		*pse = (*pse)->parent;
	}
	while ((*se)->cfs_rq != (*pse)->cfs_rq) {
		*se = (*se)->parent;
		*pse = (*pse)->parent;
	}
}

/* wakeup_preempt(): an idle CPU always reschedules; else check_preempt_wakeup_fair(). */
static inline __attribute__((always_inline)) bool
preempt_on(struct ts_sched *s, struct ts_rq *rq, struct ts_task *p, uint64_t now, int wake_flags)
{
	struct ts_task *curr = rq->curr;
	bool resched = false;
	if (!curr) {
		resched = true;
	} else if (curr != p) {
		struct ts_sched_entity *se = &curr->se, *pse = &p->se;
		if (ts_features_has(s->features, TS_FEAT_NEXT_BUDDY) && !(wake_flags & TS_WF_FORK))
			ts_set_next_buddy(pse->cfs_rq, pse);
		/* test_tsk_need_resched(curr): a reschedule is already on its way. */
		if (!rq->cfs.resched && ts_features_has(s->features, TS_FEAT_WAKEUP_PREEMPTION)) {
			find_matching_se(&se, &pse);
			struct ts_cfs_rq *cfs = se->cfs_rq;
			resched = ts_wakeup_preempt_entity(cfs, pse, now, s->features);
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
	if (se->avg.last_update_time) {
		struct ts_cfs_rq *old = task_cfs_rq_now(s, p);
		/* sync_entity_load_avg(): decay to now; one clock serves every rq here. */
		ts_update_load_avg_blocked_se(now, &se->avg, se->load.weight);
		ts_remove_entity_load_avg(old->removed, &se->avg);
	}
	se->avg.last_update_time = 0; /* attach on the new queue */
	se->exec_start = 0;	      /* no longer cache hot */
	set_task_cpu(p, new_cpu);
	p->nr_migrations++;
	ts_stat_inc(&s->rq[new_cpu].stats.migrations);
}

bool ts_activate_task(struct ts_sched *s, int cpu, struct ts_task *p, int wake_flags)
{
	struct ts_rq *rq = &s->rq[cpu];
	uint64_t now = rq_clock(s, rq);
	int flags = TS_ENQUEUE_WAKEUP;
	if (p->state == TS_TASK_NEW)
		flags = TS_ENQUEUE_INITIAL;
	if (p->cpu != cpu) {
		migrate_task_rq(s, p, cpu, now);
		flags |= TS_ENQUEUE_MIGRATED;
		p->nr_wakeups_migrate += p->state != TS_TASK_NEW;
	}
	set_task_rq(s, p, cpu);
	enqueue_task_fair(s, rq, p, now, flags);
	/* ttwu_do_activate(): the idle period that just ended feeds avg_idle (newidle
	 * balancing's gate) and SIS_PROP's wake_avg_idle. */
	if (rq->idle_stamp) {
		uint64_t delta = now - rq->idle_stamp, max = 2 * rq->max_idle_balance_cost;
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

static void count_wakeup(struct ts_sched *s, struct ts_task *p, int waker_cpu, int cpu,
			 const struct ts_placement *pl, int wake_flags)
{
	struct ts_cpu_stats *st = &s->rq[waker_cpu].stats;
	ts_stat_inc(&st->ttwu_count);
	ts_stat_inc(&st->wakeups_by_relation[ts_cpu_relation(s, waker_cpu, cpu)]);
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

struct ts_placement ts_try_to_wake_up(struct ts_sched *s, struct ts_task *p, int waker_cpu,
				      struct ts_task *waker, int wake_flags)
{
	wake_flags |= TS_WF_TTWU;
	struct ts_placement pl = ts_select_task_rq(s, p, waker_cpu, waker, wake_flags);
	pl.ttwu_queued = ts_ttwu_queue_cond(s, p, waker_cpu, pl.cpu); /* ttwu_queue_wakelist() */
	struct ts_rq *rq = &s->rq[pl.cpu];
	atomic_fetch_add_explicit(&rq->ro.ttwu_pending, 1, memory_order_relaxed);
	s->ops.rq_lock(s->host, pl.cpu);
	atomic_fetch_sub_explicit(&rq->ro.ttwu_pending, 1, memory_order_relaxed);
	ts_activate_task(s, pl.cpu, p, wake_flags);
	/* Under the target's lock: once it is dropped p may run, block and be woken again,
	 * and its nr_wakeups* would be written by two wakers at once. */
	count_wakeup(s, p, waker_cpu, pl.cpu, &pl, wake_flags);
	s->ops.rq_unlock(s->host, pl.cpu);
	return pl;
}

/* wake_up_new_task() once the CPU is chosen: under cpu's lock (taken here),
 * __set_task_cpu(), the PELT start of post_init_entity_util_avg() on the queue p joins,
 * activate_task(ENQUEUE_INITIAL) and wakeup_preempt(). */
static bool wake_up_new_task_at(struct ts_sched *s, struct ts_task *p, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	s->ops.rq_lock(s->host, cpu);
	if (p->cpu != cpu) { /* __set_task_cpu(): a new task has no load to move */
		set_task_cpu(p, cpu);
		p->recent_used_cpu = cpu;
	}
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

struct ts_placement ts_wake_up_new_task(struct ts_sched *s, struct ts_task *p, int parent_cpu,
					struct ts_task *parent)
{
	struct ts_placement pl = ts_select_task_rq(s, p, parent_cpu, parent, TS_WF_FORK);
	wake_up_new_task_at(s, p, pl.cpu);
	return pl;
}

bool ts_wake_up_new_task_on(struct ts_sched *s, struct ts_task *p, int cpu)
{
	return wake_up_new_task_at(s, p, cpu);
}

void ts_deactivate_curr(struct ts_sched *s, int cpu, enum ts_task_state new_state)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *p = rq->curr;
	if (!p || p->state != TS_TASK_RUNNABLE)
		return;
	uint64_t now = rq_clock(s, rq);
	dequeue_task_fair(s, rq, p, now, TS_DEQUEUE_SLEEP, false);
	ts_task_set_state(p, new_state);
	ts_rq_publish(s, rq);
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

struct ts_task *ts_schedule(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	uint64_t now = rq_clock(s, rq);
	struct ts_task *prev = rq->curr;
	/* prev is charged at its own level even when it just blocked; a queued prev is charged
	 * by the pick walk or by its put. */
	if (prev && !prev->se.on_rq) {
		ts_update_curr(prev->se.cfs_rq, now, s->features);
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
	if (next) {
		ts_rq_set_idle_stamp(rq, 0);
	} else {
		if (!rq->idle_stamp)
			ts_rq_set_idle_stamp(rq, now);
		update_cfs_rq_load_avg(&rq->cfs, now);
	}
	ts_rq_publish(s, rq);
	if (!next)
		update_idle_core(s, cpu);
	return next;
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
			ts_update_curr(cfs, now, s->features);
			update_load_avg(s, cfs, se, now, UPDATE_TG);
			update_cfs_group(s, se, now);
			fold_resched(rq, cfs);
		}
		if (rq->cfs.resched && rq->nr_running > 1)
			s->ops.resched_cpu(s->host, cpu);
	} else {
		/* blocked-load decay of an idle CPU */
		if (has_groups)
			update_blocked_fair(s, rq, now);
		update_cfs_rq_load_avg(&rq->cfs, now);
	}
	rq->last_blocked_load_update = now;
	bool balance = now >= rq->next_balance;
	/* sched_balance_softirq(): the blocked averages are brought up to date before the
	 * periodic balancing the host now runs. */
	if (balance && has_groups && rq->curr)
		update_blocked_fair(s, rq, now);
	ts_rq_publish(s, rq);
	return balance;
}

void ts_yield_task(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *p = rq->curr;
	if (!p || rq->nr_running <= 1)
		return;
	uint64_t now = rq_clock(s, rq);
	struct ts_cfs_rq *cfs = p->se.cfs_rq;
	ts_clear_buddies(cfs, &p->se);
	ts_update_curr(cfs, now, s->features);
	fold_resched(rq, cfs);
	/* yield_task_fair(): give up the rest of this request */
	p->se.deadline += ts_calc_delta_fair(p->se.slice, &p->se);
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

/* ---- task groups ----------------------------------------------------------------------------- */

int ts_task_set_group(struct ts_sched *s, struct ts_task *p, struct ts_task_group *tg)
{
	if (!tg)
		tg = s->root_tg;
	if (tg->root != s->root_tg)
		return -EINVAL;
	if (p->state != TS_TASK_NEW && p->state != TS_TASK_SLEEPING)
		return -EBUSY;
	struct ts_task_group *want = tg == s->root_tg ? NULL : tg;
	if (task_group_of(s, p) == tg) {
		set_task_tg(p, want);
		return 0;
	}
	if (p->state == TS_TASK_NEW) {
		/* Not attached anywhere yet: set_task_rq() happens at its first enqueue. */
		set_task_tg(p, want);
		return 0;
	}
	/* task_change_group_fair() of a sleeping task, under its rq's lock. */
	int cpu = p->cpu;
	struct ts_rq *rq = &s->rq[cpu];
	s->ops.rq_lock(s->host, cpu);
	uint64_t now = rq_clock(s, rq);
	struct ts_sched_entity *se = &p->se;
	/* detach_task_cfs_rq(): catch up with the old queue and take our load out of it */
	set_task_rq(s, p, cpu);
	if (se->avg.last_update_time) {
		struct ts_cfs_rq *old = se->cfs_rq;
		update_load_avg(s, old, se, now, 0);
		detach_entity_load_avg(old, se);
		update_tg_load_avg(s, old, now);
		propagate_entity_cfs_rq(s, se, now);
	}
	/* set_task_rq() on the new group, as if migrated, then attach_task_cfs_rq() */
	set_task_tg(p, want);
	se->avg.last_update_time = 0;
	set_task_rq(s, p, cpu);
	struct ts_cfs_rq *cfs = se->cfs_rq;
	update_load_avg(s, cfs, se, now, 0); /* ATTACH_AGE_LOAD: nothing to age, not attached */
	attach_entity_load_avg(cfs, se);
	update_tg_load_avg(s, cfs, now);
	propagate_entity_cfs_rq(s, se, now);
	ts_rq_publish(s, rq);
	s->ops.rq_unlock(s->host, cpu);
	return 0;
}

/* Lock-free (wake_affine_weight(), task_numa_compare()) or with some rq lock held (load
 * balancing): every field of p read here is loaded with a relaxed atomic (READ_ONCE). */
unsigned long ts_task_h_load_of(struct ts_sched *s, struct ts_task *p)
{
	uint64_t jiffies = s->ops.clock(s->host) / s->tick_nsec;
	int cpu = __atomic_load_n(&p->cpu, __ATOMIC_RELAXED);
	struct ts_task_group *tg = __atomic_load_n(&p->tg, __ATOMIC_RELAXED);
	return ts_task_h_load(tg ? tg : s->root_tg, cpu, ts_sa_load_avg_lockfree(&p->se.avg),
			      jiffies);
}
