/* Run queues and task groups, after kernel/sched/fair.c (v6.12, CONFIG_FAIR_GROUP_SCHED):
 * the blocked-load decay of group queues (__update_blocked_fair), a sleeping task changing
 * group (task_change_group_fair; with the CFS pick, v6.1's vruntime renormalisation of
 * detach_task_cfs_rq() / attach_task_cfs_rq()) and a task's hierarchical load
 * (task_h_load). */
#include <errno.h>

#include "rq_pelt.h"
#include "toposched/cfs.h"

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

void ts_update_blocked_fair(struct ts_sched *s, struct ts_rq *rq, uint64_t now)
{
	for (struct ts_task_group *c = s->root_tg->first_child; c; c = c->next_sibling)
		update_blocked_group(s, rq, c, now);
}

void ts_update_rq_load(struct ts_sched *s, struct ts_rq *rq, uint64_t now)
{
	struct ts_task *curr = rq->curr;
	if (curr)
		update_load_avg(s, curr->se.cfs_rq, &curr->se, now, 0);
	ts_update_blocked_fair(s, rq, now);
	if (!curr || curr->se.cfs_rq != &rq->cfs)
		update_cfs_rq_load_avg(&rq->cfs, now);
	rq->last_blocked_load_update = now;
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
	/* CFS: !vruntime_normalized(p) (it has run): no unlimited sleep bonus from the move,
	 * place_entity() on the old queue, then relative to it */
	bool cfs_renorm = s->fair_pick == TS_FAIR_PICK_CFS && se->sum_exec_runtime;
	if (cfs_renorm) {
		ts_cfs_place_entity(se->cfs_rq, se, false, now);
		se->vruntime -= se->cfs_rq->min_vruntime;
	}
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
	if (cfs_renorm) /* attach_task_cfs_rq() */
		se->vruntime += cfs->min_vruntime;
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
