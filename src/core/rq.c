/* Run-queue operations: activation (ttwu_do_activate), deactivation, __schedule(), the
 * tick, yield and migration, with PELT and EEVDF called in the kernel's order (see the
 * call-order comment in eevdf.h). Every function here runs with the rq lock held. */
#include "toposched/sched.h"

#include <stdlib.h>

#define UPDATE_AVG(avg, sample) ((avg) += ((int64_t)(sample) - (int64_t)(avg)) / 8)

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

static void sub_positive(unsigned long *v, unsigned long d) { *v = *v > d ? *v - d : 0; }

/* update_cfs_rq_load_avg(): fold in the load of tasks that left while we were unlocked
 * (keeping sum >= avg * PELT_MIN_DIVIDER, as the kernel), then age the queue's averages. */
static void update_cfs_rq_load_avg(struct ts_rq *rq, uint64_t now)
{
	struct ts_cfs_rq *cfs = &rq->cfs;
	struct ts_sched_avg *sa = &cfs->avg;
	if (atomic_load_explicit(&rq->removed.nr, memory_order_relaxed)) {
		unsigned long r_load = atomic_exchange(&rq->removed.load_avg, 0);
		unsigned long r_util = atomic_exchange(&rq->removed.util_avg, 0);
		unsigned long r_run = atomic_exchange(&rq->removed.runnable_avg, 0);
		atomic_store(&rq->removed.nr, 0);
		uint32_t divider = ts_pelt_divider(sa);
		sub_positive(&sa->load_avg, r_load);
		sa->load_sum = sa->load_sum > (uint64_t)r_load * divider ? sa->load_sum - (uint64_t)r_load * divider : 0;
		if (sa->load_sum < (uint64_t)sa->load_avg * TS_PELT_MIN_DIVIDER)
			sa->load_sum = (uint64_t)sa->load_avg * TS_PELT_MIN_DIVIDER;
		sub_positive(&sa->util_avg, r_util);
		uint64_t du = (uint64_t)r_util * divider;
		sa->util_sum = sa->util_sum > du ? (uint32_t)(sa->util_sum - du) : 0;
		if (sa->util_sum < (uint64_t)sa->util_avg * TS_PELT_MIN_DIVIDER)
			sa->util_sum = (uint32_t)(sa->util_avg * TS_PELT_MIN_DIVIDER);
		sub_positive(&sa->runnable_avg, r_run);
		uint64_t dr = (uint64_t)r_run * divider;
		sa->runnable_sum = sa->runnable_sum > dr ? sa->runnable_sum - dr : 0;
		if (sa->runnable_sum < (uint64_t)sa->runnable_avg * TS_PELT_MIN_DIVIDER)
			sa->runnable_sum = (uint64_t)sa->runnable_avg * TS_PELT_MIN_DIVIDER;
	}
	ts_update_load_avg_cfs_rq(now, sa, cfs->load.weight, cfs->h_nr_runnable, cfs->curr != NULL);
}

enum { DO_ATTACH = 1, DO_DETACH = 2 };

/* update_load_avg(cfs_rq, se, flags) for a task entity. */
static void update_load_avg(struct ts_rq *rq, struct ts_sched_entity *se, uint64_t now, int flags)
{
	struct ts_cfs_rq *cfs = &rq->cfs;
	if (se->avg.last_update_time)
		ts_update_load_avg_se(now, &se->avg, se->load.weight, se->on_rq, se->on_rq,
				      cfs->curr == se);
	update_cfs_rq_load_avg(rq, now);
	if (!se->avg.last_update_time && (flags & DO_ATTACH))
		ts_attach_entity_load_avg(&cfs->avg, &se->avg, se->load.weight);
	else if (flags & DO_DETACH)
		ts_detach_entity_load_avg(&cfs->avg, &se->avg, se->load.weight);
}

void ts_update_rq_load(struct ts_sched *s, struct ts_rq *rq, uint64_t now)
{
	(void)s;
	if (rq->curr)
		update_load_avg(rq, &rq->curr->se, now, 0);
	else
		update_cfs_rq_load_avg(rq, now);
	rq->last_blocked_load_update = now;
}

/* migrate_task_rq_fair() for a sleeping task woken onto another CPU: its load leaves the
 * old queue through that queue's removed accumulator (we do not hold its lock). */
static void migrate_task_rq(struct ts_sched *s, struct ts_task *p, int new_cpu, uint64_t now)
{
	struct ts_sched_entity *se = &p->se;
	struct ts_rq *old = &s->rq[p->cpu];
	if (se->avg.last_update_time) {
		/* sync_entity_load_avg(): decay to now; one clock serves every rq here. */
		ts_update_load_avg_blocked_se(now, &se->avg, se->load.weight);
		atomic_fetch_add(&old->removed.load_avg, se->avg.load_avg);
		atomic_fetch_add(&old->removed.util_avg, se->avg.util_avg);
		atomic_fetch_add(&old->removed.runnable_avg, se->avg.runnable_avg);
		atomic_fetch_add(&old->removed.nr, 1);
	}
	se->avg.last_update_time = 0; /* attach on the new queue */
	se->exec_start = 0;           /* no longer cache hot */
	p->cpu = new_cpu;
	p->nr_migrations++;
	ts_stat_inc(&s->rq[new_cpu].stats.migrations);
}

/* add_nr_running(): a second runnable task makes the root domain overloaded. */
static void add_nr_running(struct ts_sched *s, struct ts_rq *rq)
{
	rq->nr_running++;
	if (rq->nr_running >= 2 && !atomic_load_explicit(&s->overloaded, memory_order_relaxed))
		atomic_store_explicit(&s->overloaded, true, memory_order_relaxed);
}

static void enqueue_on(struct ts_sched *s, struct ts_rq *rq, struct ts_task *p, uint64_t now,
		       int flags)
{
	ts_update_curr(&rq->cfs, now, s->features);
	update_load_avg(rq, &p->se, now, DO_ATTACH);
	ts_enqueue_task(&rq->cfs, &p->se, now, flags, s->features);
	ts_list_add(&p->cfs_node, &rq->cfs_tasks);
	add_nr_running(s, rq);
	ts_numa_account_enqueue(s, p, rq->cpu); /* account_entity_enqueue() */
	p->state = TS_TASK_RUNNABLE;
}

/* wakeup_preempt(): an idle CPU always reschedules; else EEVDF decides. */
static bool preempt_on(struct ts_sched *s, struct ts_rq *rq, struct ts_task *p, uint64_t now,
		       int wake_flags)
{
	bool resched = rq->curr == NULL ||
		       ts_wakeup_preempt(&rq->cfs, &p->se, now, wake_flags, s->features);
	if (resched)
		s->ops.resched_cpu(s->host, rq->cpu);
	return resched;
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
	enqueue_on(s, rq, p, now, flags);
	/* ttwu_do_activate(): the idle period that just ended feeds avg_idle (newidle
	 * balancing's gate) and SIS_PROP's wake_avg_idle. */
	if (rq->idle_stamp) {
		uint64_t delta = now - rq->idle_stamp, max = 2 * rq->max_idle_balance_cost;
		UPDATE_AVG(rq->avg_idle, delta);
		if (rq->avg_idle > max)
			rq->avg_idle = max;
		atomic_store_explicit(&rq->ro.wake_stamp, now / s->tick_nsec, memory_order_relaxed);
		atomic_store_explicit(&rq->ro.wake_avg_idle, rq->avg_idle / 2, memory_order_relaxed);
		ts_rq_set_idle_stamp(rq, 0);
	}
	bool resched = preempt_on(s, rq, p, now, wake_flags);
	ts_rq_publish(s, rq);
	return resched;
}

/* post_init_entity_util_avg(): a new task starts with half the spare capacity of the
 * queue it lands on, in proportion to its weight. */
static void post_init_entity_util_avg(struct ts_sched *s, struct ts_task *p, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_sched_avg *sa = &p->se.avg;
	long cap = ((long)rq->cpu_capacity - (long)rq->cfs.avg.util_avg) / 2;
	if (cap > 0) {
		if (rq->cfs.avg.util_avg) {
			sa->util_avg = rq->cfs.avg.util_avg * p->se.load.weight /
				       (rq->cfs.avg.load_avg + 1);
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
		ts_for_each_domain(s->dom, waker_cpu, sd) {
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

struct ts_placement ts_wake_up_new_task(struct ts_sched *s, struct ts_task *p, int parent_cpu,
					struct ts_task *parent)
{
	struct ts_placement pl = ts_select_task_rq(s, p, parent_cpu, parent, TS_WF_FORK);
	struct ts_rq *rq = &s->rq[pl.cpu];
	s->ops.rq_lock(s->host, pl.cpu);
	if (p->cpu != pl.cpu) { /* __set_task_cpu(): a new task has no load to move */
		p->cpu = pl.cpu;
		p->recent_used_cpu = pl.cpu;
	}
	uint64_t now = rq_clock(s, rq);
	update_cfs_rq_load_avg(rq, now);
	post_init_entity_util_avg(s, p, pl.cpu);
	enqueue_on(s, rq, p, now, TS_ENQUEUE_INITIAL);
	preempt_on(s, rq, p, now, TS_WF_FORK);
	ts_rq_publish(s, rq);
	s->ops.rq_unlock(s->host, pl.cpu);
	return pl;
}

void ts_deactivate_curr(struct ts_sched *s, int cpu, enum ts_task_state new_state)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *p = rq->curr;
	if (!p || p->state != TS_TASK_RUNNABLE)
		return;
	uint64_t now = rq_clock(s, rq);
	ts_update_curr(&rq->cfs, now, s->features);
	update_load_avg(rq, &p->se, now, 0);
	ts_dequeue_task(&rq->cfs, &p->se, now, TS_DEQUEUE_SLEEP, s->features);
	ts_list_del(&p->cfs_node);
	rq->nr_running--;
	ts_numa_account_dequeue(s, p); /* account_entity_dequeue() */
	p->state = new_state;
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

static struct ts_task *pick_next_fair(struct ts_sched *s, struct ts_rq *rq, uint64_t now)
{
	struct ts_sched_entity *se = ts_pick_next_entity(&rq->cfs, s->features);
	if (!se)
		return NULL;
	/* set_next_entity(): the picked entity's PELT runs up to now as "not yet running" */
	update_load_avg(rq, se, now, 0);
	ts_set_next_entity(&rq->cfs, se, now);
	struct ts_task *p = ts_task_of(se);
	ts_list_move(&p->cfs_node, &rq->cfs_tasks);
	return p;
}

struct ts_task *ts_schedule(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	uint64_t now = rq_clock(s, rq);
	struct ts_task *prev = rq->curr;
	if (prev) {
		ts_update_curr(&rq->cfs, now, s->features);
		if (prev->state == TS_TASK_RUNNABLE)
			update_load_avg(rq, &prev->se, now, 0);
		ts_put_prev_entity(&rq->cfs, &prev->se, now, s->features);
		ts_rq_set_curr(rq, NULL);
	}
	struct ts_task *next = pick_next_fair(s, rq, now);
	if (!next && ts_features_has(s->features, TS_FEAT_NEWIDLE_BALANCE)) {
		ts_rq_set_idle_stamp(rq, now);
		ts_rq_publish(s, rq);
		if (ts_balance_newidle(s, cpu) > 0) {
			now = rq_clock(s, rq);
			next = pick_next_fair(s, rq, now);
		}
	}
	rq->cfs.resched = false;
	ts_rq_set_curr(rq, next);
	if (next) {
		ts_rq_set_idle_stamp(rq, 0);
	} else {
		if (!rq->idle_stamp)
			ts_rq_set_idle_stamp(rq, now);
		update_cfs_rq_load_avg(rq, now);
	}
	ts_rq_publish(s, rq);
	if (!next)
		update_idle_core(s, cpu);
	return next;
}

bool ts_sched_tick(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	uint64_t now = rq_clock(s, rq);
	if (rq->curr) {
		struct ts_update_curr_result r = ts_update_curr(&rq->cfs, now, s->features);
		update_load_avg(rq, &rq->curr->se, now, 0);
		if ((r.resched || rq->cfs.resched) && rq->nr_running > 1)
			s->ops.resched_cpu(s->host, cpu);
	} else {
		update_cfs_rq_load_avg(rq, now); /* blocked-load decay of an idle CPU */
	}
	rq->last_blocked_load_update = now;
	ts_rq_publish(s, rq);
	return now >= rq->next_balance;
}

void ts_yield_task(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	struct ts_task *p = rq->curr;
	if (!p || rq->nr_running <= 1)
		return;
	uint64_t now = rq_clock(s, rq);
	rq->cfs.next = rq->cfs.next == &p->se ? NULL : rq->cfs.next; /* clear_buddies() */
	ts_update_curr(&rq->cfs, now, s->features);
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
	ts_update_curr(&src->cfs, now, s->features);
	update_load_avg(src, &p->se, now, DO_DETACH);
	ts_dequeue_task(&src->cfs, &p->se, now, 0, s->features);
	ts_list_del(&p->cfs_node);
	src->nr_running--;
	ts_numa_account_dequeue(s, p); /* account_entity_dequeue() */
	p->se.avg.last_update_time = 0;
	p->se.exec_start = 0;
	p->cpu = dst_cpu;
	p->nr_migrations++;
	ts_stat_inc(&dst->stats.migrations);
	ts_rq_publish(s, src);
	/* attach_task() */
	enqueue_on(s, dst, p, now, TS_ENQUEUE_MIGRATED);
	preempt_on(s, dst, p, now, 0);
	ts_rq_publish(s, dst);
}
