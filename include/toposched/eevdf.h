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
 * Task entities only. Group scheduling (a later issue) adds se->parent, se->cfs_rq
 * (the queue the entity is on), se->my_q (the queue a group entity owns), se->depth and
 * the hierarchy walks of enqueue_task_fair()/dequeue_task_fair()/pick_next_task_fair();
 * the fields are reserved below, and every function here already takes the cfs_rq
 * explicitly, as the kernel's per-level helpers do, so they work unchanged per level.
 *
 * PELT is not called from here (no EEVDF decision reads it for task entities). The host,
 * holding the run-queue lock, follows the kernel's order:
 *
 *   enqueue (activate_task):  ts_update_curr(cfs, now)            [update_curr]
 *                             PELT: update_load_avg(se, UPDATE_TG|DO_ATTACH)
 *                             ts_enqueue_task(cfs, se, now, flags) [place, account, insert]
 *                             ts_wakeup_preempt(cfs, se, now, wf)  [wakeups only]
 *   dequeue (sleep/migrate):  ts_update_curr(cfs, now)
 *                             PELT: update_load_avg(se, UPDATE_TG[|DO_DETACH])
 *                             ts_dequeue_task(cfs, se, now, flags) [lag, account, erase]
 *   tick:                     ts_update_curr(cfs, now); PELT: entity_tick updates
 *                             -> reschedule if the result's resched is set
 *   schedule():               ts_update_curr(cfs, now); PELT for prev (still running)
 *                             ts_put_prev_entity(cfs, prev, now)   [prev back in the tree]
 *                             next = ts_pick_next_entity(cfs)      [NEXT_BUDDY + pick_eevdf]
 *                             PELT for next (not yet running)
 *                             ts_set_next_entity(cfs, next, now)
 *
 * ts_enqueue_entity/task, ts_dequeue_entity/task and ts_put_prev_entity call
 * update_curr themselves, as the kernel does; a second update_curr at the same `now` is
 * a no-op, so the PELT step can sit between them. A reschedule request ("resched_curr")
 * is recorded in cfs->resched; the host acts on it and clears it when it switches.
 *
 * Left out (v6.12 has them): DELAY_DEQUEUE/DELAY_ZERO (sched_delayed), PLACE_REL_DEADLINE
 * (no feature bit in features.h), reweight_entity()/reweight_eevdf() (changing the weight
 * of a queued entity: ts_set_load_weight refuses it), SCHED_IDLE entities and the
 * idle/batch rules of check_preempt_wakeup_fair(), bandwidth throttling, schedstats. */
#ifndef TOPOSCHED_EEVDF_H
#define TOPOSCHED_EEVDF_H

#include <stdbool.h>
#include <stdint.h>

#include "toposched/features.h"
#include "toposched/pelt.h"

#define TS_NICE_0_LOAD	       1024UL
#define TS_WMULT_CONST	       (~0U)
#define TS_WMULT_SHIFT	       32
#define TS_MIN_NICE	       (-20)
#define TS_MAX_NICE	       19
#define TS_NSEC_PER_SEC	       1000000000ULL
/* normalized_sysctl_sched_base_slice since v6.15 / 6.12.y (was 750000 ns). */
#define TS_NORMALIZED_BASE_SLICE 700000ULL
/* TICK_NSEC = (NSEC_PER_SEC + HZ/2) / HZ; the default here is HZ=250 (most distributions). */
#define TS_TICK_NSEC(hz)       ((TS_NSEC_PER_SEC + (hz) / 2) / (hz))
#define TS_TICK_NSEC_DEFAULT   TS_TICK_NSEC(250ULL)

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

/* rb_root_cached: root plus the leftmost (earliest-deadline) node. */
struct ts_rb_root_cached {
	struct ts_rb_node *root;
	struct ts_rb_node *leftmost;
};

struct ts_cfs_rq;

struct ts_sched_entity {
	struct ts_load_weight load;
	struct ts_rb_node run_node;
	uint64_t deadline;
	uint64_t min_vruntime; /* augmentation: min vruntime over this node's subtree */
	uint64_t min_slice;    /* augmentation: min slice over this node's subtree */
	unsigned char on_rq;
	bool custom_slice;     /* slice set by the host (sched_attr.sched_runtime), kept */
	uint64_t exec_start;
	uint64_t sum_exec_runtime;
	uint64_t prev_sum_exec_runtime;
	uint64_t vruntime;
	int64_t vlag;	       /* lag at dequeue; while curr: deadline stash (protect_slice) */
	uint64_t slice;	       /* request size r_i in real ns */
	/* Group scheduling, reserved for the later issue (always NULL / 0 for now):
	 * parent = the group entity above, cfs_rq = the queue this entity is on,
	 * my_q = the queue a group entity owns (NULL for a task). */
	int depth;
	struct ts_sched_entity *parent;
	struct ts_cfs_rq *cfs_rq;
	struct ts_cfs_rq *my_q;
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
	struct ts_sched_entity *curr; /* running entity; not in the tree */
	struct ts_sched_entity *next; /* NEXT_BUDDY */
	bool resched;		      /* resched_curr() requested; the host clears it */
	/* sysctl_sched_base_slice and TICK_NSEC: kernel globals, per queue here (no globals). */
	uint64_t base_slice;
	uint64_t tick_nsec;
	struct ts_sched_avg avg;
};

/* Result of update_curr(). */
struct ts_update_curr_result {
	int64_t delta_exec;  /* ns charged to curr (<= 0: nothing was done) */
	bool slice_expired;  /* update_deadline(): curr consumed its request, new deadline */
	bool resched;	     /* the kernel would resched_curr() (also set in cfs->resched) */
};

/* get_update_sysctl_factor() under SCHED_TUNABLESCALING_LOG: 1 + ilog2(min(ncpus, 8)). */
unsigned int ts_get_update_sysctl_factor(unsigned int nr_cpus);
/* sysctl_sched_base_slice for nr_cpus online CPUs: 0.70 ms * factor (0.70 .. 2.80 ms). */
uint64_t ts_sched_base_slice(unsigned int nr_cpus);

/* Empty queue. base_slice: ts_sched_base_slice(); tick_nsec: TS_TICK_NSEC_DEFAULT or
 * TS_TICK_NSEC(hz). */
void ts_cfs_rq_init(struct ts_cfs_rq *cfs, uint64_t base_slice, uint64_t tick_nsec);
/* A dequeued nice-0 task entity. */
void ts_sched_entity_init(struct ts_sched_entity *se);

/* set_load_weight(): weight/inv_weight from the tables. -EINVAL for nice outside
 * [-20, 19]; -EBUSY while se->on_rq (reweight_entity() is not implemented yet). */
int ts_set_load_weight(struct ts_sched_entity *se, int nice);

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
void ts_enqueue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
		       int flags, struct ts_features f);
void ts_dequeue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
		       int flags, struct ts_features f);
/* The task-level body of enqueue_task_fair()/dequeue_task_fair() without groups:
 * the entity call plus h_nr_queued/h_nr_runnable. */
void ts_enqueue_task(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
		     int flags, struct ts_features f);
void ts_dequeue_task(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
		     int flags, struct ts_features f);

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
