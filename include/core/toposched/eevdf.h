/* EEVDF: the per-CPU CFS run queue and its pick, after kernel/sched/fair.c of Linux v6.12
 * (the 6.12.y stable line, which also carries the 0.70 ms base slice of v6.15, commit
 * 2ae891b82695). Names follow that kernel: avg_vruntime / avg_load / min_vruntime (newer
 * trees call them sum_w_vruntime / sum_weight / zero_vruntime), nr_queued (v6.14 name of
 * nr_running), protect_slice() as the "vlag == deadline" stash of set_next_entity().
 *
 * Units, as in the kernel:
 *  - `now` is the host's clock in ns (rq_clock_task()); it must never go backwards for
 *    a given cfs_rq (a backwards step is ignored, as update_curr_se() does).
 *  - weights are scale_load_down()'ed: nice 0 = 1024 (the kernel keeps se->load.weight
 *    << 10 on 64-bit but every EEVDF formula uses scale_load_down(), so results match).
 *  - vruntime, deadline, vlag and min_vruntime are virtual ns (u64, compared by signed
 *    difference so that wrap-around is harmless, as the kernel does).
 *
 * Group entities (group scheduling, see group.h): se->parent is the group entity above,
 * se->cfs_rq the queue the entity is on, se->my_q the queue a group entity owns (NULL for
 * a task), se->depth its level (0 under the root). Every function here takes the cfs_rq
 * explicitly, as the kernel's per-level helpers do, and works on one level; the hierarchy
 * walks of enqueue_task_fair() / dequeue_entities() / pick_next_task_fair() /
 * task_tick_fair() are the host's (src/core/rq.c). The buddy helpers walk se->parent, as
 * the kernel's for_each_sched_entity() loops do.
 *
 * PELT is not called from here, except for the load part of a reweight (no EEVDF decision
 * reads PELT). The host, holding the run-queue lock, follows the kernel's order per level:
 *
 *   enqueue_entity:  ts_update_curr(cfs, now)               [update_curr]
 *                    PELT: update_load_avg(se, UPDATE_TG|DO_ATTACH)
 *                    update_cfs_group(se)                   [group se: ts_reweight_entity]
 *                    ts_enqueue_entity(cfs, se, now, flags) [place, account, insert]
 *   dequeue_entity:  ts_update_curr(cfs, now)
 *                    PELT: update_load_avg(se, UPDATE_TG[|DO_DETACH])
 *                    ts_dequeue_entity(cfs, se, now, flags) [lag, account, erase]
 *                    update_cfs_group(se)
 *   entity_tick:     ts_update_curr(cfs, now); PELT: update_load_avg(curr, UPDATE_TG);
 *                    update_cfs_group(curr) -> reschedule if cfs->resched is set
 *   pick:            ts_update_curr(cfs, now) if curr is queued; ts_pick_next_entity(cfs)
 *                    per level, top down (curr still in place)
 *   put_prev_entity: ts_update_curr(cfs, now); PELT for prev (still running);
 *                    ts_put_prev_entity(cfs, prev, now)    [prev back in the tree]
 *   set_next_entity: PELT for next (not yet running); ts_set_next_entity(cfs, next, now)
 *
 * ts_enqueue_entity/task, ts_dequeue_entity/task and ts_put_prev_entity call
 * update_curr themselves, as the kernel does; a second update_curr at the same `now` is
 * a no-op, so the PELT step can sit between them. A reschedule request ("resched_curr")
 * is recorded in cfs->resched; the host acts on it and clears it when it switches.
 *
 * Left out (v6.12 has them): DELAY_DEQUEUE/DELAY_ZERO (sched_delayed), PLACE_REL_DEADLINE
 * (no feature bit in features.h), SCHED_IDLE entities and the idle/batch rules of
 * check_preempt_wakeup_fair(), bandwidth throttling, schedstats. PICK_BUDDY has no switch
 * of its own: cfs->next is picked only with NEXT_BUDDY. */
#ifndef TOPOSCHED_EEVDF_H
#define TOPOSCHED_EEVDF_H

#include <stdbool.h>
#include <stdint.h>

#include "toposched/fair_pick.h"
#include "toposched/features.h"
#include "toposched/pelt.h"

struct ts_task_group;

#define TS_NICE_0_LOAD	1024UL
#define TS_WMULT_CONST	(~0U)
#define TS_WMULT_SHIFT	32
#define TS_MIN_NICE	(-20)
#define TS_MAX_NICE	19
#define TS_NSEC_PER_SEC 1000000000ULL
/* normalized_sysctl_sched_base_slice since v6.15 / 6.12.y (was 750000 ns). */
#define TS_NORMALIZED_BASE_SLICE 700000ULL
/* TICK_NSEC = (NSEC_PER_SEC + HZ/2) / HZ; the default here is HZ=250 (most distributions). */
#define TS_TICK_NSEC(hz)     ((TS_NSEC_PER_SEC + (hz) / 2) / (hz))
#define TS_TICK_NSEC_DEFAULT TS_TICK_NSEC(250ULL)

/* sched_prio_to_weight[] / sched_prio_to_wmult[] (kernel/sched/core.c), index nice + 20. */
extern const int ts_sched_prio_to_weight[40];
extern const uint32_t ts_sched_prio_to_wmult[40];

/* Enqueue/dequeue flags: the kernel's values (kernel/sched/sched.h). */
#define TS_DEQUEUE_SLEEP    0x01
#define TS_DEQUEUE_SAVE	    0x02 /* matches ENQUEUE_RESTORE */
#define TS_DEQUEUE_MOVE	    0x04 /* matches ENQUEUE_MOVE */
#define TS_ENQUEUE_WAKEUP   0x01
#define TS_ENQUEUE_RESTORE  0x02
#define TS_ENQUEUE_MOVE	    0x04
#define TS_ENQUEUE_INITIAL  0x80 /* new task (fork): PLACE_DEADLINE_INITIAL */
#define TS_ENQUEUE_MIGRATED 0x100

/* Wake flags (WF_*) that the fair class reads here. */
#define TS_WF_SYNC 0x10
#define TS_WF_FORK 0x04

/* struct load_weight, scale_load_down()'ed; inv_weight 0 = "compute on first use". */
struct ts_load_weight {
	unsigned long weight;
	uint32_t inv_weight;
};

/* Red-black tree node (the kernel's rb_node), embedded in the entity. */
struct ts_rb_node {
	struct ts_rb_node *parent;
	struct ts_rb_node *left;
	struct ts_rb_node *right;
	bool red;
};

/* rb_root_cached: root plus the leftmost node. Ordered by deadline (EEVDF) or, for a queue
 * of the CFS pick, by vruntime (by_vruntime; set by ts_cfs_rq_set_pick()). toposched: the
 * rightmost node too, so that an insert at the end (a forked task's deadline is mostly the
 * latest) skips the descent to the same leaf slot. */
struct ts_rb_root_cached {
	struct ts_rb_node *root;
	struct ts_rb_node *leftmost;
	struct ts_rb_node *rightmost;
	bool by_vruntime;
};

struct ts_cfs_rq;

struct ts_sched_entity {
	struct ts_load_weight load;
	struct ts_rb_node run_node;
	uint64_t deadline;
	uint64_t min_vruntime; /* augmentation: min vruntime over this node's subtree */
	uint64_t min_slice;    /* augmentation: min slice over this node's subtree */
	unsigned char on_rq;
	bool custom_slice; /* slice set by the host (sched_attr.sched_runtime), kept */
	uint64_t exec_start;
	uint64_t exec_steal; /* the queue's steal clock at exec_start (update_curr_se()) */
	uint64_t sum_exec_runtime;
	uint64_t prev_sum_exec_runtime;
	uint64_t vruntime;
	int64_t vlag;	/* lag at dequeue; while curr: deadline stash (protect_slice) */
	uint64_t slice; /* request size r_i in real ns */
	/* Group scheduling: parent = the group entity above (NULL under the root), cfs_rq =
	 * the queue this entity is on (a task's is set by the host when it is queued),
	 * my_q = the queue a group entity owns (NULL for a task). */
	int depth;
	struct ts_sched_entity *parent;
	struct ts_cfs_rq *cfs_rq;
	struct ts_cfs_rq *my_q;
	/* se->runnable_weight: a group entity's my_q->h_nr_runnable as of its last
	 * se_update_runnable() (its PELT runnable input); unused for tasks. */
	unsigned long runnable_weight;
	struct ts_sched_avg avg;
};

struct ts_cfs_rq {
	struct ts_load_weight load; /* sum of the queued entities' weights (curr included) */
	unsigned int nr_queued;	    /* entities queued here (curr included while on_rq) */
	unsigned int h_nr_queued;   /* tasks queued in this hierarchy */
	unsigned int h_nr_runnable; /* of which runnable (== h_nr_queued: no delayed dequeue) */
	int64_t avg_vruntime;	    /* sum over the tree (not curr) of (v_i - min_vruntime) * w_i */
	unsigned long avg_load;	    /* sum over the tree (not curr) of w_i */
	uint64_t min_vruntime;	    /* monotonic reference v0 of avg_vruntime */
	struct ts_rb_root_cached tasks_timeline; /* by deadline, augmented min_vruntime */
	struct ts_sched_entity *curr;		 /* running entity; not in the tree */
	struct ts_sched_entity *next;		 /* NEXT_BUDDY */
	struct ts_sched_entity *last, *skip;	 /* the CFS pick's LAST_BUDDY and yield buddy */
	bool resched;				 /* resched_curr() requested; the host clears it */
	/* The pick generation (fair_pick.h) and, for CFS, the scheduler's tunables. */
	enum ts_fair_pick pick;
	const struct ts_cfs_params *cfs_params;
	/* sysctl_sched_base_slice and TICK_NSEC: kernel globals, per queue here (no globals). */
	uint64_t base_slice;
	uint64_t tick_nsec;
	struct ts_sched_avg avg;
	/* Group scheduling and PELT bookkeeping of struct cfs_rq (written by the owner CPU,
	 * under its lock): the group this queue belongs to (tg->cfs_rq[cpu] == this; NULL for
	 * a queue outside any hierarchy), its CPU, the pending propagation to the parent level
	 * (propagate / prop_runnable_sum, add_tg_cfs_propagate()), the accumulator of load
	 * removed by remote CPUs (NULL: none), and whether it is on the rq's leaf list (has
	 * load that __update_blocked_fair() must keep decaying). */
	struct ts_task_group *tg;
	int cpu;
	int propagate;
	long prop_runnable_sum;
	struct ts_removed_load *removed;
	bool on_list;
	/* The CPU's steal clock (struct ts_rq's steal; NULL = none): the host time taken from
	 * the CPU, which update_curr() does not charge (update_rq_clock_task()). */
	const uint64_t *steal_clock;
	/* v5.4's runnable load (kept only where the profile's find_idlest_group() and load
	 * balancing read it, ts_kernel_keeps_runnable_load(); else all 0; last, off the hot
	 * lines): runnable_weight, the sum of the queued entities' runnable weights, and
	 * avg.runnable_load_sum/_avg, the PELT average of the queued entities' load alone --
	 * load_avg without the blocked load of sleeping ones. Aged with avg, on its clock
	 * (update_cfs_rq_load_avg()). owner_runnable_weight: v5.4's se->runnable_weight of
	 * the group entity that owns this queue, calc_group_runnable() (the group's weight
	 * scaled by the share of its load that is queued; a task's is its weight). */
	unsigned long runnable_weight;
	uint64_t runnable_load_sum;
	unsigned long runnable_load_avg;
	unsigned long owner_runnable_weight;
};

/* Result of update_curr(). */
struct ts_update_curr_result {
	int64_t delta_exec; /* ns charged to curr (<= 0: nothing was done) */
	bool slice_expired; /* update_deadline(): curr consumed its request, new deadline */
	bool resched;	    /* the kernel would resched_curr() (also set in cfs->resched) */
};

/* get_update_sysctl_factor() under SCHED_TUNABLESCALING_LOG: 1 + ilog2(min(ncpus, 8)). */
unsigned int ts_get_update_sysctl_factor(unsigned int nr_cpus);
/* sysctl_sched_base_slice for nr_cpus online CPUs: 0.70 ms * factor (0.70 .. 2.80 ms). */
uint64_t ts_sched_base_slice(unsigned int nr_cpus);

/* Empty queue with the EEVDF pick. base_slice: ts_sched_base_slice(); tick_nsec:
 * TS_TICK_NSEC_DEFAULT or TS_TICK_NSEC(hz). */
void ts_cfs_rq_init(struct ts_cfs_rq *cfs, uint64_t base_slice, uint64_t tick_nsec);
/* An empty queue's pick generation: TS_FAIR_PICK_CFS needs params (kept by pointer; the
 * tree is then ordered by vruntime), TS_FAIR_PICK_EEVDF ignores them. Every entry point
 * below dispatches on it: update_curr, enqueue/dequeue, pick, set_next, reweight (the CFS
 * bodies are in cfs.h). */
void ts_cfs_rq_set_pick(struct ts_cfs_rq *cfs, enum ts_fair_pick pick,
			const struct ts_cfs_params *params);
/* A dequeued nice-0 task entity. */
void ts_sched_entity_init(struct ts_sched_entity *se);
/* ts_sched_entity_init() of an entity already zeroed: its nice-0 weight. */
static inline void ts_sched_entity_init_zeroed(struct ts_sched_entity *se)
{
	se->load.weight = TS_NICE_0_LOAD;
	se->load.inv_weight = ts_sched_prio_to_wmult[20];
}

/* set_load_weight() / reweight_task_fair(): weight/inv_weight from the tables, through
 * reweight_entity() on se->cfs_rq: a queued entity keeps its lag and relative deadline
 * (reweight_eevdf()), a dequeued one's vlag is rescaled. For a queued entity the caller
 * (holding the rq lock) has brought the queue to now with ts_update_curr() first (the
 * kernel's reweight_entity() starts with update_curr()); se->cfs_rq must then be set.
 * -EINVAL for nice outside [-20, 19] or a queued entity without se->cfs_rq. */
int ts_set_load_weight(struct ts_sched_entity *se, int nice);

/* reweight_entity(cfs, se, weight) of v6.12 for se on (or last on) cfs: queued (curr or in
 * the tree): update_curr(), V kept, vruntime = V - (V - v) * w / w', deadline = V + (d - V) *
 * w / w' (reweight_eevdf()), avg_vruntime / avg_load / load.weight re-accounted, the tree
 * re-sorted and min_vruntime updated; dequeued: vlag = vlag * w / w'. Then load.weight =
 * weight (inv_weight recomputed on use) and the PELT part: se->avg.load_avg = weight *
 * load_sum / divider, moved in cfs->avg (dequeue_load_avg / enqueue_load_avg). */
void ts_reweight_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, unsigned long weight,
			uint64_t now, struct ts_features f);
/* reweight_eevdf(): the vruntime/deadline rescale alone, around V = avruntime. */
void ts_reweight_eevdf(const struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t avruntime,
		       unsigned long weight);
/* min_vruntime_cb_propagate(): se's slice changed while it is in cfs's tree (not curr):
 * refresh the min_slice augmentation above it. No-op for curr or a dequeued entity. */
void ts_entity_slice_changed(struct ts_cfs_rq *cfs, struct ts_sched_entity *se);

/* __calc_delta(): delta * weight / lw->weight with the kernel's 32-bit inverse. */
uint64_t ts_calc_delta(uint64_t delta, unsigned long weight, struct ts_load_weight *lw);
/* calc_delta_fair(): delta * NICE_0_LOAD / se's weight (real ns -> virtual ns). */
uint64_t ts_calc_delta_fair(uint64_t delta, struct ts_sched_entity *se);

/* avg_vruntime(): V, the weighted average vruntime of the queued entities (curr
 * included while on_rq), rounded toward -inf; min_vruntime when the queue is empty. */
uint64_t ts_avg_vruntime(const struct ts_cfs_rq *cfs);
/* vruntime_eligible() / entity_eligible(): V - v >= 0, tested exactly. */
bool ts_vruntime_eligible(const struct ts_cfs_rq *cfs, uint64_t vruntime);
bool ts_entity_eligible(const struct ts_cfs_rq *cfs, const struct ts_sched_entity *se);
/* update_entity_lag(): se->vlag = clamp(V - v, +-calc_delta_fair(max(2*slice, TICK))). */
void ts_update_entity_lag(struct ts_cfs_rq *cfs, struct ts_sched_entity *se);
/* update_min_vruntime(). */
void ts_update_min_vruntime(struct ts_cfs_rq *cfs);
/* cfs_rq_min_slice(): smallest slice among the queued entities (UINT64_MAX if none). */
uint64_t ts_cfs_rq_min_slice(const struct ts_cfs_rq *cfs);

/* update_curr(): charge curr for now - exec_start, advance its vruntime, renew its
 * deadline when the request is consumed (update_deadline()), update min_vruntime, and
 * request a resched on expiry or after PREEMPT_SHORT lost curr its protection. */
struct ts_update_curr_result ts_update_curr(struct ts_cfs_rq *cfs, uint64_t now,
					    struct ts_features f);

/* place_entity(): vruntime = V - vlag * (W + w) / W with PLACE_LAG (W: the load queued
 * before se joins), deadline = vruntime + vslice (vslice / 2 for TS_ENQUEUE_INITIAL with
 * PLACE_DEADLINE_INITIAL); resets slice to the base slice unless custom_slice. */
void ts_place_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, int flags,
		     struct ts_features f);

/* enqueue_entity() / dequeue_entity() for one level (the queue se is on). */
void ts_enqueue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		       struct ts_features f);
void ts_dequeue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		       struct ts_features f);
/* One level of enqueue_task_fair()/dequeue_entities() for a flat queue (tests, standalone
 * use): the entity call plus h_nr_queued/h_nr_runnable. rq.c walks the hierarchy itself. */
void ts_enqueue_task(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		     struct ts_features f);
void ts_dequeue_task(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now, int flags,
		     struct ts_features f);

/* pick_eevdf(): the eligible entity with the earliest deadline (curr included), O(log n);
 * RUN_TO_PARITY keeps a protected, eligible curr. NULL only when nothing is queued. */
struct ts_sched_entity *ts_pick_eevdf(struct ts_cfs_rq *cfs, struct ts_features f);
/* pick_next_entity(): cfs->next if NEXT_BUDDY and it is eligible, else pick_eevdf(). */
struct ts_sched_entity *ts_pick_next_entity(struct ts_cfs_rq *cfs, struct ts_features f);
/* set_next_entity(): se becomes curr (leaves the tree, slice protected). cfs->curr must
 * be NULL (put the previous one first). */
void ts_set_next_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now);
/* put_prev_entity(): prev (== cfs->curr) goes back into the tree if still queued. */
void ts_put_prev_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *prev, uint64_t now,
			struct ts_features f);

/* check_preempt_wakeup_fair() for an already enqueued `woken` against cfs->curr:
 * NEXT_BUDDY nomination (not for TS_WF_FORK), then, unless a resched is already pending
 * or WAKEUP_PREEMPTION is off, update_curr, PREEMPT_SHORT cancels curr's protection, and
 * preempt iff pick_eevdf() == woken. Returns true (and sets cfs->resched) when woken
 * should preempt curr. */
bool ts_wakeup_preempt(struct ts_cfs_rq *cfs, struct ts_sched_entity *woken, uint64_t now,
		       int wake_flags, struct ts_features f);
/* The part of check_preempt_wakeup_fair() after find_matching_se(): se = cfs->curr and pse
 * are siblings on cfs; update_curr, PREEMPT_SHORT, preempt iff pick_eevdf() == pse (then
 * cfs->resched is set). Buddies, the pending-resched test and WAKEUP_PREEMPTION are the
 * caller's. */
bool ts_wakeup_preempt_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *pse, uint64_t now,
			      struct ts_features f);
/* clear_buddies(): for each of cfs's buddies (next; for CFS also last and skip) that is se,
 * clear it there and up the hierarchy for as long as each level's buddy is se's ancestor
 * (__clear_buddies_next() / _last() / _skip()). */
void ts_clear_buddies(struct ts_cfs_rq *cfs, const struct ts_sched_entity *se);
/* set_next_buddy(): cfs_rq_of(se)->next = se for se and every ancestor (se->parent chain,
 * each on its se->cfs_rq; se itself on cfs). */
void ts_set_next_buddy(struct ts_cfs_rq *cfs, struct ts_sched_entity *se);

/* find_matching_se(): walk se and pse up to siblings of a common parent. */
static inline void ts_find_matching_se(struct ts_sched_entity **se, struct ts_sched_entity **pse)
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

/* protect_slice(): curr still runs on the request it was picked with (RUN_TO_PARITY). */
bool ts_protect_slice(const struct ts_sched_entity *se);

/* Earliest-deadline and root entities of the tree (NULL if empty). */
struct ts_sched_entity *ts_pick_first_entity(const struct ts_cfs_rq *cfs);
struct ts_sched_entity *ts_pick_root_entity(const struct ts_cfs_rq *cfs);

/* Debug check, O(n): red-black shape, parent links, deadline order, leftmost cache,
 * min_vruntime/min_slice augmentation, avg_vruntime/avg_load/load/nr_queued sums, curr
 * outside the tree. Returns 0, or -EINVAL with *why (if non-NULL) naming the violation. */
int ts_cfs_rq_check(const struct ts_cfs_rq *cfs, const char **why);

#endif
