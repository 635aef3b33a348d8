/* Load balancing, after kernel/sched/fair.c (v6.6 .. v6.12): periodic balancing
 * (sched_balance_domains), newly-idle balancing (sched_balance_newidle), the balancer
 * itself (sched_balance_rq, once load_balance) with its statistics, classification and
 * imbalance computation, SIS_UTIL's update_idle_cpu_scan, and the fork/exec slow path
 * (sched_balance_find_dst_cpu, once find_idlest_cpu).
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
 * Left out, relative to the kernel: misfit tasks (no per-task fit tracking) and asym
 * packing (no CPU priorities), active balancing (no stopper: a task running on the busiest
 * CPU is never pushed), update_group_capacity()
 * (capacities never change here), EAS/overutilisation, util_est, LB_MIN, nohz idle
 * balancing (the host ticks every CPU), NI_RANDOM. */
#include "toposched/sched.h"

#include <limits.h>
#include <stdlib.h>

enum group_type {
	group_has_spare,
	group_fully_busy,
	group_misfit_task,
	group_smt_balance,
	group_asym_packing,
	group_imbalanced,
	group_overloaded,
};

enum migration_type { migrate_load, migrate_util, migrate_task, migrate_misfit };

/* NUMA balancing's classes of groups and run queues (fbq_type), best placed last:
 * regular: some tasks have no preferred node; remote: some are off their preferred
 * node; all: no distinction. */
enum fbq_type { regular, remote, all };

#define LBF_ALL_PINNED	0x01
#define LBF_NEED_BREAK	0x02
#define LBF_DST_PINNED	0x04
#define LBF_SOME_PINNED 0x08

#define SCHED_NR_MIGRATE_BREAK 32
#define MAX_PINNED_INTERVAL    512 /* ms */
#define NUMA_IMBALANCE_MIN     2

struct lb_env {
	struct ts_sched *s;
	struct ts_sched_domain *sd;
	int src_cpu;
	int dst_cpu;
	int new_dst_cpu;
	const struct ts_cpumask *dst_grpmask;
	enum ts_idle_type idle;
	long imbalance;
	struct ts_cpumask *cpus; /* load_balance_mask */
	unsigned int flags;
	unsigned int loop, loop_break, loop_max;
	enum migration_type migration_type;
	enum fbq_type fbq_type;
	struct ts_cpumask *swb_cpus; /* should_we_balance_tmpmask */
};

struct sg_lb_stats {
	unsigned long avg_load;
	unsigned long group_load;
	unsigned long group_capacity;
	unsigned long group_util;
	unsigned long group_runnable;
	unsigned int sum_nr_running;
	unsigned int sum_h_nr_running;
	unsigned int idle_cpus;
	unsigned int group_weight;
	enum group_type group_type;
	unsigned int group_smt_balance;
	unsigned long group_misfit_task_load;
	unsigned int nr_numa_running;
	unsigned int nr_preferred_running;
};

struct sd_lb_stats {
	struct ts_sched_group *busiest;
	struct ts_sched_group *local;
	unsigned long total_load;
	unsigned long total_capacity;
	unsigned long avg_load;
	unsigned int prefer_sibling;
	struct sg_lb_stats busiest_stat;
	struct sg_lb_stats local_stat;
};

/* env->idle as the kernel's v6.10+ enum reads it: true for CPU_IDLE and CPU_NEWLY_IDLE. */
static inline bool env_idle(const struct lb_env *env)
{
	return env->idle != TS_CPU_NOT_IDLE;
}

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

/* sgc->imbalance is shared by the CPUs of a group and written without a lock, as in the
 * kernel: relaxed atomic accesses on the plain int. */
static inline int sgc_imbalance(const struct ts_sched_group_capacity *sgc)
{
	return __atomic_load_n(&sgc->imbalance, __ATOMIC_RELAXED);
}
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

/* ---- statistics and classification ---- */

static inline bool group_has_capacity(unsigned int imbalance_pct, const struct sg_lb_stats *sgs)
{
	if (sgs->sum_nr_running < sgs->group_weight)
		return true;
	if ((sgs->group_capacity * imbalance_pct) < (sgs->group_runnable * 100))
		return false;
	if ((sgs->group_capacity * 100) > (sgs->group_util * imbalance_pct))
		return true;
	return false;
}

static inline bool group_is_overloaded(unsigned int imbalance_pct, const struct sg_lb_stats *sgs)
{
	if (sgs->sum_nr_running <= sgs->group_weight)
		return false;
	if ((sgs->group_capacity * 100) < (sgs->group_util * imbalance_pct))
		return true;
	if ((sgs->group_capacity * imbalance_pct) < (sgs->group_runnable * 100))
		return true;
	return false;
}

static enum group_type group_classify(unsigned int imbalance_pct,
				      const struct ts_sched_group *group,
				      const struct sg_lb_stats *sgs)
{
	if (group_is_overloaded(imbalance_pct, sgs))
		return group_overloaded;
	if (sgc_imbalance(group->sgc))
		return group_imbalanced;
	if (sgs->group_smt_balance)
		return group_smt_balance;
	if (sgs->group_misfit_task_load)
		return group_misfit_task;
	if (!group_has_capacity(imbalance_pct, sgs))
		return group_fully_busy;
	return group_has_spare;
}

/* smt_balance(): an SMT group with more than one task should give one to an idle dst. */
static bool smt_balance(const struct lb_env *env, const struct sg_lb_stats *sgs,
			const struct ts_sched_group *group)
{
	if (!env_idle(env))
		return false;
	return (group->flags & TS_SD_SHARE_CPUCAPACITY) && sgs->sum_h_nr_running > 1;
}

static void update_sg_lb_stats(struct lb_env *env, struct sd_lb_stats *sds,
			       struct ts_sched_group *group, struct sg_lb_stats *sgs,
			       bool *sg_overloaded)
{
	struct ts_sched *s = env->s;
	bool balancing_at_rd = !env->sd->parent;
	bool local_group = group == sds->local;
	int i;

	*sgs = (struct sg_lb_stats){0};
	ts_for_each_cpu_and(i, group->span, env->cpus)
	{
		unsigned int nr_running = ts_rq_nr_running(s, i);
		sgs->group_load += ts_cpu_load(s, i);
		sgs->group_util += ts_cpu_util(s, i);
		sgs->group_runnable += ts_cpu_runnable(s, i);
		sgs->sum_h_nr_running += nr_running; /* CFS is the only class */
		sgs->sum_nr_running += nr_running;
		sgs->nr_numa_running +=
			atomic_load_explicit(&s->rq[i].ro.nr_numa_running, memory_order_relaxed);
		sgs->nr_preferred_running += atomic_load_explicit(&s->rq[i].ro.nr_preferred_running,
								  memory_order_relaxed);
		if (!nr_running && ts_idle_cpu(s, i)) {
			sgs->idle_cpus++;
			continue;
		}
		if (balancing_at_rd && nr_running > 1)
			*sg_overloaded = true;
	}
	sgs->group_capacity = group->sgc->capacity;
	sgs->group_weight = (unsigned)group->group_weight;
	if (!local_group && smt_balance(env, sgs, group))
		sgs->group_smt_balance = 1;
	sgs->group_type = group_classify(env->sd->imbalance_pct, group, sgs);
	if (sgs->group_type == group_overloaded)
		sgs->avg_load = (sgs->group_load * TS_CAPACITY_SCALE) / sgs->group_capacity;
}

static bool update_sd_pick_busiest(struct lb_env *env, struct sd_lb_stats *sds,
				   struct ts_sched_group *sg, struct sg_lb_stats *sgs)
{
	struct sg_lb_stats *busiest = &sds->busiest_stat;
	(void)env;

	if (!sgs->sum_h_nr_running)
		return false;
	if (sgs->group_type > busiest->group_type)
		return true;
	if (sgs->group_type < busiest->group_type)
		return false;

	switch (sgs->group_type) {
	case group_overloaded:
		return sgs->avg_load > busiest->avg_load;
	case group_imbalanced:
		return false; /* the first one */
	case group_asym_packing:
		return false; /* not produced here */
	case group_misfit_task:
		return sgs->group_misfit_task_load > busiest->group_misfit_task_load;
	case group_smt_balance:
		if (sgs->idle_cpus != 0 || busiest->idle_cpus != 0)
			goto has_spare;
		/* fallthrough */
	case group_fully_busy:
		if (sgs->avg_load < busiest->avg_load)
			return false;
		if (sgs->avg_load == busiest->avg_load) {
			/* SMT groups need more help than non-SMT ones. */
			if (sds->busiest->flags & TS_SD_SHARE_CPUCAPACITY)
				return false;
		}
		break;
	case group_has_spare:
	has_spare:
		if (sgs->idle_cpus > busiest->idle_cpus)
			return false;
		else if (sgs->idle_cpus == busiest->idle_cpus &&
			 sgs->sum_nr_running <= busiest->sum_nr_running)
			return false;
		break;
	}
	/* SD_ASYM_CPUCAPACITY: don't pull to a CPU of lower capacity than the group's. */
	if ((env->sd->flags & TS_SD_ASYM_CPUCAPACITY) && sgs->group_type <= group_fully_busy &&
	    sg->sgc->min_capacity * 1024 > ts_capacity_of(env->s, env->dst_cpu) * 1078)
		return false;
	return true;
}

static inline enum fbq_type fbq_classify_group(const struct sg_lb_stats *sgs)
{
	if (sgs->sum_h_nr_running > sgs->nr_numa_running)
		return regular;
	if (sgs->sum_h_nr_running > sgs->nr_preferred_running)
		return remote;
	return all;
}

static inline enum fbq_type fbq_classify_rq(struct ts_sched *s, int cpu)
{
	const struct ts_rq_ro *ro = &s->rq[cpu].ro;
	unsigned int nr = atomic_load_explicit(&ro->nr_running, memory_order_relaxed);
	if (nr > atomic_load_explicit(&ro->nr_numa_running, memory_order_relaxed))
		return regular;
	if (nr > atomic_load_explicit(&ro->nr_preferred_running, memory_order_relaxed))
		return remote;
	return all;
}

static void update_sd_lb_stats(struct lb_env *env, struct sd_lb_stats *sds)
{
	struct ts_sched *s = env->s;
	struct ts_sched_domain *sd = env->sd;
	struct sg_lb_stats tmp_sgs;
	unsigned long sum_util = 0;
	bool sg_overloaded = false;

	for (int g = 0; g < sd->nr_groups; g++) {
		struct ts_sched_group *sg = sd->groups[g];
		struct sg_lb_stats *sgs = &tmp_sgs;
		bool local_group = ts_cpumask_test(sg->span, env->dst_cpu);
		if (local_group) {
			sds->local = sg;
			sgs = &sds->local_stat;
		}
		update_sg_lb_stats(env, sds, sg, sgs, &sg_overloaded);
		if (!local_group && update_sd_pick_busiest(env, sds, sg, sgs)) {
			sds->busiest = sg;
			sds->busiest_stat = *sgs;
		}
		sds->total_load += sgs->group_load;
		sds->total_capacity += sgs->group_capacity;
		sum_util += sgs->group_util;
	}
	/* The flags of a group are those of its child domain. */
	if (sds->busiest)
		sds->prefer_sibling = !!(sds->busiest->flags & TS_SD_PREFER_SIBLING);
	/* toposched: the kernel classifies whenever CONFIG_NUMA_BALANCING is built; here
	 * NO_NUMA leaves fbq_type at `all`, so nothing is filtered (as before NUMA). */
	if ((sd->flags & TS_SD_NUMA) && ts_features_has(s->features, TS_FEAT_NUMA))
		env->fbq_type = fbq_classify_group(&sds->busiest_stat);
	if (!sd->parent)
		atomic_store_explicit(&s->overloaded, sg_overloaded, memory_order_relaxed);
	/* update_idle_cpu_scan(): periodic balancing of the LLC domain only. */
	if (env->idle != TS_CPU_NEWLY_IDLE && sd == s->dom->cpu[env->dst_cpu].sd_llc)
		ts_update_idle_cpu_scan(s, env->dst_cpu, sum_util);
}

/* sibling_imbalance(): the nr_running difference, normalised by the groups' core counts. */
static long sibling_imbalance(const struct lb_env *env, const struct sd_lb_stats *sds,
			      const struct sg_lb_stats *busiest, const struct sg_lb_stats *local)
{
	if (!env_idle(env) || !busiest->sum_nr_running)
		return 0;
	long ncores_busiest = sds->busiest->cores, ncores_local = sds->local->cores;
	long imbalance;
	if (ncores_busiest == ncores_local) {
		imbalance = (long)busiest->sum_nr_running - (long)local->sum_nr_running;
		return imbalance > 0 ? imbalance : 0;
	}
	imbalance = ncores_local * (long)busiest->sum_nr_running -
		    ncores_busiest * (long)local->sum_nr_running;
	if (imbalance < 0)
		imbalance = 0;
	imbalance = 2 * imbalance + ncores_local + ncores_busiest;
	imbalance /= ncores_local + ncores_busiest;
	if (imbalance <= 1 && local->sum_nr_running == 0 && busiest->sum_nr_running > 1)
		imbalance = 2;
	return imbalance;
}

static inline long adjust_numa_imbalance(long imbalance, long dst_running, long imb_numa_nr)
{
	if (dst_running > imb_numa_nr) /* !allow_numa_imbalance() */
		return imbalance;
	if (imbalance <= NUMA_IMBALANCE_MIN)
		return 0;
	return imbalance;
}

static void calculate_imbalance(struct lb_env *env, struct sd_lb_stats *sds)
{
	struct sg_lb_stats *local = &sds->local_stat, *busiest = &sds->busiest_stat;

	if (busiest->group_type == group_smt_balance || busiest->group_type == group_imbalanced) {
		env->migration_type = migrate_task;
		env->imbalance = 1;
		return;
	}

	if (local->group_type == group_has_spare) {
		if (busiest->group_type > group_fully_busy && !(env->sd->flags & TS_SD_SHARE_LLC)) {
			/* Fill the spare capacity of the local group. */
			unsigned long cap = local->group_capacity > local->group_util
						    ? local->group_capacity
						    : local->group_util;
			env->migration_type = migrate_util;
			env->imbalance = (long)(cap - local->group_util);
			if (env_idle(env) && env->imbalance == 0) {
				env->migration_type = migrate_task;
				env->imbalance = 1;
			}
			return;
		}
		env->migration_type = migrate_task;
		if (busiest->group_weight == 1 || sds->prefer_sibling) {
			env->imbalance = sibling_imbalance(env, sds, busiest, local);
		} else {
			long d = (long)local->idle_cpus - (long)busiest->idle_cpus;
			env->imbalance = d > 0 ? d : 0;
		}
		if (env->sd->flags & TS_SD_NUMA)
			env->imbalance = adjust_numa_imbalance(env->imbalance,
							       (long)local->sum_nr_running + 1,
							       (long)env->sd->imb_numa_nr);
		env->imbalance >>= 1;
		return;
	}

	if (local->group_type < group_overloaded) {
		/* local becomes overloaded: avg_load is finally needed */
		local->avg_load = (local->group_load * TS_CAPACITY_SCALE) / local->group_capacity;
		if (local->avg_load >= busiest->avg_load) {
			env->imbalance = 0;
			return;
		}
		sds->avg_load = (sds->total_load * TS_CAPACITY_SCALE) / sds->total_capacity;
		if (local->avg_load >= sds->avg_load) {
			env->imbalance = 0;
			return;
		}
	}

	/* Bring both groups towards the domain average, never past it. */
	env->migration_type = migrate_load;
	unsigned long a = (busiest->avg_load - sds->avg_load) * busiest->group_capacity;
	unsigned long b = (sds->avg_load - local->avg_load) * local->group_capacity;
	env->imbalance = (long)((a < b ? a : b) / TS_CAPACITY_SCALE);
}

/* sched_balance_find_src_group(), once find_busiest_group(). */
static struct ts_sched_group *find_busiest_group(struct lb_env *env)
{
	struct sd_lb_stats sds = {0};
	sds.busiest_stat.idle_cpus = UINT_MAX;
	sds.busiest_stat.group_type = group_has_spare;

	update_sd_lb_stats(env, &sds);
	if (!sds.busiest)
		goto out_balanced;

	struct sg_lb_stats *busiest = &sds.busiest_stat, *local = &sds.local_stat;
	if (busiest->group_type == group_misfit_task)
		goto force_balance;
	if (busiest->group_type == group_asym_packing)
		goto force_balance;
	if (busiest->group_type == group_imbalanced)
		goto force_balance;
	if (local->group_type > busiest->group_type)
		goto out_balanced;

	if (local->group_type == group_overloaded) {
		if (local->avg_load >= busiest->avg_load)
			goto out_balanced;
		sds.avg_load = (sds.total_load * TS_CAPACITY_SCALE) / sds.total_capacity;
		if (local->avg_load >= sds.avg_load)
			goto out_balanced;
		if (100 * busiest->avg_load <= env->sd->imbalance_pct * local->avg_load)
			goto out_balanced;
	}

	if (sds.prefer_sibling && local->group_type == group_has_spare &&
	    sibling_imbalance(env, &sds, busiest, local) > 1)
		goto force_balance;

	if (busiest->group_type != group_overloaded) {
		if (!env_idle(env))
			goto out_balanced; /* let an idle CPU pull */
		if (busiest->group_type == group_smt_balance &&
		    (sds.local->flags & TS_SD_SHARE_CPUCAPACITY) !=
			    (sds.busiest->flags & TS_SD_SHARE_CPUCAPACITY))
			goto force_balance; /* smt_vs_nonsmt_groups() */
		if (busiest->group_weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1)
			goto out_balanced;
		if (busiest->sum_h_nr_running == 1)
			goto out_balanced;
	}

force_balance:
	calculate_imbalance(env, &sds);
	return env->imbalance ? sds.busiest : NULL;

out_balanced:
	env->imbalance = 0;
	return NULL;
}

/* sched_balance_find_src_rq(), once find_busiest_queue(). */
static int find_busiest_queue(struct lb_env *env, const struct ts_sched_group *group)
{
	struct ts_sched *s = env->s;
	int busiest = -1, i;
	unsigned long busiest_util = 0, busiest_load = 0, busiest_capacity = 1;
	unsigned int busiest_nr = 0;

	ts_for_each_cpu_and(i, group->span, env->cpus)
	{
		/* Leave ideally placed NUMA tasks alone while better sources exist: skip rqs
		 * whose class is better placed than the busiest group's (at SD_NUMA levels;
		 * elsewhere fbq_type is `all` and nothing is skipped). */
		if (fbq_classify_rq(s, i) > env->fbq_type)
			continue;
		unsigned int nr_running = ts_rq_nr_running(s, i);
		if (!nr_running)
			continue;
		unsigned long capacity = ts_capacity_of(s, i);
		if ((env->sd->flags & TS_SD_ASYM_CPUCAPACITY) &&
		    !(ts_capacity_of(s, env->dst_cpu) * 1024 > capacity * 1078) && nr_running == 1)
			continue;
		switch (env->migration_type) {
		case migrate_load: {
			unsigned long load = ts_cpu_load(s, i);
			/* A single task heavier than the imbalance stays (capacity is never
			 * reduced here, so check_cpu_capacity() is false). */
			if (nr_running == 1 && (long)load > env->imbalance)
				break;
			if (load * busiest_capacity > busiest_load * capacity) {
				busiest_load = load;
				busiest_capacity = capacity;
				busiest = i;
			}
			break;
		}
		case migrate_util: {
			unsigned long util = ts_cpu_util(s, i);
			if (nr_running <= 1)
				continue;
			if (busiest_util < util) {
				busiest_util = util;
				busiest = i;
			}
			break;
		}
		case migrate_task:
			if (busiest_nr < nr_running) {
				busiest_nr = nr_running;
				busiest = i;
			}
			break;
		case migrate_misfit:
			break;
		}
	}
	return busiest;
}

/* ---- moving tasks ---- */

static int task_hot(struct ts_task *p, struct lb_env *env)
{
	struct ts_sched *s = env->s;
	struct ts_rq *src = &s->rq[env->src_cpu], *dst = &s->rq[env->dst_cpu];
	if (env->sd->flags & TS_SD_SHARE_CPUCAPACITY)
		return 0; /* SMT siblings share cache */
	if (ts_features_has(s->features, TS_FEAT_CACHE_HOT_BUDDY) && dst->nr_running &&
	    p->se.cfs_rq->next == &p->se) /* cfs_rq_of(&p->se)->next */
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
		if (env->idle == TS_CPU_NEWLY_IDLE || (env->flags & LBF_DST_PINNED))
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
			if ((long)shr_bound(load, env->sd->nr_balance_failed) > env->imbalance)
				goto next;
			env->imbalance -= (long)load;
			break;
		}
		case migrate_util: {
			unsigned long util =
				p->se.avg.util_avg; /* task_util_est() without util_est */
			if ((long)shr_bound(util, env->sd->nr_balance_failed) > env->imbalance)
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
 * CPU, else the first idle SMT thread, else the group's balance CPU. */
static bool should_we_balance(struct lb_env *env)
{
	struct ts_sched *s = env->s;
	struct ts_sched_group *sg = env->sd->groups[0];
	int cpu, idle_smt = -1;

	if (!ts_cpumask_test(env->cpus, env->dst_cpu))
		return false;
	if (env->idle == TS_CPU_NEWLY_IDLE) {
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
		if (!(env->sd->flags & TS_SD_SHARE_CPUCAPACITY) && !is_core_idle(s, cpu)) {
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

/* sched_balance_rq(), once load_balance(): returns the number of tasks pulled to this_cpu
 * (or to another CPU of its group after an affinity retry). No rq lock held. */
static int sched_balance_rq(struct ts_sched *s, int this_cpu, struct ts_sched_domain *sd,
			    enum ts_idle_type idle, bool *continue_balancing, struct lb_masks *m)
{
	struct ts_sched_domain *sd_parent = sd->parent;
	int ld_moved = 0;
	struct lb_env env = {
		.s = s,
		.sd = sd,
		.dst_cpu = this_cpu,
		.dst_grpmask = sd->groups[0]->balance_mask,
		.idle = idle,
		.loop_break = SCHED_NR_MIGRATE_BREAK,
		.cpus = m->cpus,
		.swb_cpus = m->swb,
		.migration_type = migrate_load,
		.fbq_type = all,
	};
	ts_cpumask_and(env.cpus, sd->span, s->dom->cpu_map);
	ts_stat_inc(&sd->stats.lb_count[idle]);

redo:
	if (!should_we_balance(&env)) {
		*continue_balancing = false;
		goto out_balanced;
	}
	struct ts_sched_group *group = find_busiest_group(&env);
	if (!group) {
		ts_stat_inc(&sd->stats.lb_nobusyg[idle]);
		goto out_balanced;
	}
	int busiest = find_busiest_queue(&env, group);
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
		{
			struct ts_rq *src = &s->rq[env.src_cpu];
			uint64_t now = s->ops.clock(s->host); /* update_rq_clock(busiest) */
			if (now > src->clock)
				src->clock = now;
		}
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
		/* need_active_balance() / the stopper push: left out. */
	} else {
		sd->nr_balance_failed = 0;
	}
	/* We were unbalanced: reset the balancing interval. */
	sd->balance_interval = sd->min_interval;
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
	/* Newly-idle balancing ignores intervals; don't let it inflate them. */
	if (env.idle == TS_CPU_NEWLY_IDLE)
		return 0;
	if (((env.flags & LBF_ALL_PINNED) && sd->balance_interval < MAX_PINNED_INTERVAL) ||
	    sd->balance_interval < sd->max_interval)
		sd->balance_interval *= 2;
	return 0;
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
	if (cpu_busy && interval)
		interval -= 1; /* keep levels from being multiples of each other */
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
 * when it decayed. */
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

int ts_balance_newidle(struct ts_sched *s, int cpu)
{
	struct ts_rq *this_rq = &s->rq[cpu];
	uint64_t next_balance = jiffies_of(s) + s->hz;
	uint64_t curr_cost = 0;
	bool continue_balancing = true;
	int pulled_task = 0;
	struct ts_sched_domain *sd = s->dom->cpu[cpu].sd;

	if (atomic_load_explicit(&this_rq->ro.ttwu_pending, memory_order_relaxed))
		return 0;
	/* Set before balancing, so that this time counts as idle. */
	uint64_t now = s->ops.clock(s->host);
	if (now > this_rq->clock)
		this_rq->clock = now;
	ts_rq_set_idle_stamp(this_rq, this_rq->clock);

	if (!atomic_load_explicit(&s->overloaded, memory_order_relaxed) ||
	    (sd && this_rq->avg_idle < sd->max_newidle_lb_cost)) {
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
			update_newidle_cost(s, sd, domain_cost);
			curr_cost += domain_cost;
			t0 = t1;
		}
		/* Stop once this rq has something to run. */
		if (pulled_task || !continue_balancing)
			break;
	}

	s->ops.rq_lock(s->host, cpu);
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

/* ---- fork/exec slow path ---- */

/* The *_without() helpers: cpu's load/util/runnable without p's contribution, when p is
 * queued there (exec balancing of the running task). */
static bool task_counts_on(const struct ts_task *p, int cpu)
{
	return cpu == p->cpu && p->se.avg.last_update_time != 0;
}
static unsigned long sub_floor(unsigned long a, unsigned long b)
{
	return a > b ? a - b : 0;
}

static void update_sg_wakeup_stats(struct ts_sched *s, struct ts_sched_domain *sd,
				   struct ts_sched_group *group, struct sg_lb_stats *sgs,
				   struct ts_task *p)
{
	int i;
	*sgs = (struct sg_lb_stats){0};
	ts_for_each_cpu(i, group->span)
	{
		bool own = task_counts_on(p, i);
		unsigned long load = ts_cpu_load(s, i), util = ts_cpu_util(s, i),
			      runnable = ts_cpu_runnable(s, i);
		if (own) {
			load = sub_floor(load, ts_task_h_load_of(s, p)); /* cpu_load_without() */
			util = sub_floor(util, p->se.avg.util_avg);
			runnable = sub_floor(runnable, p->se.avg.runnable_avg);
		}
		sgs->group_load += load;
		sgs->group_util += util;
		sgs->group_runnable += runnable;
		unsigned int local = own && p->se.on_rq ? 1 : 0; /* task_running_on_cpu() */
		unsigned int nr = ts_rq_nr_running(s, i);
		unsigned int nr_running = nr >= local ? nr - local : 0;
		sgs->sum_h_nr_running += nr_running;
		sgs->sum_nr_running += nr_running;
		/* idle_cpu_without(): idle, or p alone there (then p is its current task). */
		if (!nr_running &&
		    (local ? !atomic_load_explicit(&s->rq[i].ro.ttwu_pending, memory_order_relaxed)
			   : ts_idle_cpu(s, i)))
			sgs->idle_cpus++;
	}
	sgs->group_capacity = group->sgc->capacity;
	sgs->group_weight = (unsigned)group->group_weight;
	sgs->group_type = group_classify(sd->imbalance_pct, group, sgs);
	if (sgs->group_type == group_fully_busy || sgs->group_type == group_overloaded)
		sgs->avg_load = (sgs->group_load * TS_CAPACITY_SCALE) / sgs->group_capacity;
}

static bool update_pick_idlest(const struct ts_sched_group *idlest,
			       const struct sg_lb_stats *idlest_sgs,
			       const struct ts_sched_group *group, const struct sg_lb_stats *sgs)
{
	if (sgs->group_type < idlest_sgs->group_type)
		return true;
	if (sgs->group_type > idlest_sgs->group_type)
		return false;
	switch (sgs->group_type) {
	case group_overloaded:
	case group_fully_busy:
		if (idlest_sgs->avg_load <= sgs->avg_load)
			return false;
		break;
	case group_imbalanced:
	case group_asym_packing:
	case group_smt_balance:
		return false; /* not used in the slow path */
	case group_misfit_task:
		if (idlest->sgc->max_capacity >= group->sgc->max_capacity)
			return false;
		break;
	case group_has_spare:
		if (idlest_sgs->idle_cpus > sgs->idle_cpus)
			return false;
		if (idlest_sgs->idle_cpus == sgs->idle_cpus &&
		    idlest_sgs->group_util <= sgs->group_util)
			return false;
		break;
	}
	return true;
}

static bool group_allows(const struct ts_sched_group *g, const struct ts_task *p)
{
	return !p->cpus_allowed || ts_cpumask_intersects(g->span, p->cpus_allowed);
}

/* sched_balance_find_dst_group(), once find_idlest_group(). */
static struct ts_sched_group *find_idlest_group(struct ts_sched *s, struct ts_sched_domain *sd,
						struct ts_task *p, int this_cpu)
{
	struct ts_sched_group *idlest = NULL, *local = NULL;
	struct sg_lb_stats local_sgs = {0}, tmp_sgs;
	struct sg_lb_stats idlest_sgs = {.avg_load = UINT_MAX, .group_type = group_overloaded};

	for (int g = 0; g < sd->nr_groups; g++) {
		struct ts_sched_group *group = sd->groups[g];
		if (!group_allows(group, p))
			continue;
		bool local_group = ts_cpumask_test(group->span, this_cpu);
		struct sg_lb_stats *sgs = local_group ? &local_sgs : &tmp_sgs;
		if (local_group)
			local = group;
		update_sg_wakeup_stats(s, sd, group, sgs, p);
		if (!local_group && update_pick_idlest(idlest, &idlest_sgs, group, sgs)) {
			idlest = group;
			idlest_sgs = *sgs;
		}
	}
	if (!idlest)
		return NULL;
	if (!local)
		return idlest; /* the local group was skipped for affinity */
	if (local_sgs.group_type < idlest_sgs.group_type)
		return NULL;
	if (local_sgs.group_type > idlest_sgs.group_type)
		return idlest;

	switch (local_sgs.group_type) {
	case group_overloaded:
	case group_fully_busy: {
		unsigned long imbalance = TS_NICE_0_LOAD * (sd->imbalance_pct - 100) / 100;
		/* Across NUMA nodes, add the imbalance to the remote side: stay local. */
		if ((sd->flags & TS_SD_NUMA) &&
		    idlest_sgs.avg_load + imbalance >= local_sgs.avg_load)
			return NULL;
		if (idlest_sgs.avg_load >= local_sgs.avg_load + imbalance)
			return NULL;
		if (100 * local_sgs.avg_load <= sd->imbalance_pct * idlest_sgs.avg_load)
			return NULL;
		break;
	}
	case group_imbalanced:
	case group_asym_packing:
	case group_smt_balance:
		return NULL;
	case group_misfit_task:
		if (local->sgc->max_capacity >= idlest->sgc->max_capacity)
			return NULL;
		break;
	case group_has_spare:
		if (sd->flags & TS_SD_NUMA) {
			/* (No numa_preferred_nid yet: the NUMA_BALANCING preferred-node rule is
			 * left out.) Keep the task near its parent while the local node stays
			 * below the allowed imbalance, counting only CPUs it may use. */
			long imb_numa_nr = (long)sd->imb_numa_nr;
			long w = p->cpus_allowed
					 ? ts_cpumask_weight_and(local->span, p->cpus_allowed)
					 : local->group_weight;
			if (w < imb_numa_nr)
				imb_numa_nr = w;
			long imbalance =
				labs((long)local_sgs.idle_cpus - (long)idlest_sgs.idle_cpus);
			if (!adjust_numa_imbalance(imbalance, (long)local_sgs.sum_nr_running + 1,
						   imb_numa_nr))
				return NULL;
		}
		if (local_sgs.idle_cpus >= idlest_sgs.idle_cpus)
			return NULL;
		break;
	}
	return idlest;
}

/* sched_balance_find_dst_group_cpu(), once find_idlest_group_cpu(). Without idle states
 * every idle CPU has the same exit latency, so the most recently idled one wins (warmest
 * cache); unlike the kernel an idle CPU with idle_stamp 0 (never went idle through
 * schedule) still beats a busy one. Else the least loaded CPU. */
static int find_idlest_group_cpu(struct ts_sched *s, const struct ts_sched_group *group,
				 const struct ts_task *p, int this_cpu)
{
	unsigned long min_load = ULONG_MAX;
	uint64_t latest_idle_timestamp = 0;
	int least_loaded_cpu = this_cpu, shallowest_idle_cpu = -1, i;

	if (group->group_weight == 1)
		return ts_cpumask_first(group->span);
	ts_for_each_cpu(i, group->span)
	{
		if (!ts_task_allowed(p, i))
			continue;
		if (ts_available_idle_cpu(s, i)) {
			/* idle_stamp is written under its rq lock; a stale value only changes
			 * which idle CPU is chosen. */
			uint64_t stamp = __atomic_load_n(&s->rq[i].idle_stamp, __ATOMIC_RELAXED);
			if (shallowest_idle_cpu == -1 || stamp > latest_idle_timestamp) {
				latest_idle_timestamp = stamp;
				shallowest_idle_cpu = i;
			}
		} else if (shallowest_idle_cpu == -1) {
			unsigned long load = ts_cpu_load(s, i);
			if (load < min_load) {
				min_load = load;
				least_loaded_cpu = i;
			}
		}
	}
	return shallowest_idle_cpu != -1 ? shallowest_idle_cpu : least_loaded_cpu;
}

int ts_sched_balance_find_dst_cpu(struct ts_sched *s, struct ts_sched_domain *sd, struct ts_task *p,
				  int cpu, int prev_cpu, int sd_flag)
{
	int new_cpu = cpu;
	if (!sd)
		return prev_cpu;
	if (p->cpus_allowed && !ts_cpumask_intersects(sd->span, p->cpus_allowed))
		return prev_cpu;
	/* (sync_entity_load_avg() for exec is left to the caller's PELT state.) */
	while (sd) {
		if (!(sd->flags & (unsigned)sd_flag)) {
			sd = sd->child;
			continue;
		}
		struct ts_sched_group *group = find_idlest_group(s, sd, p, cpu);
		if (!group) {
			sd = sd->child;
			continue;
		}
		new_cpu = find_idlest_group_cpu(s, group, p, cpu);
		if (new_cpu == cpu) {
			sd = sd->child; /* balance at a lower level of cpu */
			continue;
		}
		/* Now balance at a lower level of new_cpu. */
		cpu = new_cpu;
		int weight = sd->span_weight;
		struct ts_sched_domain *tmp;
		sd = NULL;
		ts_for_each_domain(s->dom, cpu, tmp)
		{
			if (weight <= tmp->span_weight)
				break;
			if (tmp->flags & (unsigned)sd_flag)
				sd = tmp;
		}
	}
	return new_cpu;
}
