/* The CFS pick of v5.x .. v6.5 on a struct ts_cfs_rq (fair_pick.h has the version notes),
 * after kernel/sched/fair.c as of v6.1.55. A queue set to TS_FAIR_PICK_CFS
 * (ts_cfs_rq_set_pick()) runs these through the entry points of eevdf.h, which dispatch on
 * cfs->pick; the host's hierarchy walks (src/core/rq.c) call the tick, wake-up, yield and
 * fork parts below themselves. Units as in eevdf.h; every function runs with the queue's
 * rq lock held. The PELT steps of the kernel's functions are the host's, in the order
 * eevdf.h gives. Not modelled: SCHED_IDLE entities (se_is_idle() is false), bandwidth
 * throttling, sysctl_sched_child_runs_first (0), schedstats. */
#ifndef TOPOSCHED_CFS_H
#define TOPOSCHED_CFS_H

#include "toposched/eevdf.h"
#include "toposched/fair_pick.h"

/* __sched_period(nr_running). */
uint64_t ts_sched_period(const struct ts_cfs_params *p, unsigned long nr_running);
/* sched_slice(): the wall-time slice of se on cfs (its queue), through every level of se's
 * hierarchy; ALT_PERIOD and BASE_SLICE as the params say. */
uint64_t ts_sched_slice(struct ts_cfs_rq *cfs, struct ts_sched_entity *se);
/* sched_vslice(): calc_delta_fair(sched_slice()). */
uint64_t ts_sched_vslice(struct ts_cfs_rq *cfs, struct ts_sched_entity *se);

/* update_curr() of CFS: charge curr, advance its vruntime, update_min_vruntime(). Never
 * asks for a resched (check_preempt_tick() does, from the tick). */
struct ts_update_curr_result ts_cfs_update_curr(struct ts_cfs_rq *cfs, uint64_t now);
/* place_entity(cfs, se, initial): see fair_pick.h. `now` is rq_clock_task() for
 * entity_is_long_sleeper(). */
void ts_cfs_place_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, bool initial,
			 uint64_t now);
/* enqueue_entity(): renormalise (vruntime += min_vruntime) unless a plain wake-up
 * (ENQUEUE_WAKEUP without ENQUEUE_MIGRATED), update_curr, account, place_entity() on
 * wake-up, insert. */
void ts_cfs_enqueue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
			   int flags);
/* dequeue_entity(): update_curr, clear_buddies, erase, account, vruntime -= min_vruntime
 * unless DEQUEUE_SLEEP, update_min_vruntime() unless DEQUEUE_SAVE without DEQUEUE_MOVE. */
void ts_cfs_dequeue_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, uint64_t now,
			   int flags);
/* reweight_entity() of CFS: vruntime kept; the queue's load follows, and the PELT load. */
void ts_cfs_reweight_entity(struct ts_cfs_rq *cfs, struct ts_sched_entity *se, unsigned long weight,
			    uint64_t now);

/* wakeup_gran(se): sysctl_sched_wakeup_granularity in se's virtual time. */
uint64_t ts_wakeup_gran(const struct ts_cfs_params *p, struct ts_sched_entity *se);
/* wakeup_preempt_entity(curr, se): -1 if se is not behind curr, 1 if it is behind by more
 * than wakeup_gran(se), else 0. Both on the same queue (with cfs_params). */
int ts_cfs_wakeup_preempt_entity(struct ts_sched_entity *curr, struct ts_sched_entity *se);
/* pick_next_entity(cfs, curr) with curr = cfs->curr if still queued: leftmost, skip,
 * next, last. NULL only when nothing is queued. */
struct ts_sched_entity *ts_cfs_pick_next_entity(struct ts_cfs_rq *cfs);
/* check_preempt_tick(cfs, curr) (from entity_tick() when nr_running > 1): sets cfs->resched
 * and returns true when curr should give way. */
bool ts_check_preempt_tick(struct ts_cfs_rq *cfs, struct ts_sched_entity *curr);
/* check_preempt_wakeup() once the CPU is known busy: curr = the running task's entity, pse
 * = the woken task's (both queued), resched_pending = test_tsk_need_resched(curr). Sets the
 * next buddy (NEXT_BUDDY with nr_running >= sched_nr_latency, or when pse preempts) and the
 * last buddy (LAST_BUDDY, same condition); returns true when curr should be preempted (the
 * caller reschedules). */
bool ts_cfs_check_preempt_wakeup(struct ts_sched_entity *curr, struct ts_sched_entity *pse,
				 uint64_t now, int wake_flags, bool resched_pending,
				 struct ts_features f);
/* set_last_buddy() / set_skip_buddy(): se and every ancestor, each on its queue. */
void ts_set_last_buddy(struct ts_sched_entity *se);
void ts_set_skip_buddy(struct ts_sched_entity *se);
/* yield_task_fair(): clear_buddies, update_curr, set_skip_buddy() for curr (cfs->curr, the
 * task's queue). */
void ts_cfs_yield_task(struct ts_cfs_rq *cfs, uint64_t now);
/* task_fork_fair() for a new task whose se->cfs_rq is the forking CPU's queue of its group
 * (set_task_rq() done): vruntime = that queue's curr's (update_curr first) or its own,
 * place_entity(initial) (START_DEBIT), then made relative to min_vruntime for the enqueue
 * on the CPU it is woken on. */
void ts_cfs_task_fork(struct ts_sched_entity *se, uint64_t now);

#endif
