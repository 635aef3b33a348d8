/* What the core's EEVDF files share, privately: eevdf.c (the run queue: virtual time,
 * placement, pick, reweight), eevdf_rbtree.c (the augmented red-black tree of queued
 * entities) and eevdf_check.c (the invariant checker). */
#ifndef TOPOSCHED_CORE_EEVDF_INTERNAL_H
#define TOPOSCHED_CORE_EEVDF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

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
	curr->vruntime += ts_calc_delta_fair((uint64_t)r->delta_exec, curr);
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

/* eevdf_rbtree.c: insert (ordered by deadline, ties to the right) and erase, keeping the
 * leftmost cache and the min_vruntime/min_slice augmentation. */
void ts_rb_insert_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se);
void ts_rb_erase_entity(struct ts_rb_root_cached *t, struct ts_sched_entity *se);
/* Recomputes the augmentation from n up to the root (an entity's slice changed in place). */
void ts_rb_augment_propagate(struct ts_rb_node *n);

#endif
