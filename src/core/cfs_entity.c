/* The CFS pick's queue operations, after kernel/sched/fair.c as of v6.1.55: update_curr(),
 * place_entity() with sleeper credit and START_DEBIT, enqueue_entity() / dequeue_entity()
 * with the vruntime normalisation of migrating tasks, reweight_entity() and
 * task_fork_fair(). The tree and its sums are eevdf.c's (ordered by vruntime here). */
#include "eevdf_internal.h"
#include "toposched/cfs.h"

static inline uint64_t max_vruntime(uint64_t max_vruntime, uint64_t vruntime)
{
	return vdiff(vruntime, max_vruntime) > 0 ? vruntime : max_vruntime;
}

struct ts_update_curr_result ts_cfs_update_curr(struct ts_cfs_rq *cfs, uint64_t now)
{
	struct ts_update_curr_result r = {0};

	if (update_curr_vruntime(cfs, now, &r))
		ts_update_min_vruntime(cfs);
	return r;
}

/* entity_is_long_sleeper() (mainline v6.3; in the 6.1.55 source): a sleep so long that
 * vruntime - min_vruntime may have overflowed s64 (2^63 / NICE_0_LOAD ns, ~104 days). */
static bool entity_is_long_sleeper(const struct ts_sched_entity *se, uint64_t now)
{
	if (se->exec_start == 0)
		return false;
	if (now <= se->exec_start)
		return false;
	return now - se->exec_start > (1ULL << 63) / TS_NICE_0_LOAD;
}

void ts_cfs_place_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, bool initial,
			 uint64_t now)
{
	const struct ts_cfs_params *p = cfs->cfs_params;
	uint64_t vruntime = cfs->min_vruntime;

	/* The 'current' period is already promised to the current tasks; the new one's extra
	 * weight slows them down a little: place it in the slot that stays open at the end. */
	if (initial && p->start_debit)
		vruntime += ts_sched_vslice(cfs, se);
	/* sleeps up to a single latency don't count (SCHED_IDLE's min_granularity: not
	 * modelled) */
	if (!initial) {
		uint64_t thresh = p->sched_latency;

		/* Halve their sleep time's effect, to allow for a gentler effect of sleepers */
		if (p->gentle_fair_sleepers)
			thresh >>= 1;
		vruntime -= thresh;
	}
	/* never gain time by being placed backwards, unless the old vruntime is meaningless */
	if (entity_is_long_sleeper(se, now))
		se->vruntime = vruntime;
	else
		se->vruntime = max_vruntime(se->vruntime, vruntime);
}

void ts_cfs_enqueue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
			   int flags)
{
	bool renorm = !(flags & TS_ENQUEUE_WAKEUP) || (flags & TS_ENQUEUE_MIGRATED);
	bool curr = cfs->curr == se;

	/* If we're the current task, we must renormalise before calling update_curr(). */
	if (renorm && curr)
		se->vruntime += cfs->min_vruntime;
	ts_cfs_update_curr(cfs, now);
	/* Otherwise after, so that se is placed at the current moment in time. */
	if (renorm && !curr)
		se->vruntime += cfs->min_vruntime;
	/* kernel: update_load_avg(UPDATE_TG | DO_ATTACH), update_cfs_group() -- host/PELT */
	ts_account_entity_enqueue(cfs, se);
	if (flags & TS_ENQUEUE_WAKEUP)
		ts_cfs_place_entity(cfs, se, false, now);
	/* Entity has migrated, no longer consider this task hot */
	if (flags & TS_ENQUEUE_MIGRATED)
		se->exec_start = 0;
	if (!curr)
		ts_enqueue_tree(cfs, se);
	se->on_rq = 1;
}

void ts_cfs_dequeue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
			   int flags)
{
	ts_cfs_update_curr(cfs, now);
	/* kernel: update_load_avg(UPDATE_TG [| DO_DETACH]) -- host/PELT */
	ts_clear_buddies(cfs, se);
	ts_entity_leave_queue(cfs, se);
	/* Normalize after update_curr(), which may have moved min_vruntime, and before
	 * update_min_vruntime() discounts se's position. */
	if (!(flags & TS_DEQUEUE_SLEEP))
		se->vruntime -= cfs->min_vruntime;
	/* kernel: update_cfs_group() -- host, after this */
	if ((flags & (TS_DEQUEUE_SAVE | TS_DEQUEUE_MOVE)) != TS_DEQUEUE_SAVE)
		ts_update_min_vruntime(cfs);
}

void ts_cfs_reweight_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, unsigned long weight,
			    uint64_t now)
{
	bool in_tree = se->on_rq && cfs->curr != se;

	if (se->on_rq) {
		/* commit outstanding execution time */
		if (cfs->curr == se)
			ts_cfs_update_curr(cfs, now);
		cfs->load.weight -= se->load.weight; /* update_load_sub() */
		cfs->load.inv_weight = 0;
	}
	/* the tree's avg_vruntime sums (kept for both picks) follow the weight */
	if (in_tree)
		ts_avg_vruntime_sub(cfs, se);
	ts_dequeue_load_avg(&cfs->avg, &se->avg, se->load.weight);
	se->load.weight = weight; /* update_load_set() */
	se->load.inv_weight = 0;
	ts_sa_set_load_avg(&se->avg,
			   (unsigned long)(weight * se->avg.load_sum / ts_pelt_divider(&se->avg)));
	ts_enqueue_load_avg(&cfs->avg, &se->avg, weight);
	if (in_tree)
		ts_avg_vruntime_add(cfs, se);
	if (se->on_rq) {
		cfs->load.weight += se->load.weight; /* update_load_add() */
		cfs->load.inv_weight = 0;
	}
}

void ts_cfs_task_fork(struct ts_sched_entity *se, uint64_t now)
{
	struct ts_cfs_rq *cfs = se->cfs_rq;
	struct ts_sched_entity *curr = cfs->curr;

	if (curr) {
		ts_cfs_update_curr(cfs, now);
		se->vruntime = curr->vruntime;
	}
	ts_cfs_place_entity(cfs, se, true, now);
	/* sysctl_sched_child_runs_first is 0: no swap with the parent */
	se->vruntime -= cfs->min_vruntime;
}
