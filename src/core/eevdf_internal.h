/* What the core's EEVDF files share, privately: eevdf.c (the run queue: virtual time,
 * placement, pick, reweight), eevdf_rbtree.c (the augmented red-black tree of queued
 * entities) and eevdf_check.c (the invariant checker). The entity operations of every
 * wake-up and switch (enqueue, dequeue, pick, set_next, put_prev, wake-up preemption) are
 * here, inline, for rq.c's walks: a call into eevdf.c was ~20 instructions each. */
#ifndef TOPOSCHED_CORE_EEVDF_INTERNAL_H
#define TOPOSCHED_CORE_EEVDF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "toposched/cfs.h"
#include "toposched/eevdf.h"

/* Signed arithmetic that the kernel lets wrap (it builds with -fno-strict-overflow) is done
 * in uint64_t and converted back, so that it is defined here too. */
static inline int64_t s64_mul(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

static inline int64_t s64_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t s64_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static inline int64_t vdiff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

static inline bool entity_before(const struct ts_sched_entity *a, const struct ts_sched_entity *b)
{
	return vdiff(a->deadline, b->deadline) < 0;
}

/* The tree's order: deadline (EEVDF) or vruntime (CFS); equal keys go to the right. */
static inline bool tree_before(const struct ts_rb_root_cached *t, const struct ts_sched_entity *a,
			       const struct ts_sched_entity *b)
{
	if (__builtin_expect(t->by_vruntime, 0))
		return vdiff(a->vruntime, b->vruntime) < 0;
	return entity_before(a, b);
}

static inline int64_t entity_key(const struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	return vdiff(se->vruntime, cfs->min_vruntime);
}

/* calc_delta_fair(), inline for a nice-0 entity (ts_calc_delta_fair()). */
static inline uint64_t calc_delta_fair(uint64_t delta, struct ts_sched_entity *se)
{
	if (se->load.weight != TS_NICE_0_LOAD)
		delta = ts_calc_delta(delta, TS_NICE_0_LOAD, &se->load);
	return delta;
}

/* __clear_buddies_{next,last,skip}(): up the hierarchy while each level's buddy is on our
 * path. The buddy is picked by its offset in struct ts_cfs_rq. */
void ts_clear_buddy_up(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se, size_t off);

/* clear_buddies() (ts_clear_buddies()), inline: every dequeue, pick and charge that ends a
 * slice clears; few find a buddy. */
static inline __attribute__((always_inline)) void clear_buddies(struct ts_cfs_rq *cfs,
								const struct ts_sched_entity *se)
{
	/* last and skip are only ever set by the CFS pick */
	if (__builtin_expect(cfs->last == se, 0))
		ts_clear_buddy_up(cfs, se, offsetof(struct ts_cfs_rq, last));
	if (cfs->next == se)
		ts_clear_buddy_up(cfs, se, offsetof(struct ts_cfs_rq, next));
	if (__builtin_expect(cfs->skip == se, 0))
		ts_clear_buddy_up(cfs, se, offsetof(struct ts_cfs_rq, skip));
}

/* node_se() of a node known to exist (the tree's own walks). */
static inline struct ts_sched_entity *node_se_nn(const struct ts_rb_node *n)
{
	return (struct ts_sched_entity *)((char *)n - offsetof(struct ts_sched_entity, run_node));
}

static inline struct ts_sched_entity *node_se(const struct ts_rb_node *n)
{
	return n ? (struct ts_sched_entity *)((char *)n -
					      offsetof(struct ts_sched_entity, run_node))
		 : NULL;
}

/* update_curr_se(): charge curr for now - exec_start, less the steal of that stretch;
 * returns what it charged (<= 0: nothing; a backwards clock step is ignored). Both picks'
 * update_curr() start so. The kernel charges rq_clock_task() deltas, a clock that
 * update_rq_clock_task() holds back by the steal time (CONFIG_PARAVIRT_TIME_ACCOUNTING);
 * here the wall clock's delta less the steal clock's is the same figure. */
static inline int64_t update_curr_se(const struct ts_cfs_rq *cfs, struct ts_sched_entity *curr,
				     uint64_t now)
{
	int64_t delta_exec = vdiff(now, curr->exec_start);

	if (delta_exec <= 0)
		return delta_exec;
	curr->exec_start = now;
	if (cfs->steal_clock) {
		uint64_t steal = *cfs->steal_clock - curr->exec_steal;
		curr->exec_steal = *cfs->steal_clock;
		if (steal >= (uint64_t)delta_exec)
			return 0;
		delta_exec -= (int64_t)steal;
	}
	curr->sum_exec_runtime += (uint64_t)delta_exec;
	return delta_exec;
}

/* What both picks' update_curr() start with: charge curr and advance its vruntime by
 * calc_delta_fair(). False when there was nothing to charge. */
static inline bool update_curr_vruntime(struct ts_cfs_rq *cfs, uint64_t now,
					struct ts_update_curr_result *r)
{
	struct ts_sched_entity *curr = cfs->curr;

	if (!curr)
		return false;
	r->delta_exec = update_curr_se(cfs, curr, now);
	if (r->delta_exec <= 0)
		return false;
	curr->vruntime += calc_delta_fair((uint64_t)r->delta_exec, curr);
	return true;
}

/* update_curr() for callers that ignore its result. With no curr, or no time since curr
 * was last charged (every call after the first at one clock reading: four of the six of a
 * channel hop), both picks' update_curr() change nothing, so the call is skipped. */
static inline __attribute__((always_inline)) void update_curr(struct ts_cfs_rq *cfs, uint64_t now,
							      struct ts_features f)
{
	const struct ts_sched_entity *curr = cfs->curr;

	if (!curr || vdiff(now, curr->exec_start) <= 0)
		return;
	ts_update_curr(cfs, now, f);
}

/* eevdf_rbtree.c: insert (ordered by deadline, ties to the right) and erase, keeping the
 * leftmost cache and the min_vruntime/min_slice augmentation. */
void ts_rb_insert_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se);
void ts_rb_erase_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se);
/* Recomputes the augmentation from n up to the root (an entity's slice changed in place). */
void ts_rb_augment_propagate(struct ts_rb_node *n);

/* ---- inline for the run queue's walks (rq.c); eevdf.c's ts_* entry points wrap them ---- */

static inline void avg_vruntime_add(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	unsigned long weight = se->load.weight;

	cfs->avg_vruntime =
		s64_add(cfs->avg_vruntime, s64_mul(entity_key(cfs, se), (int64_t)weight));
	cfs->avg_load += weight;
}

static inline void avg_vruntime_sub(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	unsigned long weight = se->load.weight;

	cfs->avg_vruntime =
		s64_sub(cfs->avg_vruntime, s64_mul(entity_key(cfs, se), (int64_t)weight));
	cfs->avg_load -= weight;
}

/* The sums with curr folded in, as avg_vruntime() and vruntime_eligible() both do. */
static inline void avg_with_curr(const struct ts_cfs_rq *cfs, int64_t *avg, long *load)
{
	const struct ts_sched_entity *curr = cfs->curr;

	*avg = cfs->avg_vruntime;
	*load = (long)cfs->avg_load;
	if (curr && curr->on_rq) {
		unsigned long weight = curr->load.weight;

		*avg = s64_add(*avg, s64_mul(entity_key(cfs, curr), (int64_t)weight));
		*load += (long)weight;
	}
}

/* ts_vruntime_eligible() */
static inline bool vruntime_eligible(const struct ts_cfs_rq *cfs, uint64_t vruntime)
{
	int64_t avg;
	long load;

	avg_with_curr(cfs, &avg, &load);
	return avg >= s64_mul(vdiff(vruntime, cfs->min_vruntime), load);
}

/* ts_entity_eligible() */
static inline bool entity_eligible(const struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	return vruntime_eligible(cfs, se->vruntime);
}

/* ts_pick_first_entity() */
static inline struct ts_sched_entity *pick_first_entity(const struct ts_cfs_rq *cfs)
{
	return node_se(cfs->tasks_timeline.leftmost);
}

static inline __attribute__((always_inline)) void __enqueue_entity(struct ts_cfs_rq *cfs,
								   struct ts_sched_entity *se)
{
	avg_vruntime_add(cfs, se);
	se->min_vruntime = se->vruntime;
	se->min_slice = se->slice;
	ts_rb_insert_entity(&cfs->tasks_timeline, se);
}

static inline void __dequeue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	ts_rb_erase_entity(&cfs->tasks_timeline, se);
	avg_vruntime_sub(cfs, se);
}

/* ---- slice protection (RUN_TO_PARITY, PREEMPT_SHORT) ---- */

static inline void set_protect_slice(struct ts_sched_entity *se)
{
	/* HACK (kernel's): stash the deadline at pick in vlag, unused until dequeue. */
	se->vlag = (int64_t)se->deadline;
}

/* ts_protect_slice() */
static inline bool protect_slice(const struct ts_sched_entity *se)
{
	return se->vlag == (int64_t)se->deadline;
}

static inline void cancel_protect_slice(struct ts_sched_entity *se)
{
	if (protect_slice(se))
		se->vlag = (int64_t)(se->deadline + 1);
}

static inline bool do_preempt_short(const struct ts_cfs_rq *cfs, const struct ts_sched_entity *pse,
				    const struct ts_sched_entity *se, struct ts_features f)
{
	if (!ts_features_has(f, TS_FEAT_PREEMPT_SHORT))
		return false;
	if (pse->slice >= se->slice)
		return false;
	if (!entity_eligible(cfs, pse))
		return false;
	if (entity_before(pse, se))
		return true;
	if (!entity_eligible(cfs, se))
		return true;
	return false;
}

/* pick_eevdf(): inline into the two picks of every wake-up and schedule (ts_pick_eevdf()). */
static inline __attribute__((always_inline)) struct ts_sched_entity *
pick_eevdf(struct ts_cfs_rq *cfs, struct ts_features f)
{
	struct ts_rb_node *node = cfs->tasks_timeline.root;
	struct ts_sched_entity *se = pick_first_entity(cfs);
	struct ts_sched_entity *curr = cfs->curr;
	struct ts_sched_entity *best = NULL;

	/* One entity: skip the eligibility checks. */
	if (cfs->nr_queued == 1)
		return curr && curr->on_rq ? curr : se;

	if (curr && (!curr->on_rq || !entity_eligible(cfs, curr)))
		curr = NULL;

	/* Once selected, run a task until it either becomes non-eligible or until it gets a
	 * new slice (the deadline stash of set_next_entity()). */
	if (ts_features_has(f, TS_FEAT_RUN_TO_PARITY) && curr && protect_slice(curr))
		return curr;

	/* Pick the leftmost entity if it's eligible */
	if (se && entity_eligible(cfs, se)) {
		best = se;
		goto found;
	}

	/* Heap search for the EEVD entity */
	while (node) {
		struct ts_rb_node *left = node->left;

		/* Eligible entities in the left subtree are better: earlier deadlines. */
		if (left && vruntime_eligible(cfs, node_se(left)->min_vruntime)) {
			node = left;
			continue;
		}
		se = node_se(node);
		/* The left subtree is empty or has nothing eligible: this node is the one with
		 * the earliest deadline that might be. */
		if (entity_eligible(cfs, se)) {
			best = se;
			break;
		}
		node = node->right;
	}
found:
	if (!best || (curr && entity_before(curr, best)))
		best = curr;
	return best;
}

/* ts_pick_next_entity() */
static inline __attribute__((always_inline)) struct ts_sched_entity *
eevdf_pick_next_entity(struct ts_cfs_rq *cfs, struct ts_features f)
{
	if (__builtin_expect(cfs->pick == TS_FAIR_PICK_CFS, 0))
		return ts_cfs_pick_next_entity(cfs);
	/* Enabling NEXT_BUDDY will affect latency but not fairness. */
	if (ts_features_has(f, TS_FEAT_NEXT_BUDDY) && cfs->next && entity_eligible(cfs, cfs->next))
		return cfs->next;
	return pick_eevdf(cfs, f);
}

/* v' = v + d ==> avg_vruntime' = avg_vruntime - d * avg_load */
static inline void avg_vruntime_update(struct ts_cfs_rq *cfs, int64_t delta)
{
	cfs->avg_vruntime = s64_sub(cfs->avg_vruntime, s64_mul((int64_t)cfs->avg_load, delta));
}

/* ts_avg_vruntime() */
static inline uint64_t avg_vruntime(const struct ts_cfs_rq *cfs)
{
	int64_t avg;
	long load;

	avg_with_curr(cfs, &avg, &load);
	if (load) {
		/* sign flips effective floor / ceiling */
		if (avg < 0)
			avg -= (load - 1);
		avg = avg / load;
	}
	return cfs->min_vruntime + (uint64_t)avg;
}

/* entity_lag(): V - v, clamped to +-calc_delta_fair(max(2 * slice, TICK_NSEC)). */
static inline int64_t entity_lag(const struct ts_cfs_rq *cfs, uint64_t avruntime,
				 struct ts_sched_entity *se)
{
	int64_t lag, limit;
	uint64_t span = 2 * se->slice > cfs->tick_nsec ? 2 * se->slice : cfs->tick_nsec;

	lag = vdiff(avruntime, se->vruntime);
	limit = (int64_t)calc_delta_fair(span, se);
	return lag < -limit ? -limit : lag > limit ? limit : lag;
}

/* ts_update_entity_lag() */
static inline void update_entity_lag(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	se->vlag = entity_lag(cfs, avg_vruntime(cfs), se);
}

/* ts_account_entity_enqueue() */
static inline void account_entity_enqueue(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	cfs->load.weight += se->load.weight; /* update_load_add() */
	cfs->load.inv_weight = 0;
	cfs->nr_queued++;
}

/* ts_account_entity_dequeue() */
static inline void account_entity_dequeue(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	cfs->load.weight -= se->load.weight;
	cfs->load.inv_weight = 0;
	cfs->nr_queued--;
}

/* ts_entity_leave_queue() */
static inline void entity_leave_queue(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	if (se != cfs->curr)
		__dequeue_entity(cfs, se);
	se->on_rq = 0;
	account_entity_dequeue(cfs, se);
}

/* ts_pick_root_entity() */
static inline struct ts_sched_entity *pick_root_entity(const struct ts_cfs_rq *cfs)
{
	return node_se(cfs->tasks_timeline.root);
}

static inline uint64_t __update_min_vruntime(struct ts_cfs_rq *cfs, uint64_t vruntime)
{
	uint64_t min_vruntime = cfs->min_vruntime;
	int64_t delta = vdiff(vruntime, min_vruntime);

	if (delta > 0) {
		avg_vruntime_update(cfs, delta);
		min_vruntime = vruntime;
	}
	return min_vruntime;
}

/* ts_update_min_vruntime() */
static inline void update_min_vruntime(struct ts_cfs_rq *cfs)
{
	struct ts_sched_entity *se = pick_root_entity(cfs);
	struct ts_sched_entity *curr = cfs->curr;
	uint64_t vruntime = cfs->min_vruntime;

	if (curr) {
		if (curr->on_rq)
			vruntime = curr->vruntime;
		else
			curr = NULL;
	}
	if (se) {
		if (!curr)
			vruntime = se->min_vruntime;
		else if (vdiff(se->min_vruntime, vruntime) < 0)
			vruntime = se->min_vruntime;
	}
	/* ensure we never gain time by being placed backwards. Stored atomically: the CFS
	 * pick's migrate_task_rq_fair() reads it from the waking CPU (u64_u32_load()). */
	__atomic_store_n(&cfs->min_vruntime, __update_min_vruntime(cfs, vruntime),
			 __ATOMIC_RELAXED);
}

/* ts_place_entity(), inline into the enqueue of every wake-up. */
static inline __attribute__((always_inline)) void
place_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, int flags, struct ts_features f)
{
	uint64_t vslice, vruntime = avg_vruntime(cfs);
	int64_t lag = 0;

	if (!se->custom_slice)
		se->slice = cfs->base_slice;
	vslice = calc_delta_fair(se->slice, se);

	/* EEVDF placement strategy #1/#2: adding se moves V toward se by lag * w / (W + w);
	 * inflate the stored lag by (W + w) / W so that se's lag after joining is vlag. */
	if (ts_features_has(f, TS_FEAT_PLACE_LAG) && cfs->nr_queued && se->vlag) {
		const struct ts_sched_entity *curr = cfs->curr;
		unsigned long load;

		lag = se->vlag;
		load = cfs->avg_load;
		if (curr && curr->on_rq)
			load += curr->load.weight;
		lag = s64_mul(lag, (int64_t)(load + se->load.weight));
		if (!load)
			load = 1;
		lag /= (int64_t)load; /* div_s64(): truncates toward zero */
	}
	se->vruntime = vruntime - (uint64_t)lag;

	/* New tasks start with half a slice: the others are, on average, halfway through. */
	if (ts_features_has(f, TS_FEAT_PLACE_DEADLINE_INITIAL) && (flags & TS_ENQUEUE_INITIAL))
		vslice /= 2;
	/* EEVDF: vd_i = ve_i + r_i/w_i */
	se->deadline = se->vruntime + vslice;
}

/* ts_enqueue_entity() */
static inline __attribute__((always_inline)) void eevdf_enqueue_entity(struct ts_cfs_rq *cfs,
								       struct ts_sched_entity *se,
								       uint64_t now, int flags,
								       struct ts_features f)
{
	bool curr = cfs->curr == se;

	if (__builtin_expect(cfs->pick == TS_FAIR_PICK_CFS, 0)) {
		ts_cfs_enqueue_entity(cfs, se, now, flags);
		return;
	}
	/* If we're the current task, we must renormalise before calling update_curr(). */
	if (__builtin_expect(curr, 0))
		ts_place_entity(cfs, se, flags, f);
	update_curr(cfs, now, f);
	/* kernel: update_load_avg(UPDATE_TG | DO_ATTACH), update_cfs_group() -- host/PELT */
	if (!curr)
		place_entity(cfs, se, flags, f);
	account_entity_enqueue(cfs, se);
	/* Entity has migrated, no longer consider this task hot */
	if (flags & TS_ENQUEUE_MIGRATED)
		se->exec_start = 0;
	if (!curr)
		__enqueue_entity(cfs, se);
	se->on_rq = 1;
}

/* ts_dequeue_entity() */
static inline __attribute__((always_inline)) void eevdf_dequeue_entity(struct ts_cfs_rq *cfs,
								       struct ts_sched_entity *se,
								       uint64_t now, int flags,
								       struct ts_features f)
{
	if (__builtin_expect(cfs->pick == TS_FAIR_PICK_CFS, 0)) {
		ts_cfs_dequeue_entity(cfs, se, now, flags);
		return;
	}
	update_curr(cfs, now, f);
	/* kernel: update_load_avg(UPDATE_TG [| DO_DETACH]) -- host/PELT */
	clear_buddies(cfs, se);
	update_entity_lag(cfs, se);
	entity_leave_queue(cfs, se);
	/* Advance min_vruntime if se held it back, except for DEQUEUE_SAVE && !DEQUEUE_MOVE:
	 * se comes straight back and would be penalized. */
	if ((flags & (TS_DEQUEUE_SAVE | TS_DEQUEUE_MOVE)) != TS_DEQUEUE_SAVE)
		update_min_vruntime(cfs);
}

static inline bool did_preempt_short(const struct ts_cfs_rq *cfs,
				     const struct ts_sched_entity *curr, struct ts_features f)
{
	if (!ts_features_has(f, TS_FEAT_PREEMPT_SHORT))
		return false;
	if (protect_slice(curr))
		return false;
	return !entity_eligible(cfs, curr);
}

static inline bool update_deadline(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	if (vdiff(se->vruntime, se->deadline) < 0)
		return false;
	/* EEVDF: the slope is w_i (nice); the request r_i is the base slice. */
	if (!se->custom_slice)
		se->slice = cfs->base_slice;
	/* EEVDF: vd_i = ve_i + r_i / w_i */
	se->deadline = se->vruntime + calc_delta_fair(se->slice, se);
	return true;
}

/* ts_update_curr() */
static inline __attribute__((always_inline)) struct ts_update_curr_result
eevdf_update_curr(struct ts_cfs_rq *cfs, uint64_t now, struct ts_features f)
{
	struct ts_update_curr_result r = {0};
	struct ts_sched_entity *curr = cfs->curr;

	if (__builtin_expect(cfs->pick == TS_FAIR_PICK_CFS, 0))
		return ts_cfs_update_curr(cfs, now);
	if (!update_curr_vruntime(cfs, now, &r))
		return r;
	r.slice_expired = update_deadline(cfs, curr);
	update_min_vruntime(cfs);

	if (cfs->nr_queued == 1)
		return r;
	if (r.slice_expired || did_preempt_short(cfs, curr, f)) {
		r.resched = true;
		cfs->resched = true;
		clear_buddies(cfs, curr);
	}
	return r;
}

/* update_curr() of the walks that charge: the body inline (a wake-up's enqueue, a
 * block's dequeue, a yield). */
static inline __attribute__((always_inline)) void
update_curr_charge(struct ts_cfs_rq *cfs, uint64_t now, struct ts_features f)
{
	const struct ts_sched_entity *curr = cfs->curr;

	if (!curr || vdiff(now, curr->exec_start) <= 0)
		return;
	eevdf_update_curr(cfs, now, f);
}

/* ts_wakeup_preempt_entity() */
static inline __attribute__((always_inline)) bool
eevdf_wakeup_preempt_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *pse, uint64_t now,
			    struct ts_features f)
{
	struct ts_sched_entity *se = cfs->curr;

	if (!se || se == pse)
		return false;
	update_curr(cfs, now, f);
	if (__builtin_expect(cfs->pick == TS_FAIR_PICK_CFS, 0)) {
		if (ts_cfs_wakeup_preempt_entity(se, pse) != 1)
			return false;
		cfs->resched = true;
		return true;
	}
	/* A shorter-slice, eligible wakee overrides curr's slice protection (even if it turns
	 * out not to be the pick). */
	if (do_preempt_short(cfs, pse, se, f))
		cancel_protect_slice(se);
	if (pick_eevdf(cfs, f) == pse) {
		cfs->resched = true;
		return true;
	}
	return false;
}

/* ts_set_next_entity() */
static inline __attribute__((always_inline)) void
eevdf_set_next_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now)
{
	clear_buddies(cfs, se);
	/* 'current' is not kept within the tree. */
	if (se->on_rq) {
		__dequeue_entity(cfs, se);
		/* kernel: update_load_avg(cfs_rq, se, UPDATE_TG) -- host/PELT, before this;
		 * the CFS pick has no slice to protect */
		if (__builtin_expect(cfs->pick != TS_FAIR_PICK_CFS, 1))
			set_protect_slice(se);
	}
	se->exec_start = now; /* update_stats_curr_start() */
	se->exec_steal = cfs->steal_clock ? *cfs->steal_clock : 0;
	cfs->curr = se;
	se->prev_sum_exec_runtime = se->sum_exec_runtime;
}

/* ts_put_prev_entity() */
static inline __attribute__((always_inline)) void
eevdf_put_prev_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *prev, uint64_t now,
		      struct ts_features f)
{
	/* If still on the runqueue then deactivate_task() was not called and update_curr()
	 * has to be done. */
	if (prev->on_rq) {
		update_curr(cfs, now, f);
		/* Put 'current' back into the tree. */
		__enqueue_entity(cfs, prev);
		/* kernel: update_load_avg(cfs_rq, prev, 0) -- host/PELT */
	}
	cfs->curr = NULL;
}

/* eevdf.c, for the CFS pick (cfs_*.c): the tree with the avg_vruntime sums
 * (__enqueue_entity / __dequeue_entity), the queue's load and count
 * (account_entity_enqueue / _dequeue), and the CFS bodies of the dispatching entry points. */
void ts_enqueue_tree(struct ts_cfs_rq *cfs, struct ts_sched_entity *se);
void ts_avg_vruntime_add(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se);
void ts_avg_vruntime_sub(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se);
void ts_account_entity_enqueue(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se);
void ts_account_entity_dequeue(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se);
/* dequeue_entity()'s removal once the lag is saved: out of the tree (unless curr), off the
 * queue, its load and count. */
void ts_entity_leave_queue(struct ts_cfs_rq *cfs, struct ts_sched_entity *se);

#endif
