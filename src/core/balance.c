/* Load balancing, after kernel/sched/fair.c (v6.6 .. v6.12): periodic balancing
 * (sched_balance_domains), newly-idle balancing (sched_balance_newidle), the balancer
 * itself (sched_balance_rq, once load_balance) with the detach and attach of tasks, and
 * SIS_UTIL's update_idle_cpu_scan. The busiest-group search, with its statistics,
 * classification and imbalance computation, is in balance_busiest.c; the fork/exec slow
 * path (sched_balance_find_dst_cpu, once find_idlest_cpu) in balance_fork.c.
 *
 * Locking. The statistics of other CPUs are read lock-free from their rq's `ro` block,
 * as the kernel reads them without their locks. Tasks are moved with both run queues
 * locked, lower CPU id first (double_rq_lock order), because ts_move_queued_task() detaches
 * and attaches in one step where the kernel detaches under the source lock and attaches
 * under the destination lock. ts_balance_tick() is entered with no lock held;
 * ts_balance_newidle() is entered with its CPU's lock held, drops it for the walk (the
 * kernel's newidle path drops this_rq's lock too) and returns with it held again.
 * A CPU's domain balance state (balance_interval, nr_balance_failed, last_balance,
 * max_newidle_lb_cost) is touched only from that CPU's own tick and schedule, which the
 * host never runs at the same time (the kernel's softirq/schedule rule); the rq fields
 * that remote wakers read under the lock (next_balance, max_idle_balance_cost) are written
 * under it.
 *
 * Active balancing (a task running on the busiest CPU pushed by that CPU's stopper) needs
 * the host's stop_one_cpu; without it (the runtime) a running task is never pushed. Of
 * need_active_balance() only the imbalanced case applies here (see need_active_balance()),
 * and before v5.12 any repeated failure (s->kernel, kernel_profile.h).
 *
 * Left out, relative to the kernel: misfit tasks (no per-task fit tracking) and asym
 * packing (no CPU priorities), update_group_capacity()
 * (capacities never change here), EAS/overutilisation, util_est, LB_MIN, nohz idle
 * balancing (the host ticks every CPU), NI_RANDOM. */
#include <limits.h>
#include <stdlib.h>

#include "balance.h"
#include "rq_pelt.h"

#define LBF_ALL_PINNED	0x01
#define LBF_NEED_BREAK	0x02
#define LBF_DST_PINNED	0x04
#define LBF_SOME_PINNED 0x08
#define LBF_ACTIVE_LB	0x10

#define SCHED_NR_MIGRATE_BREAK 32
#define MAX_PINNED_INTERVAL    512 /* ms */

static inline uint64_t jiffies_of(struct ts_sched *s)
{
	return s->ops.clock(s->host) / s->tick_nsec;
}

/* time_after(a, b) on jiffies */
static inline bool time_after(uint64_t a, uint64_t b)
{
	return (int64_t)(b - a) < 0;
}
static inline bool time_after_eq(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) >= 0;
}

/* sgc->imbalance: see sgc_imbalance() in balance.h. */
static inline void set_sgc_imbalance(struct ts_sched_group_capacity *sgc, int v)
{
	__atomic_store_n(&sgc->imbalance, v, __ATOMIC_RELAXED);
}

/* double_rq_lock(): lower CPU id first. */
static void double_rq_lock(struct ts_sched *s, int a, int b)
{
	if (a == b) {
		s->ops.rq_lock(s->host, a);
		return;
	}
	s->ops.rq_lock(s->host, a < b ? a : b);
	s->ops.rq_lock(s->host, a < b ? b : a);
}
static void double_rq_unlock(struct ts_sched *s, int a, int b)
{
	s->ops.rq_unlock(s->host, a);
	if (a != b)
		s->ops.rq_unlock(s->host, b);
}

/* The SMT siblings of cpu (cpu_smt_mask), NULL when it has none. */
static const struct ts_cpumask *smt_mask(struct ts_sched *s, int cpu)
{
	struct ts_sched_domain *sd = s->dom->cpu[cpu].sd;
	if (sd && (sd->flags & TS_SD_SHARE_CPUCAPACITY))
		return sd->span;
	return NULL;
}

static bool is_core_idle(struct ts_sched *s, int cpu)
{
	const struct ts_cpumask *smt = smt_mask(s, cpu);
	int sibling;
	if (!smt)
		return true;
	ts_for_each_cpu(sibling, smt)
	{
		if (sibling != cpu && !ts_idle_cpu(s, sibling))
			return false;
	}
	return true;
}

/* ---- moving tasks ---- */

static int task_hot(struct ts_task *p, struct lb_env *env)
{
	struct ts_sched *s = env->s;
	struct ts_rq *src = &s->rq[env->src_cpu], *dst = &s->rq[env->dst_cpu];
	if (env->sd->flags & TS_SD_SHARE_CPUCAPACITY)
		return 0; /* SMT siblings share cache */
	/* cfs_rq_of(&p->se)->next, or ->last (set by the CFS pick only, as v6.1 checks) */
	if (ts_features_has(s->features, TS_FEAT_CACHE_HOT_BUDDY) && dst->nr_running &&
	    (p->se.cfs_rq->next == &p->se || p->se.cfs_rq->last == &p->se))
		return 1;
	int64_t delta = (int64_t)(src->clock - p->se.exec_start);
	return delta < (int64_t)TS_SCHED_MIGRATION_COST_NS;
}

static bool can_migrate_task(struct ts_task *p, struct lb_env *env)
{
	struct ts_sched *s = env->s;
	struct ts_rq *src = &s->rq[env->src_cpu];

	if (p->percpu_kthread)
		return false;
	if (!ts_task_allowed(p, env->dst_cpu)) {
		env->flags |= LBF_SOME_PINNED;
		/* Remember another CPU of our group where it could run, to retry there. */
		if (env->idle == TS_CPU_NEWLY_IDLE ||
		    (env->flags & (LBF_DST_PINNED | LBF_ACTIVE_LB)))
			return false;
		int cpu;
		ts_for_each_cpu_and(cpu, env->dst_grpmask, env->cpus)
		{
			if (ts_task_allowed(p, cpu)) {
				env->flags |= LBF_DST_PINNED;
				env->new_dst_cpu = cpu;
				break;
			}
		}
		return false;
	}
	env->flags &= ~(unsigned)LBF_ALL_PINNED;
	if (src->curr == p)
		return false;
	if (env->flags & LBF_ACTIVE_LB) /* the stopper pushes whatever may go */
		return true;
	/* Aggressive migration if the destination is the preferred node, the task is cache
	 * cold, or too many balance attempts have failed. At NUMA levels locality replaces
	 * the cache-hot test unless it does not decide (-1). */
	int hot = ts_numa_migrate_degrades_locality(s, p, env->sd, env->src_cpu, env->dst_cpu,
						    env->idle);
	if (hot == -1)
		hot = task_hot(p, env);
	if (hot <= 0 || env->sd->nr_balance_failed > env->sd->cache_nice_tries) {
		if (hot == 1)
			ts_stat_inc(&env->sd->stats.lb_hot_gained[env->idle]);
		return true;
	}
	return false;
}

static inline unsigned long shr_bound(unsigned long val, unsigned int shift)
{
	return val >> (shift < 63 ? shift : 63);
}

/* detach_tasks(): would moving a task of this load exceed the imbalance? The load shifted
 * right by the level's failed balances (5a7f55590467, v5.10); before, half the load, and
 * only until the failures passed cache_nice_tries (6cf82d559e1a, v5.5); in v5.4, half the
 * load whatever the failures. */
static bool too_much_load(const struct lb_env *env, unsigned long load)
{
	const struct ts_sched_domain *sd = env->sd;
	const struct ts_kernel_profile *k = &env->s->kernel;
	if (k->detach_load_shift)
		return (long)shr_bound(load, sd->nr_balance_failed) > env->imbalance;
	if (!k->lb_group_types)
		return (long)(load / 2) > env->imbalance;
	return (long)(load / 2) > env->imbalance && sd->nr_balance_failed <= sd->cache_nice_tries;
}

/* ... of this utilisation: shifted likewise from v6.8 (3af7524b1419), as is before. */
static bool too_much_util(const struct lb_env *env, unsigned long util)
{
	if (env->s->kernel.detach_util_shift)
		util = shr_bound(util, env->sd->nr_balance_failed);
	return (long)util > env->imbalance;
}

/* detach_tasks() + attach_tasks(), with src and dst both locked. */
static int detach_tasks(struct lb_env *env)
{
	struct ts_sched *s = env->s;
	struct ts_rq *src = &s->rq[env->src_cpu];
	struct ts_list_head *tasks = &src->cfs_tasks;
	int detached = 0;

	if (src->nr_running <= 1) {
		env->flags &= ~(unsigned)LBF_ALL_PINNED;
		return 0;
	}
	if (env->imbalance <= 0)
		return 0;

	while (!ts_list_empty(tasks)) {
		/* Don't steal everything: we might be treated likewise. */
		if (env_idle(env) && src->nr_running <= 1)
			break;
		env->loop++;
		if (env->loop > env->loop_max)
			break;
		if (env->loop > env->loop_break) {
			env->loop_break += SCHED_NR_MIGRATE_BREAK;
			env->flags |= LBF_NEED_BREAK;
			break;
		}
		struct ts_task *p = ts_task_of_cfs_node(tasks->prev); /* least recently picked */
		if (!can_migrate_task(p, env))
			goto next;

		switch (env->migration_type) {
		case migrate_load: {
			unsigned long load = ts_task_h_load_of(s, p);
			if (!load) /* task_h_load() can be 0 deep in a hierarchy */
				load = 1;
			if (too_much_load(env, load))
				goto next;
			env->imbalance -= (long)load;
			break;
		}
		case migrate_util: {
			unsigned long util =
				p->se.avg.util_avg; /* task_util_est() without util_est */
			if (too_much_util(env, util))
				goto next;
			env->imbalance -= (long)util;
			break;
		}
		case migrate_task:
			env->imbalance--;
			break;
		case migrate_misfit:
			goto next;
		}

		ts_move_queued_task(s, p, env->src_cpu, env->dst_cpu);
		detached++;
		/* Newly-idle balancing stops after one task (CONFIG_PREEMPTION kernels). */
		if (env->idle == TS_CPU_NEWLY_IDLE)
			break;
		if (env->imbalance <= 0)
			break;
		continue;
	next:
		ts_list_move(&p->cfs_node, tasks);
	}
	ts_stat_add(&env->sd->stats.lb_gained[env->idle], (uint64_t)detached);
	return detached;
}

/* should_we_balance(): one CPU per group balances at this level: the first idle core's
 * CPU, else the first idle SMT thread (v6.6; before, the first idle CPU), else the group's
 * balance CPU. */
static bool should_we_balance(struct lb_env *env)
{
	struct ts_sched *s = env->s;
	struct ts_sched_group *sg = env->sd->groups[0];
	int cpu, idle_smt = -1;

	if (!ts_cpumask_test(env->cpus, env->dst_cpu))
		return false;
	if (env->idle == TS_CPU_NEWLY_IDLE) {
		if (!s->kernel.newidle_swb_bail) /* before v6.0: every level */
			return true;
		struct ts_rq *dst = &s->rq[env->dst_cpu];
		if (atomic_load_explicit(&dst->ro.nr_running, memory_order_relaxed) > 0 ||
		    atomic_load_explicit(&dst->ro.ttwu_pending, memory_order_relaxed))
			return false;
		return true;
	}
	ts_cpumask_copy(env->swb_cpus, sg->balance_mask);
	ts_for_each_cpu_and(cpu, env->swb_cpus, env->cpus)
	{
		if (!ts_idle_cpu(s, cpu))
			continue;
		if (s->kernel.swb_idle_core && !(env->sd->flags & TS_SD_SHARE_CPUCAPACITY) &&
		    !is_core_idle(s, cpu)) {
			if (idle_smt == -1)
				idle_smt = cpu;
			const struct ts_cpumask *smt = smt_mask(s, cpu);
			if (smt)
				ts_cpumask_andnot(env->swb_cpus, env->swb_cpus, smt);
			continue;
		}
		return cpu == env->dst_cpu;
	}
	if (idle_smt != -1)
		return idle_smt == env->dst_cpu;
	return ts_group_balance_cpu(sg) == env->dst_cpu;
}

struct lb_masks {
	struct ts_cpumask *cpus, *swb;
};

/* need_active_balance(): of its cases only imbalanced_active_balance() can hold here: an
 * even spread of tasks (migrate_task) that periodic balancing failed to reach more than
 * cache_nice_tries + 2 times in a row, because what would have to move is running. The
 * others need asym packing, misfit tasks or reduced capacities, which the core does not
 * have. Before v5.12 (e9b9734b7465) any imbalance qualified. */
static bool need_active_balance(const struct lb_env *env)
{
	return (env->migration_type == migrate_task || !env->s->kernel.active_balance_task_only) &&
	       env->sd->nr_balance_failed > env->sd->cache_nice_tries + 2;
}

/* sched_balance_rq()'s active balance: queue a push of busiest's running task to this
 * CPU on busiest's stopper, once (busiest->active_balance). False when busiest's task may
 * not run here (out_one_pinned). No rq lock held. */
static bool queue_active_balance(struct ts_sched *s, struct lb_env *env, int busiest, bool *pushing)
{
	struct ts_rq *rq = &s->rq[busiest];
	bool queue = false;
	s->ops.rq_lock(s->host, busiest);
	if (rq->curr && !ts_task_allowed(rq->curr, env->dst_cpu)) {
		s->ops.rq_unlock(s->host, busiest);
		return false;
	}
	env->flags &= ~(unsigned)LBF_ALL_PINNED;
	if (!rq->active_balance) {
		rq->active_balance = true;
		rq->push_cpu = env->dst_cpu;
		queue = true;
	}
	s->ops.rq_unlock(s->host, busiest);
	if (queue)
		s->ops.stop_one_cpu(s->host, busiest);
	*pushing = queue;
	return true;
}

/* load_balance()'s env for balancing sd on dst_cpu: cpus (load_balance_mask) is the
 * domain's span within the scheduler's CPUs. */
static struct lb_env lb_env_of(struct ts_sched *s, struct ts_sched_domain *sd, int dst_cpu,
			       enum ts_idle_type idle, struct ts_cpumask *cpus)
{
	ts_cpumask_and(cpus, sd->span, s->dom->cpu_map);
	return (struct lb_env){
		.s = s,
		.sd = sd,
		.dst_cpu = dst_cpu,
		.dst_grpmask = sd->groups[0]->balance_mask,
		.idle = idle,
		.cpus = cpus,
		.migration_type = migrate_load,
		.fbq_type = all,
	};
}

/* sched_balance_rq(), once load_balance(): returns the number of tasks pulled to this_cpu
 * (or to another CPU of its group after an affinity retry). No rq lock held. */
static int sched_balance_rq(struct ts_sched *s, int this_cpu, struct ts_sched_domain *sd,
			    enum ts_idle_type idle, bool *continue_balancing, struct lb_masks *m)
{
	struct ts_sched_domain *sd_parent = sd->parent;
	int ld_moved = 0;
	bool pushing = false; /* this pass queued a push (the kernel's active_balance) */
	struct lb_env env = lb_env_of(s, sd, this_cpu, idle, m->cpus);
	env.loop_break = SCHED_NR_MIGRATE_BREAK;
	env.swb_cpus = m->swb;
	ts_stat_inc(&sd->stats.lb_count[idle]);

redo:
	if (!should_we_balance(&env)) {
		*continue_balancing = false;
		goto out_balanced;
	}
	struct ts_sched_group *group = ts_find_busiest_group(&env);
	if (!group) {
		ts_stat_inc(&sd->stats.lb_nobusyg[idle]);
		goto out_balanced;
	}
	int busiest = ts_find_busiest_queue(&env, group);
	if (busiest < 0) {
		ts_stat_inc(&sd->stats.lb_nobusyq[idle]);
		goto out_balanced;
	}
	ts_stat_add(&sd->stats.lb_imbalance[idle], (uint64_t)env.imbalance);
	env.src_cpu = busiest;
	ld_moved = 0;
	env.flags |= LBF_ALL_PINNED;
	if (ts_rq_nr_running(s, busiest) > 1) {
		unsigned int nr = ts_rq_nr_running(s, busiest);
		env.loop_max = nr < TS_SCHED_NR_MIGRATE ? nr : TS_SCHED_NR_MIGRATE;
	more_balance:
		double_rq_lock(s, env.dst_cpu, env.src_cpu);
		rq_clock(s, &s->rq[env.src_cpu]); /* update_rq_clock(busiest) */
		ld_moved += detach_tasks(&env);
		double_rq_unlock(s, env.dst_cpu, env.src_cpu);

		if (env.flags & LBF_NEED_BREAK) {
			env.flags &= ~(unsigned)LBF_NEED_BREAK;
			goto more_balance;
		}
		/* Tasks that could not come to dst_cpu for affinity: try another CPU of our
		 * group where they can run, with the same source. */
		if ((env.flags & LBF_DST_PINNED) && env.imbalance > 0) {
			ts_cpumask_clear_cpu(env.cpus, env.dst_cpu);
			env.dst_cpu = env.new_dst_cpu;
			env.flags &= ~(unsigned)LBF_DST_PINNED;
			env.loop = 0;
			env.loop_break = SCHED_NR_MIGRATE_BREAK;
			goto more_balance;
		}
		/* Affinity kept us from balancing: tell the parent level. */
		if (sd_parent && (env.flags & LBF_SOME_PINNED) && env.imbalance > 0)
			set_sgc_imbalance(sd_parent->groups[0]->sgc, 1);
		if (env.flags & LBF_ALL_PINNED) {
			ts_cpumask_clear_cpu(env.cpus, busiest);
			/* Retry only if some possible source remains outside our group. */
			if (!ts_cpumask_subset(env.cpus, env.dst_grpmask)) {
				env.loop = 0;
				env.loop_break = SCHED_NR_MIGRATE_BREAK;
				goto redo;
			}
			goto out_all_pinned;
		}
	}

	if (!ld_moved) {
		ts_stat_inc(&sd->stats.lb_failed[idle]);
		/* Only periodic balancing counts failures (newidle is too frequent). */
		if (idle != TS_CPU_NEWLY_IDLE)
			sd->nr_balance_failed++;
		if (s->ops.stop_one_cpu && need_active_balance(&env)) {
			if (!queue_active_balance(s, &env, busiest, &pushing))
				goto out_one_pinned;
			/* Before v5.13 (23fb06d9602b): "We've kicked active balancing, force
			 * task migration." */
			if (!s->kernel.active_lb_flag)
				sd->nr_balance_failed = sd->cache_nice_tries + 1;
		}
	} else {
		sd->nr_balance_failed = 0;
	}
	if (pushing && !s->kernel.active_balance_task_only) {
		/* Before v5.12: "If we've begun active balancing, start to back off." */
		if (sd->balance_interval < sd->max_interval)
			sd->balance_interval *= 2;
	} else {
		/* We were unbalanced: reset the balancing interval. */
		sd->balance_interval = sd->min_interval;
	}
	return ld_moved;

out_balanced:
	/* Balanced, possibly despite affinity: clear the parent's imbalance flag only if
	 * other tasks got a chance to move. */
	if (sd_parent && !(env.flags & LBF_ALL_PINNED)) {
		struct ts_sched_group_capacity *sgc = sd_parent->groups[0]->sgc;
		if (sgc_imbalance(sgc))
			set_sgc_imbalance(sgc, 0);
	}
out_all_pinned:
	ts_stat_inc(&sd->stats.lb_balanced[idle]);
	sd->nr_balance_failed = 0;
out_one_pinned:
	/* Newly-idle balancing ignores intervals; don't let it inflate them. */
	if (env.idle == TS_CPU_NEWLY_IDLE)
		return 0;
	if (((env.flags & LBF_ALL_PINNED) && sd->balance_interval < MAX_PINNED_INTERVAL) ||
	    sd->balance_interval < sd->max_interval)
		sd->balance_interval *= 2;
	return 0;
}

/* ---- active balancing ---- */

struct ts_task *ts_active_load_balance_cpu_stop(struct ts_sched *s, int busiest_cpu)
{
	struct ts_rq *busiest = &s->rq[busiest_cpu];
	s->ops.rq_lock(s->host, busiest_cpu);
	int target_cpu = busiest->push_cpu;
	bool queued = busiest->active_balance;
	s->ops.rq_unlock(s->host, busiest_cpu);
	if (!queued)
		return NULL;
	double_rq_lock(s, busiest_cpu, target_cpu);
	struct ts_task *moved = NULL;
	/* The stopper runs: the task it preempted goes back into its queue, and the CPU
	 * picks again once the stop work is done. */
	struct ts_task *curr = busiest->curr;
	if (curr) {
		uint64_t now = rq_clock(s, busiest);
		ts_update_rq_load(s, busiest, now);
		ts_put_prev_task(s, busiest_cpu);
		s->ops.resched_cpu(s->host, busiest_cpu);
	}
	/* "Is there any task to move?" (the kernel's nr_running counts the stopper too) */
	struct ts_sched_domain *sd = NULL, *tmp;
	if (busiest->nr_running >= 1 && target_cpu != busiest_cpu)
		ts_for_each_domain(s->dom, target_cpu, tmp)
		{
			if (ts_cpumask_test(tmp->span, busiest_cpu)) {
				sd = tmp; /* the lowest domain of target spanning busiest */
				break;
			}
		}
	if (sd) {
		struct lb_env env = {
			.s = s,
			.sd = sd,
			.dst_cpu = target_cpu,
			.src_cpu = busiest_cpu,
			.idle = TS_CPU_IDLE,
			/* before v5.13 the stopper's env lied about DST_PINNED and its move
			 * passed task_hot() through nr_balance_failed */
			.flags = s->kernel.active_lb_flag ? LBF_ACTIVE_LB : LBF_DST_PINNED,
		};
		rq_clock(s, busiest); /* update_rq_clock(busiest_rq) */
		ts_stat_inc(&sd->stats.alb_count);
		/* detach_one_task(): the least recently picked task that may go */
		struct ts_list_head *tasks = &busiest->cfs_tasks;
		for (struct ts_list_head *n = tasks->prev; n != tasks; n = n->prev) {
			struct ts_task *p = ts_task_of_cfs_node(n);
			if (!can_migrate_task(p, &env))
				continue;
			ts_move_queued_task(s, p, busiest_cpu, target_cpu);
			ts_stat_inc(&sd->stats.lb_gained[TS_CPU_IDLE]);
			moved = p;
			break;
		}
		if (moved) {
			ts_stat_inc(&sd->stats.alb_pushed);
			sd->nr_balance_failed = 0; /* active balancing done */
		} else {
			ts_stat_inc(&sd->stats.alb_failed);
		}
	}
	busiest->active_balance = false;
	double_rq_unlock(s, busiest_cpu, target_cpu);
	return moved;
}

/* ---- periodic balancing ---- */

/* get_sd_balance_interval(), in jiffies. */
static uint64_t get_sd_balance_interval(struct ts_sched *s, const struct ts_sched_domain *sd,
					bool cpu_busy)
{
	uint64_t interval = sd->balance_interval;
	if (cpu_busy)
		interval *= sd->busy_factor;
	interval = (interval * s->hz + 999) / 1000; /* msecs_to_jiffies() */
	/* keep levels from being multiples of each other (v5.10+) */
	if (cpu_busy && interval && s->kernel.busy_interval_offset)
		interval -= 1;
	uint64_t max = s->max_load_balance_interval_ns / s->tick_nsec;
	if (max < 1)
		max = 1;
	if (interval < 1)
		interval = 1;
	if (interval > max)
		interval = max;
	return interval;
}

/* update_newidle_cost(): track the max cost; decay it by ~1% per second. Returns true
 * when it decayed. Before v5.16 only the tick's visit (cost 0) calls it, so the decay
 * comes every second whatever the last rise (rebalance_domains()' next_decay_max_lb_cost). */
static bool update_newidle_cost(struct ts_sched *s, struct ts_sched_domain *sd, uint64_t cost)
{
	uint64_t jiffies = jiffies_of(s);
	if (cost > sd->max_newidle_lb_cost) {
		sd->max_newidle_lb_cost = cost;
		sd->last_decay_max_lb_cost = jiffies;
	} else if (time_after(jiffies, sd->last_decay_max_lb_cost + s->hz)) {
		sd->max_newidle_lb_cost = sd->max_newidle_lb_cost * 253 / 256;
		sd->last_decay_max_lb_cost = jiffies;
		return true;
	}
	return false;
}

/* find_busiest_group() as busy periodic balancing of sd would run it now on cpu, without
 * moving anything or writing any statistic, SIS_UTIL budget or root-domain flag. */
bool ts_balance_finds_imbalance(struct ts_sched *s, int cpu, struct ts_sched_domain *sd,
				struct ts_cpumask *scratch)
{
	struct lb_env env = lb_env_of(s, sd, cpu, TS_CPU_NOT_IDLE, scratch);
	env.dry_run = true;
	return ts_find_busiest_group(&env) != NULL;
}

/* The balancing CPU's scratch masks (balance for one CPU never runs twice at once). */
static struct lb_masks lb_masks_of(struct ts_sched *s, int cpu)
{
	return (struct lb_masks){.cpus = s->lb_cpus[cpu], .swb = s->lb_swb[cpu]};
}

void ts_balance_tick(struct ts_sched *s, int cpu)
{
	struct ts_rq *rq = &s->rq[cpu];
	enum ts_idle_type idle = ts_idle_cpu(s, cpu) ? TS_CPU_IDLE : TS_CPU_NOT_IDLE;
	bool busy = idle != TS_CPU_IDLE;
	bool continue_balancing = true;
	bool update_next_balance = false, need_decay = false;
	uint64_t next_balance = jiffies_of(s) + 60 * (uint64_t)s->hz;
	uint64_t max_cost = 0;
	struct ts_sched_domain *sd;
	struct lb_masks m = lb_masks_of(s, cpu);

	ts_for_each_domain(s->dom, cpu, sd)
	{
		/* A regular visit to every domain: decay the newidle costs here. */
		need_decay = update_newidle_cost(s, sd, 0);
		max_cost += sd->max_newidle_lb_cost;
		if (!continue_balancing) {
			if (need_decay)
				continue;
			break;
		}
		uint64_t interval = get_sd_balance_interval(s, sd, busy);
		/* SD_SERIALIZE: one CPU at a time balances the NUMA levels (a trylock). */
		bool need_serialize = sd->flags & TS_SD_SERIALIZE;
		int unlocked = 0;
		if (need_serialize && !atomic_compare_exchange_strong_explicit(
					      &s->sched_balance_running, &unlocked, 1,
					      memory_order_acquire, memory_order_relaxed))
			goto out;
		uint64_t jiffies = jiffies_of(s);
		if (time_after_eq(jiffies, sd->last_balance + interval)) {
			if (sched_balance_rq(s, cpu, sd, idle, &continue_balancing, &m)) {
				/* LBF_DST_PINNED may have moved tasks elsewhere: re-read. */
				idle = ts_idle_cpu(s, cpu) ? TS_CPU_IDLE : TS_CPU_NOT_IDLE;
				busy = idle != TS_CPU_IDLE;
			}
			sd->last_balance = jiffies_of(s);
			interval = get_sd_balance_interval(s, sd, busy);
		}
		if (need_serialize)
			atomic_store_explicit(&s->sched_balance_running, 0, memory_order_release);
	out:
		if (time_after(next_balance, sd->last_balance + interval)) {
			next_balance = sd->last_balance + interval;
			update_next_balance = true;
		}
	}
	s->ops.rq_lock(s->host, cpu);
	if (need_decay) {
		/* The rq-wide value decays too, with a floor. */
		rq->max_idle_balance_cost = max_cost > TS_SCHED_MIGRATION_COST_NS
						    ? max_cost
						    : TS_SCHED_MIGRATION_COST_NS;
	}
	if (update_next_balance)
		rq->next_balance = next_balance * s->tick_nsec;
	s->ops.rq_unlock(s->host, cpu);
}

/* ---- newly-idle balancing ---- */

static void update_next_balance_of(struct ts_sched *s, struct ts_sched_domain *sd,
				   uint64_t *next_balance)
{
	uint64_t next = sd->last_balance + get_sd_balance_interval(s, sd, false);
	if (time_after(*next_balance, next))
		*next_balance = next;
}

/* Before v6.0 the newly-idle walk's own stop: a task on this rq, or (v5.13+) a wake-up
 * pending for it. From v6.0 should_we_balance() stops the walk instead. */
static bool newidle_has_work(struct ts_sched *s, const struct ts_rq *rq)
{
	if (s->kernel.newidle_swb_bail)
		return false;
	return atomic_load_explicit(&rq->ro.nr_running, memory_order_relaxed) > 0 ||
	       (s->kernel.newidle_ttwu_pending &&
		atomic_load_explicit(&rq->ro.ttwu_pending, memory_order_relaxed));
}

int ts_balance_newidle(struct ts_sched *s, int cpu)
{
	struct ts_rq *this_rq = &s->rq[cpu];
	uint64_t next_balance = jiffies_of(s) + s->hz;
	uint64_t curr_cost = 0;
	bool continue_balancing = true;
	int pulled_task = 0;
	struct ts_sched_domain *sd = s->dom->cpu[cpu].sd;

	if (s->kernel.newidle_ttwu_pending &&
	    atomic_load_explicit(&this_rq->ro.ttwu_pending, memory_order_relaxed))
		return 0;
	/* Set before balancing, so that this time counts as idle. */
	ts_rq_set_idle_stamp(this_rq, rq_clock(s, this_rq));

	/* v5.16+ (9d783c8dd112, c5b0a7eefc70): no walk that the first level's cost would not
	 * fit in avg_idle; before, none while avg_idle < sysctl_sched_migration_cost. */
	bool too_short = s->kernel.newidle_cost_gate
				 ? sd && this_rq->avg_idle < sd->max_newidle_lb_cost
				 : this_rq->avg_idle < TS_SCHED_MIGRATION_COST_NS;
	if (!atomic_load_explicit(&s->overloaded, memory_order_relaxed) || too_short) {
		if (sd)
			update_next_balance_of(s, sd, &next_balance);
		goto out;
	}

	struct lb_masks m = lb_masks_of(s, cpu);
	uint64_t avg_idle = this_rq->avg_idle;
	s->ops.rq_unlock(s->host, cpu);

	uint64_t t0 = s->ops.clock(s->host);
	for (; sd; sd = sd->parent) {
		update_next_balance_of(s, sd, &next_balance);
		if (avg_idle < curr_cost + sd->max_newidle_lb_cost)
			break;
		if (sd->flags & TS_SD_BALANCE_NEWIDLE) {
			pulled_task = sched_balance_rq(s, cpu, sd, TS_CPU_NEWLY_IDLE,
						       &continue_balancing, &m);
			uint64_t t1 = s->ops.clock(s->host);
			uint64_t domain_cost = t1 > t0 ? t1 - t0 : 0;
			if (s->ops.newidle_time) /* a modelled machine: its pass's time */
				domain_cost = s->ops.newidle_time(s->host, cpu, t0);
			/* before v5.16 the walk only raised the maximum */
			if (s->kernel.newidle_cost_gate)
				update_newidle_cost(s, sd, domain_cost);
			else if (domain_cost > sd->max_newidle_lb_cost)
				sd->max_newidle_lb_cost = domain_cost;
			curr_cost += domain_cost;
			t0 = t1;
		}
		/* Stop once this rq has something to run: should_we_balance() sees it from
		 * v6.0 (792b9f65a568), this walk did before. */
		if (pulled_task || !continue_balancing || newidle_has_work(s, this_rq))
			break;
	}

	s->ops.rq_lock(s->host, cpu);
	/* A modelled machine ran the walk in no time: remember how long the kernel's would
	 * have left this rq unlocked with idle_stamp set (ts_activate_task()). */
	if (s->ops.newidle_time) {
		this_rq->newidle_stamp = this_rq->idle_stamp;
		this_rq->newidle_until = this_rq->idle_stamp + curr_cost;
	}
	if (curr_cost > this_rq->max_idle_balance_cost)
		this_rq->max_idle_balance_cost = curr_cost;
	/* A task may have been enqueued while we were unlocked: we are not going idle. */
	if (this_rq->nr_running && !pulled_task)
		pulled_task = 1;

out:
	if (time_after(this_rq->next_balance, next_balance * s->tick_nsec))
		this_rq->next_balance = next_balance * s->tick_nsec;
	if (pulled_task)
		ts_rq_set_idle_stamp(this_rq, 0);
	return pulled_task;
}

/* ---- SIS_UTIL ---- */

void ts_update_idle_cpu_scan(struct ts_sched *s, int cpu, unsigned long sum_util)
{
	if (!ts_features_has(s->features, TS_FEAT_SIS_UTIL))
		return;
	const struct ts_cpu_domains *cd = &s->dom->cpu[cpu];
	struct ts_sched_domain_shared *sd_share = cd->sd_llc_shared;
	if (!cd->sd_llc || !sd_share || cd->sd_llc_size <= 0)
		return;
	/* y = 1024 - x^2 * pct^2 / (10000 * 1024), x = average util of the LLC's CPUs;
	 * nr_idle_scan = y * llc_weight / 1024: 0 once x reaches 1024 * 100 / pct. */
	uint64_t llc_weight = (uint64_t)cd->sd_llc_size;
	uint64_t pct = cd->sd_llc->imbalance_pct;
	uint64_t x = sum_util / llc_weight;
	uint64_t tmp = x * x * pct * pct / (10000 * TS_CAPACITY_SCALE);
	if (tmp > TS_CAPACITY_SCALE)
		tmp = TS_CAPACITY_SCALE;
	uint64_t y = (TS_CAPACITY_SCALE - tmp) * llc_weight / TS_CAPACITY_SCALE;
	ts_stat_inc(&s->rq[cpu].stats.nr_idle_scan_updates);
	/* The line is shared by the whole LLC: write only on change. */
	if ((int)y != atomic_load_explicit(&sd_share->nr_idle_scan, memory_order_relaxed))
		atomic_store_explicit(&sd_share->nr_idle_scan, (int)y, memory_order_relaxed);
}
