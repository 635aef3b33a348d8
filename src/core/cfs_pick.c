/* The CFS pick and its preemption rules, after kernel/sched/fair.c as of v6.1.55:
 * wakeup_gran() / wakeup_preempt_entity(), pick_next_entity() with the skip, next and last
 * buddies, check_preempt_tick(), check_preempt_wakeup() and yield_task_fair(). */
#include "eevdf_internal.h"
#include "toposched/cfs.h"

static inline bool entity_before_cfs(const struct ts_sched_entity *a,
				     const struct ts_sched_entity *b)
{
	return vdiff(a->vruntime, b->vruntime) < 0;
}

/* rb_next(): the in-order successor in the tree. */
static struct ts_sched_entity *next_entity(const struct ts_sched_entity *se)
{
	const struct ts_rb_node *n = &se->run_node;

	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return node_se(n);
	}
	while (n->parent && n == n->parent->right)
		n = n->parent;
	return node_se(n->parent);
}

uint64_t ts_wakeup_gran(const struct ts_cfs_params *p, struct ts_sched_entity *se)
{
	/* In se's virtual time, not curr's: a light wakee gets a larger gran, so light
	 * tasks are preempted more easily and preempt less easily. */
	return ts_calc_delta_fair(p->sched_wakeup_granularity, se);
}

int ts_cfs_wakeup_preempt_entity(struct ts_sched_entity *curr, struct ts_sched_entity *se)
{
	int64_t gran, d = vdiff(curr->vruntime, se->vruntime);

	if (d <= 0)
		return -1;
	gran = (int64_t)ts_wakeup_gran(curr->cfs_rq->cfs_params, se);
	if (d > gran)
		return 1;
	return 0;
}

struct ts_sched_entity *ts_cfs_pick_next_entity(struct ts_cfs_rq *cfs)
{
	struct ts_sched_entity *left = ts_pick_first_entity(cfs);
	struct ts_sched_entity *curr = cfs->curr;
	struct ts_sched_entity *se;

	if (curr && !curr->on_rq)
		curr = NULL;
	/* curr is not in the tree: is it left of the leftmost? */
	if (!left || (curr && entity_before_cfs(curr, left)))
		left = curr;
	se = left; /* ideally we run the leftmost entity */
	if (!se)
		return NULL;
	/* Avoid running the skip buddy, if running something else can be done without
	 * getting too unfair. */
	if (cfs->skip && cfs->skip == se) {
		struct ts_sched_entity *second;

		if (se == curr) {
			second = ts_pick_first_entity(cfs);
		} else {
			second = next_entity(se);
			if (!second || (curr && entity_before_cfs(curr, second)))
				second = curr;
		}
		if (second && ts_cfs_wakeup_preempt_entity(second, left) < 1)
			se = second;
	}
	if (cfs->next && ts_cfs_wakeup_preempt_entity(cfs->next, left) < 1) {
		/* Someone really wants this to run. If it's not unfair, run it. */
		se = cfs->next;
	} else if (cfs->last && ts_cfs_wakeup_preempt_entity(cfs->last, left) < 1) {
		/* Prefer last buddy, try to return the CPU to a preempted task. */
		se = cfs->last;
	}
	return se;
}

bool ts_check_preempt_tick(struct ts_cfs_rq *cfs, struct ts_sched_entity *curr)
{
	uint64_t ideal_runtime = ts_sched_slice(cfs, curr);
	uint64_t delta_exec = curr->sum_exec_runtime - curr->prev_sum_exec_runtime;
	const struct ts_sched_entity *se;
	int64_t delta;

	if (delta_exec > ideal_runtime) {
		cfs->resched = true;
		/* curr ran long enough: it must not be re-elected by buddy favours */
		ts_clear_buddies(cfs, curr);
		return true;
	}
	/* A task that missed wake-up preemption by a narrow margin does not wait a whole
	 * slice; this also bounds buddy-induced latencies under load. */
	if (delta_exec < cfs->cfs_params->sched_min_granularity)
		return false;
	se = ts_pick_first_entity(cfs);
	if (!se)
		return false;
	delta = vdiff(curr->vruntime, se->vruntime);
	if (delta < 0)
		return false;
	if ((uint64_t)delta > ideal_runtime) {
		cfs->resched = true;
		return true;
	}
	return false;
}

void ts_set_last_buddy(struct ts_sched_entity *se)
{
	for (; se; se = se->parent) {
		if (!se->on_rq)
			return;
		se->cfs_rq->last = se;
	}
}

void ts_set_skip_buddy(struct ts_sched_entity *se)
{
	for (; se; se = se->parent)
		se->cfs_rq->skip = se;
}

bool ts_cfs_check_preempt_wakeup(struct ts_sched_entity *curr, struct ts_sched_entity *pse,
				 uint64_t now, int wake_flags, bool resched_pending,
				 struct ts_features f)
{
	struct ts_sched_entity *se = curr;
	const struct ts_cfs_params *p = curr->cfs_rq->cfs_params;
	/* task_cfs_rq(curr)->nr_running >= sched_nr_latency */
	bool scale = curr->cfs_rq->nr_queued >= p->sched_nr_latency;
	bool next_buddy_marked = false;

	if (se == pse)
		return false;
	if (ts_features_has(f, TS_FEAT_NEXT_BUDDY) && scale && !(wake_flags & TS_WF_FORK)) {
		ts_set_next_buddy(pse->cfs_rq, pse);
		next_buddy_marked = true;
	}
	/* test_tsk_need_resched(curr): also keeps a false LAST_BUDDY from being nominated */
	if (resched_pending)
		return false;
	/* SCHED_IDLE and SCHED_BATCH are not modelled: every task is SCHED_NORMAL */
	if (!ts_features_has(f, TS_FEAT_WAKEUP_PREEMPTION))
		return false;
	ts_find_matching_se(&se, &pse);
	ts_cfs_update_curr(se->cfs_rq, now);
	if (ts_cfs_wakeup_preempt_entity(se, pse) != 1)
		return false;
	/* Bias pick_next to pick the entity that is triggering this preemption. */
	if (!next_buddy_marked)
		ts_set_next_buddy(pse->cfs_rq, pse);
	/* Only set the backward buddy when the current task is still queued. */
	if (se->on_rq && p->last_buddy && scale && !se->my_q)
		ts_set_last_buddy(se);
	return true;
}

void ts_cfs_yield_task(struct ts_cfs_rq *cfs, uint64_t now)
{
	struct ts_sched_entity *se = cfs->curr;

	if (!se)
		return;
	ts_clear_buddies(cfs, se);
	/* SCHED_BATCH is not modelled: update_curr() always */
	ts_cfs_update_curr(cfs, now);
	ts_set_skip_buddy(se);
}
