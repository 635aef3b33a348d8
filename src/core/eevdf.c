/* EEVDF run queue, after kernel/sched/fair.c of v6.12 (see toposched/eevdf.h for the
 * version notes and the host's call order): weights and virtual time, the run queue's
 * bookkeeping, slice protection, accounting and placement, pick, and reweight. The tree
 * of queued entities is in eevdf_rbtree.c, the invariant checker in eevdf_check.c. The
 * bodies of the entity operations of every wake-up and switch are in eevdf_internal.h,
 * inline for rq.c; the ts_* entry points here wrap them. */
#include <errno.h>

#include "eevdf_internal.h"
#include "toposched/cfs.h"

const int ts_sched_prio_to_weight[40] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548,	 7620,	6100,  4904,  3906,
	/*  -5 */ 3121,	 2501,	1991,  1586,  1277,
	/*   0 */ 1024,	 820,	655,   526,   423,
	/*   5 */ 335,	 272,	215,   172,   137,
	/*  10 */ 110,	 87,	70,    56,    45,
	/*  15 */ 36,	 29,	23,    18,    15,
};

const uint32_t ts_sched_prio_to_wmult[40] = {
	/* -20 */ 48388,     59856,	76040,	   92818,     118348,
	/* -15 */ 147320,    184698,	229616,	   287308,    360437,
	/* -10 */ 449829,    563644,	704093,	   875809,    1099582,
	/*  -5 */ 1376151,   1717300,	2157191,   2708050,   3363326,
	/*   0 */ 4194304,   5237765,	6557202,   8165337,   10153587,
	/*   5 */ 12820798,  15790321,	19976592,  24970740,  31350126,
	/*  10 */ 39045157,  49367440,	61356676,  76695844,  95443717,
	/*  15 */ 119304647, 148102320, 186737708, 238609294, 286331153,
};

/* ---- weights and virtual time ---------------------------------------------------------- */

unsigned int ts_get_update_sysctl_factor(unsigned int nr_cpus)
{
	unsigned int cpus = nr_cpus < 8 ? nr_cpus : 8;
	unsigned int ilog = 0;

	if (cpus == 0)
		cpus = 1;
	while (cpus >>= 1)
		ilog++;
	return 1 + ilog;
}

uint64_t ts_sched_base_slice(unsigned int nr_cpus)
{
	return ts_get_update_sysctl_factor(nr_cpus) * TS_NORMALIZED_BASE_SLICE;
}

void ts_cfs_rq_init(struct ts_cfs_rq *cfs, uint64_t base_slice, uint64_t tick_nsec)
{
	*cfs = (struct ts_cfs_rq){0};
	cfs->base_slice = base_slice;
	cfs->tick_nsec = tick_nsec;
	/* init_cfs_rq(): min_vruntime = (u64)(-(1LL << 20)), so wrap-around is exercised
	 * early in the kernel; start at 0 here, the arithmetic is wrap-safe either way. */
}

void ts_cfs_rq_set_pick(struct ts_cfs_rq *cfs, enum ts_fair_pick pick,
			const struct ts_cfs_params *params)
{
	cfs->pick = pick;
	cfs->cfs_params = pick == TS_FAIR_PICK_CFS ? params : NULL;
	cfs->tasks_timeline.by_vruntime = pick == TS_FAIR_PICK_CFS;
}

void ts_sched_entity_init(struct ts_sched_entity *se)
{
	*se = (struct ts_sched_entity){0};
	ts_sched_entity_init_zeroed(se);
}

static void update_inv_weight(struct ts_load_weight *lw)
{
	unsigned long w;

	if (lw->inv_weight)
		return;
	w = lw->weight;
	if (w >= TS_WMULT_CONST)
		lw->inv_weight = 1;
	else if (!w)
		lw->inv_weight = TS_WMULT_CONST;
	else
		lw->inv_weight = (uint32_t)(TS_WMULT_CONST / w);
}

static inline int fls32(uint32_t x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

/* mul_u64_u32_shr(), the generic (exact) version: shift <= 32. */
static inline uint64_t mul_u64_u32_shr(uint64_t a, uint32_t mul, unsigned int shift)
{
	uint32_t al = (uint32_t)a, ah = (uint32_t)(a >> 32);
	uint64_t ret = ((uint64_t)al * mul) >> shift;

	if (ah)
		ret += ((uint64_t)ah * mul) << (32 - shift);
	return ret;
}

uint64_t ts_calc_delta(uint64_t delta, unsigned long weight, struct ts_load_weight *lw)
{
	uint64_t fact = weight; /* already scale_load_down()'ed */
	uint32_t fact_hi = (uint32_t)(fact >> 32);
	int shift = TS_WMULT_SHIFT;
	int fs;

	update_inv_weight(lw);
	if (fact_hi) {
		fs = fls32(fact_hi);
		shift -= fs;
		fact >>= fs;
	}
	fact = (uint64_t)(uint32_t)fact * lw->inv_weight;
	fact_hi = (uint32_t)(fact >> 32);
	if (fact_hi) {
		fs = fls32(fact_hi);
		shift -= fs;
		fact >>= fs;
	}
	return mul_u64_u32_shr(delta, (uint32_t)fact, (unsigned int)shift);
}

uint64_t ts_calc_delta_fair(uint64_t delta, struct ts_sched_entity *se)
{
	if (se->load.weight != TS_NICE_0_LOAD)
		delta = ts_calc_delta(delta, TS_NICE_0_LOAD, &se->load);
	return delta;
}

uint64_t ts_avg_vruntime(const struct ts_cfs_rq *cfs)
{
	return avg_vruntime(cfs);
}

bool ts_vruntime_eligible(const struct ts_cfs_rq *cfs, uint64_t vruntime)
{
	return vruntime_eligible(cfs, vruntime);
}

bool ts_entity_eligible(const struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	return entity_eligible(cfs, se);
}

void ts_update_entity_lag(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	update_entity_lag(cfs, se);
}

/* ---- run-queue bookkeeping --------------------------------------------------------------- */

void ts_avg_vruntime_add(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	avg_vruntime_add(cfs, se);
}

void ts_avg_vruntime_sub(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	avg_vruntime_sub(cfs, se);
}

void ts_entity_leave_queue(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	entity_leave_queue(cfs, se);
}

void ts_enqueue_tree(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	__enqueue_entity(cfs, se);
}

struct ts_sched_entity *ts_pick_first_entity(const struct ts_cfs_rq *cfs)
{
	return pick_first_entity(cfs);
}

struct ts_sched_entity *ts_pick_root_entity(const struct ts_cfs_rq *cfs)
{
	return pick_root_entity(cfs);
}

void ts_update_min_vruntime(struct ts_cfs_rq *cfs)
{
	update_min_vruntime(cfs);
}

uint64_t ts_cfs_rq_min_slice(const struct ts_cfs_rq *cfs)
{
	const struct ts_sched_entity *root = ts_pick_root_entity(cfs);
	const struct ts_sched_entity *curr = cfs->curr;
	uint64_t min_slice = UINT64_MAX;

	if (curr && curr->on_rq)
		min_slice = curr->slice;
	if (root && root->min_slice < min_slice)
		min_slice = root->min_slice;
	return min_slice;
}

void ts_clear_buddy_up(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se, size_t off)
{
#define BUDDY(q) (*(struct ts_sched_entity **)((char *)(q) + off))
	BUDDY(cfs) = NULL;
	for (se = se->parent; se; se = se->parent) {
		if (BUDDY(se->cfs_rq) != se)
			break;
		BUDDY(se->cfs_rq) = NULL;
	}
#undef BUDDY
}

void ts_clear_buddies(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	clear_buddies(cfs, se);
}

void ts_set_next_buddy(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	/* for_each_sched_entity(se): cfs_rq_of(se)->next = se; (SCHED_IDLE: not modelled) */
	if (!se->on_rq)
		return;
	cfs->next = se;
	for (se = se->parent; se; se = se->parent) {
		if (!se->on_rq)
			return;
		se->cfs_rq->next = se;
	}
}

/* ---- slice protection (RUN_TO_PARITY, PREEMPT_SHORT) ------------------------------------- */

bool ts_protect_slice(const struct ts_sched_entity *se)
{
	return protect_slice(se);
}

/* ---- accounting ------------------------------------------------------------------------- */

struct ts_update_curr_result ts_update_curr(struct ts_cfs_rq *cfs, uint64_t now,
					    struct ts_features f)
{
	return eevdf_update_curr(cfs, now, f);
}

void ts_place_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, int flags,
		     struct ts_features f)
{
	place_entity(cfs, se, flags, f);
}

void ts_account_entity_enqueue(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	account_entity_enqueue(cfs, se);
}

void ts_account_entity_dequeue(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se)
{
	account_entity_dequeue(cfs, se);
}

void ts_enqueue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		       struct ts_features f)
{
	eevdf_enqueue_entity(cfs, se, now, flags, f);
}

void ts_dequeue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		       struct ts_features f)
{
	eevdf_dequeue_entity(cfs, se, now, flags, f);
}

void ts_enqueue_task(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		     struct ts_features f)
{
	ts_enqueue_entity(cfs, se, now, flags, f);
	cfs->h_nr_queued++;
	cfs->h_nr_runnable++;
}

void ts_dequeue_task(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		     struct ts_features f)
{
	ts_dequeue_entity(cfs, se, now, flags, f);
	cfs->h_nr_queued--;
	cfs->h_nr_runnable--;
}

/* ---- pick ------------------------------------------------------------------------------- */

struct ts_sched_entity *ts_pick_eevdf(struct ts_cfs_rq *cfs, struct ts_features f)
{
	return pick_eevdf(cfs, f);
}

struct ts_sched_entity *ts_pick_next_entity(struct ts_cfs_rq *cfs, struct ts_features f)
{
	return eevdf_pick_next_entity(cfs, f);
}

void ts_set_next_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now)
{
	eevdf_set_next_entity(cfs, se, now);
}

void ts_put_prev_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *prev, uint64_t now,
			struct ts_features f)
{
	eevdf_put_prev_entity(cfs, prev, now, f);
}

bool ts_wakeup_preempt(struct ts_cfs_rq *cfs, struct ts_sched_entity *pse, uint64_t now,
		       int wake_flags, struct ts_features f)
{
	struct ts_sched_entity *se = cfs->curr;

	if (!se || se == pse)
		return false;
	if (__builtin_expect(cfs->pick == TS_FAIR_PICK_CFS, 0)) {
		bool preempt =
			ts_cfs_check_preempt_wakeup(se, pse, now, wake_flags, cfs->resched, f);
		cfs->resched |= preempt;
		return preempt;
	}
	if (ts_features_has(f, TS_FEAT_NEXT_BUDDY) && !(wake_flags & TS_WF_FORK))
		ts_set_next_buddy(cfs, pse);
	/* test_tsk_need_resched(curr): a reschedule is already on its way. */
	if (cfs->resched)
		return false;
	if (!ts_features_has(f, TS_FEAT_WAKEUP_PREEMPTION))
		return false;
	/* One level: pse and curr are siblings (the hierarchy's find_matching_se() is the
	 * host's, see ts_wakeup_preempt_entity()). SCHED_IDLE and non-normal policies: not
	 * modelled. */
	return ts_wakeup_preempt_entity(cfs, pse, now, f);
}

bool ts_wakeup_preempt_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *pse, uint64_t now,
			      struct ts_features f)
{
	return eevdf_wakeup_preempt_entity(cfs, pse, now, f);
}

/* ---- reweight (reweight_entity / reweight_eevdf) ---------------------------------------- */

/* div_s64(): truncates toward zero. */
static int64_t div_s64(int64_t a, int64_t b)
{
	return a / b;
}

void ts_reweight_eevdf(const struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t avruntime,
		       unsigned long weight)
{
	unsigned long old_weight = se->load.weight;
	int64_t vlag, vslice;

	/* VRUNTIME: lag is preserved (w * (V - v) = w' * (V' - v')) and V does not move
	 * (V' = V, corollary #2 of the kernel's comment), so v' = V - (V - v) * w / w'. */
	if (avruntime != se->vruntime) {
		vlag = entity_lag(cfs, avruntime, se);
		vlag = div_s64(s64_mul(vlag, (int64_t)old_weight), (int64_t)weight);
		se->vruntime = avruntime - (uint64_t)vlag;
	}
	/* DEADLINE: the relative virtual deadline follows the slope:
	 * d' = V + (d - V) * w / w'. */
	vslice = vdiff(se->deadline, avruntime);
	vslice = div_s64(s64_mul(vslice, (int64_t)old_weight), (int64_t)weight);
	se->deadline = avruntime + (uint64_t)vslice;
}

void ts_reweight_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, unsigned long weight,
			uint64_t now, struct ts_features f)
{
	bool curr = cfs->curr == se;
	uint64_t avruntime = 0;

	if (__builtin_expect(cfs->pick == TS_FAIR_PICK_CFS, 0)) {
		ts_cfs_reweight_entity(cfs, se, weight, now);
		return;
	}
	if (se->on_rq) {
		/* commit outstanding execution time */
		update_curr(cfs, now, f);
		avruntime = ts_avg_vruntime(cfs);
		if (!curr)
			__dequeue_entity(cfs, se);
		cfs->load.weight -= se->load.weight; /* update_load_sub() */
		cfs->load.inv_weight = 0;
	}
	ts_dequeue_load_avg(&cfs->avg, &se->avg, se->load.weight);

	if (se->on_rq) {
		ts_reweight_eevdf(cfs, se, avruntime, weight);
	} else {
		/* se->vlag = V - v_i while lag_i = w_i * (V - v_i): rescale when w_i changes. */
		se->vlag = div_s64(s64_mul(se->vlag, (int64_t)se->load.weight), (int64_t)weight);
	}

	se->load.weight = weight; /* update_load_set() */
	se->load.inv_weight = 0;
	/* read lock-free by task_h_load() on other CPUs: the atomic store of pelt.h */
	ts_sa_set_load_avg(&se->avg,
			   (unsigned long)(weight * se->avg.load_sum / ts_pelt_divider(&se->avg)));

	ts_enqueue_load_avg(&cfs->avg, &se->avg, weight);
	if (se->on_rq) {
		cfs->load.weight += se->load.weight; /* update_load_add() */
		cfs->load.inv_weight = 0;
		if (!curr)
			__enqueue_entity(cfs, se);
		/* vruntime moved: update min_vruntime at the end, after the calculations above
		 * that needed it stable. */
		ts_update_min_vruntime(cfs);
	}
}

int ts_set_load_weight(struct ts_sched_entity *se, int nice)
{
	if (nice < TS_MIN_NICE || nice > TS_MAX_NICE)
		return -EINVAL;
	unsigned long weight = (unsigned long)ts_sched_prio_to_weight[nice + 20];
	if (!se->cfs_rq) {
		if (se->on_rq)
			return -EINVAL;
		/* set_load_weight(p, false): an entity on no queue (a new task). */
		se->load.weight = weight;
		se->load.inv_weight = ts_sched_prio_to_wmult[nice + 20];
		return 0;
	}
	/* reweight_task_fair(). The caller did update_curr(): charge nothing more. */
	struct ts_cfs_rq *cfs = se->cfs_rq;
	uint64_t now = cfs->curr ? cfs->curr->exec_start : 0;
	if (se->load.weight != weight || se->load.inv_weight != ts_sched_prio_to_wmult[nice + 20])
		ts_reweight_entity(cfs, se, weight, now, (struct ts_features){0});
	se->load.inv_weight = ts_sched_prio_to_wmult[nice + 20];
	return 0;
}

void ts_entity_slice_changed(struct ts_cfs_rq *cfs, struct ts_sched_entity *se)
{
	if (!se->on_rq || cfs->curr == se)
		return;
	ts_rb_augment_propagate(&se->run_node);
}
