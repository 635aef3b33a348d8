/* The busiest-group search of load balancing, after kernel/sched/fair.c (v6.6 .. v6.12):
 * update_sd_lb_stats() gathers every group's statistics, find_busiest_group() decides
 * whether to balance and calculate_imbalance() how much, find_busiest_queue() picks the
 * run queue to pull from (skipping better-placed NUMA queues by fbq_type). */
#include <limits.h>

#include "balance.h"
#include "numa_imbalance.h"

/* smt_balance(): an SMT group with more than one task should give one to an idle dst
 * (v6.6; before, no such group type). */
static bool smt_balance(const struct lb_env *env, const struct sg_lb_stats *sgs,
			const struct ts_sched_group *group)
{
	if (!env->s->kernel.smt_balance || !env_idle(env))
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
		if (s->kernel.group_runnable) /* before v5.7: no runnable_avg to weigh */
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

/* smt_vs_nonsmt_groups(): one of the groups is an SMT core and the other is not. */
static bool smt_vs_nonsmt_groups(const struct ts_sched_group *sg1, const struct ts_sched_group *sg2)
{
	if (!sg1 || !sg2)
		return false;
	return (sg1->flags & TS_SD_SHARE_CPUCAPACITY) != (sg2->flags & TS_SD_SHARE_CPUCAPACITY);
}

static bool update_sd_pick_busiest(struct lb_env *env, struct sd_lb_stats *sds,
				   struct ts_sched_group *sg, struct sg_lb_stats *sgs)
{
	struct sg_lb_stats *busiest = &sds->busiest_stat;
	const struct ts_kernel_profile *k = &env->s->kernel;

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
			/* SMT groups need more help than non-SMT ones (v6.5); before, the
			 * first of equals stayed busiest. */
			if (!k->fully_busy_smt_busiest ||
			    (sds->busiest->flags & TS_SD_SHARE_CPUCAPACITY))
				return false;
		}
		break;
	case group_has_spare:
		/* Not an SMT group over a non-SMT one (v6.6): pulling the only task off an
		 * SMT core would leave the core idle. */
		if (k->smt_balance && smt_vs_nonsmt_groups(sds->busiest, sg))
			return !(sg->flags & TS_SD_SHARE_CPUCAPACITY) || sgs->sum_h_nr_running > 1;
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
	return fbq_classify(sgs->sum_h_nr_running, sgs->nr_numa_running, sgs->nr_preferred_running);
}

/* sds->prefer_sibling: the busiest group's flag, which is its child domain's (v6.5,
 * 43726bdedd29: a non-SMT core balancing with an SMT one at the same level has no child
 * domain of its own); before, the flag of the balancing CPU's child domain. */
static bool prefer_sibling_of(const struct lb_env *env, const struct sd_lb_stats *sds)
{
	if (env->s->kernel.prefer_sibling_busiest)
		return sds->busiest && (sds->busiest->flags & TS_SD_PREFER_SIBLING);
	const struct ts_sched_domain *child = env->sd->child;
	return child && (child->flags & TS_SD_PREFER_SIBLING);
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
	sds->prefer_sibling = prefer_sibling_of(env, sds);
	/* toposched: the kernel classifies whenever CONFIG_NUMA_BALANCING is built; here
	 * NO_NUMA leaves fbq_type at `all`, so nothing is filtered (as before NUMA). */
	if ((sd->flags & TS_SD_NUMA) && ts_features_has(s->features, TS_FEAT_NUMA))
		env->fbq_type = fbq_classify_group(&sds->busiest_stat);
	/* set_rd_overloaded() (v6.9): written only when it changes, so that the line every
	 * CPU reads is not taken by each balancing pass. */
	if (!env->dry_run && !sd->parent &&
	    atomic_load_explicit(&s->overloaded, memory_order_relaxed) != sg_overloaded)
		atomic_store_explicit(&s->overloaded, sg_overloaded, memory_order_relaxed);
	/* update_idle_cpu_scan(): periodic balancing of the LLC domain only. */
	if (!env->dry_run && env->idle != TS_CPU_NEWLY_IDLE &&
	    sd == s->dom->cpu[env->dst_cpu].sd_llc)
		ts_update_idle_cpu_scan(s, env->dst_cpu, sum_util);
}

/* sibling_imbalance(): the nr_running difference, normalised by the groups' core counts
 * (7ff1693236f5, v6.6). Before, the plain difference (nr_diff), busy balancing included. */
static long sibling_imbalance(const struct lb_env *env, const struct sd_lb_stats *sds,
			      const struct sg_lb_stats *busiest, const struct sg_lb_stats *local)
{
	if (!env->s->kernel.sibling_imbalance) {
		long nr_diff = (long)busiest->sum_nr_running - (long)local->sum_nr_running;
		return nr_diff > 0 ? nr_diff : 0;
	}
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

static void calculate_imbalance(struct lb_env *env, struct sd_lb_stats *sds)
{
	struct sg_lb_stats *local = &sds->local_stat, *busiest = &sds->busiest_stat;

	if (busiest->group_type == group_smt_balance || busiest->group_type == group_imbalanced) {
		env->migration_type = migrate_task;
		env->imbalance = 1;
		return;
	}

	if (local->group_type == group_has_spare) {
		if (busiest->group_type > group_fully_busy &&
		    !(env->s->kernel.llc_spread_tasks && (env->sd->flags & TS_SD_SHARE_LLC))) {
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
		long imbalance;
		if (busiest->group_weight == 1 || sds->prefer_sibling) {
			imbalance = sibling_imbalance(env, sds, busiest, local);
		} else {
			long d = (long)local->idle_cpus - (long)busiest->idle_cpus;
			imbalance = d > 0 ? d : 0;
		}
		/* the NUMA allowance, and halving: tasks to move to restore balance */
		env->imbalance =
			ts_numa_spare_imbalance(env->s, env->sd, imbalance, local, busiest);
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
struct ts_sched_group *ts_find_busiest_group(struct lb_env *env)
{
	if (!env->s->kernel.lb_group_types)
		return ts_find_busiest_group_v5_4(env);
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
		    smt_vs_nonsmt_groups(sds.local, sds.busiest))
			goto force_balance;
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
int ts_find_busiest_queue(struct lb_env *env, const struct ts_sched_group *group)
{
	if (!env->s->kernel.lb_group_types)
		return ts_find_busiest_queue_v5_4(env, group);
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
			/* from v5.7: a single task could not be detached anyway */
			if (nr_running <= 1 && s->kernel.migrate_util_queued)
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
