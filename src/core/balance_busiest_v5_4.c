/* The busiest-group search of load balancing before the v5.5 rework, after
 * kernel/sched/fair.c of v5.4: what 0b0695f2b34a ("sched/fair: Rework load_balance()"),
 * b0fb1eb4f04a ("sched/fair: Use load instead of runnable load in load_balance()") and
 * fcf0553db6f4 ("sched/fair: Remove meaningless imbalance calculation") replaced, as the
 * series' patches show the lines they remove (Message-IDs
 * <1563523105-24673-4-git-send-email-vincent.guittot@linaro.org>,
 * <1568878421-12301-4-git-send-email-vincent.guittot@linaro.org>).
 *
 * A group is group_other, group_imbalanced (affinity defeated a balance below) or
 * group_overloaded (more tasks than CPUs and its utilisation above its capacity over
 * imbalance_pct); the misfit and asym-packing cases need SD_ASYM_CPUCAPACITY misfits or
 * SD_ASYM_PACKING, which the core does not produce. Loads are runnable_load_avg
 * (cpu_runnable_load()), groups are compared by avg_load (load per capacity), and every
 * imbalance is an amount of load, pulled as such by detach_tasks(); fix_small_imbalance()
 * raises one smaller than a task's average load to that load when moving a task would
 * not just move the imbalance, or would use more CPU capacity. */
#include <limits.h>

#include "balance.h"

/* v5.4's group types, in the order update_sd_pick_busiest() compares them. */
enum group_type_v5_4 { group_other_v5_4, group_imbalanced_v5_4, group_overloaded_v5_4 };

struct sg_lb_stats_v5_4 {
	unsigned long avg_load; /* group_load per capacity (x SCHED_CAPACITY_SCALE) */
	unsigned long group_load;
	unsigned long load_per_task;
	unsigned long group_capacity;
	unsigned long group_util;
	unsigned int sum_nr_running; /* cfs.h_nr_running: CFS is the only class */
	unsigned int idle_cpus;
	unsigned int group_weight;
	enum group_type_v5_4 group_type;
	bool group_no_capacity;
	unsigned int nr_numa_running;
	unsigned int nr_preferred_running;
};

struct sd_lb_stats_v5_4 {
	struct ts_sched_group *busiest;
	struct ts_sched_group *local;
	unsigned long total_load;
	unsigned long total_capacity;
	unsigned long avg_load;
	struct sg_lb_stats_v5_4 busiest_stat;
	struct sg_lb_stats_v5_4 local_stat;
};

/* group_has_capacity() and group_is_overloaded() of v5.4: utilisation only. */
static bool group_has_capacity_v5_4(unsigned int imbalance_pct, const struct sg_lb_stats_v5_4 *sgs)
{
	if (sgs->sum_nr_running < sgs->group_weight)
		return true;
	return sgs->group_capacity * 100 > sgs->group_util * imbalance_pct;
}

static bool group_is_overloaded_v5_4(unsigned int imbalance_pct, const struct sg_lb_stats_v5_4 *sgs)
{
	if (sgs->sum_nr_running <= sgs->group_weight)
		return false;
	return sgs->group_capacity * 100 < sgs->group_util * imbalance_pct;
}

static enum group_type_v5_4 group_classify_v5_4(const struct ts_sched_group *group,
						const struct sg_lb_stats_v5_4 *sgs)
{
	if (sgs->group_no_capacity)
		return group_overloaded_v5_4;
	if (sgc_imbalance(group->sgc))
		return group_imbalanced_v5_4;
	return group_other_v5_4;
}

static void update_sg_lb_stats(struct lb_env *env, struct ts_sched_group *group,
			       struct sg_lb_stats_v5_4 *sgs, bool *sg_overloaded)
{
	struct ts_sched *s = env->s;
	int i;

	*sgs = (struct sg_lb_stats_v5_4){0};
	ts_for_each_cpu_and(i, group->span, env->cpus)
	{
		unsigned int nr_running = ts_rq_nr_running(s, i);
		sgs->group_load += ts_cpu_runnable_load(s, i);
		sgs->group_util += ts_cpu_util(s, i);
		sgs->sum_nr_running += nr_running;
		if (nr_running > 1)
			*sg_overloaded = true;
		sgs->nr_numa_running +=
			atomic_load_explicit(&s->rq[i].ro.nr_numa_running, memory_order_relaxed);
		sgs->nr_preferred_running += atomic_load_explicit(&s->rq[i].ro.nr_preferred_running,
								  memory_order_relaxed);
		if (!nr_running && ts_idle_cpu(s, i))
			sgs->idle_cpus++;
	}
	/* Adjust by relative CPU capacity of the group */
	sgs->group_capacity = group->sgc->capacity;
	sgs->avg_load = (sgs->group_load * TS_CAPACITY_SCALE) / sgs->group_capacity;
	if (sgs->sum_nr_running)
		sgs->load_per_task = sgs->group_load / sgs->sum_nr_running;
	sgs->group_weight = (unsigned)group->group_weight;
	sgs->group_no_capacity = group_is_overloaded_v5_4(env->sd->imbalance_pct, sgs);
	sgs->group_type = group_classify_v5_4(group, sgs);
}

/* The busiest group is the one of the highest type, then of the highest avg_load; on
 * SD_ASYM_CPUCAPACITY levels not one running at most a task per CPU on CPUs bigger than
 * the local group's (group_smaller_min_cpu_capacity(), capacity_margin 1280). */
static bool update_sd_pick_busiest(struct lb_env *env, struct sd_lb_stats_v5_4 *sds,
				   struct ts_sched_group *sg, struct sg_lb_stats_v5_4 *sgs)
{
	struct sg_lb_stats_v5_4 *busiest = &sds->busiest_stat;

	if (sgs->group_type > busiest->group_type)
		return true;
	if (sgs->group_type < busiest->group_type)
		return false;
	if (sgs->avg_load <= busiest->avg_load)
		return false;
	if ((env->sd->flags & TS_SD_ASYM_CPUCAPACITY) && sds->local &&
	    sgs->sum_nr_running <= sgs->group_weight &&
	    sds->local->sgc->min_capacity * 1280 < sg->sgc->min_capacity * 1024)
		return false;
	return true; /* no SD_ASYM_PACKING in the core */
}

static void update_sd_lb_stats(struct lb_env *env, struct sd_lb_stats_v5_4 *sds)
{
	struct ts_sched *s = env->s;
	struct ts_sched_domain *sd = env->sd;
	const struct ts_sched_domain *child = sd->child;
	bool prefer_sibling = child && (child->flags & TS_SD_PREFER_SIBLING);
	struct sg_lb_stats_v5_4 tmp_sgs, *local = &sds->local_stat;
	unsigned long sum_util = 0;
	bool sg_overloaded = false;

	for (int g = 0; g < sd->nr_groups; g++) {
		struct ts_sched_group *sg = sd->groups[g];
		struct sg_lb_stats_v5_4 *sgs = &tmp_sgs;
		bool local_group = ts_cpumask_test(sg->span, env->dst_cpu);
		if (local_group) {
			sds->local = sg;
			sgs = local;
		}
		update_sg_lb_stats(env, sg, sgs, &sg_overloaded);
		if (!local_group) {
			/* The child prefers siblings: a group running more than one task more
			 * than a local group with capacity counts as overloaded, so that the
			 * excess moves. */
			if (prefer_sibling && sds->local &&
			    group_has_capacity_v5_4(sd->imbalance_pct, local) &&
			    sgs->sum_nr_running > local->sum_nr_running + 1) {
				sgs->group_no_capacity = true;
				sgs->group_type = group_classify_v5_4(sg, sgs);
			}
			if (update_sd_pick_busiest(env, sds, sg, sgs)) {
				sds->busiest = sg;
				sds->busiest_stat = *sgs;
			}
		}
		sds->total_load += sgs->group_load;
		sds->total_capacity += sgs->group_capacity;
		sum_util += sgs->group_util;
	}
	/* As in balance_busiest.c: classified only with the NUMA feature on. */
	if ((sd->flags & TS_SD_NUMA) && ts_features_has(s->features, TS_FEAT_NUMA))
		env->fbq_type = fbq_classify(sds->busiest_stat.sum_nr_running,
					     sds->busiest_stat.nr_numa_running,
					     sds->busiest_stat.nr_preferred_running);
	if (!env->dry_run && !sd->parent &&
	    atomic_load_explicit(&s->overloaded, memory_order_relaxed) != sg_overloaded)
		atomic_store_explicit(&s->overloaded, sg_overloaded, memory_order_relaxed);
	/* Not v5.4 (SIS_UTIL is v6.0), but the feature may be turned on for it. */
	if (!env->dry_run && env->idle != TS_CPU_NEWLY_IDLE &&
	    sd == s->dom->cpu[env->dst_cpu].sd_llc)
		ts_update_idle_cpu_scan(s, env->dst_cpu, sum_util);
}

/* cpu_avg_load_per_task() */
static unsigned long cpu_avg_load_per_task(struct ts_sched *s, int cpu)
{
	unsigned int nr_running = ts_rq_nr_running(s, cpu);
	return nr_running ? ts_cpu_runnable_load(s, cpu) / nr_running : 0;
}

static unsigned long min_ul(unsigned long a, unsigned long b)
{
	return a < b ? a : b;
}

/* fix_small_imbalance(): an imbalance too small to move a task becomes one task's load
 * when busiest would stay at least as loaded as local after the move (imbn 2: local runs
 * nothing, or tasks at least as heavy as busiest's), or when the move would use more
 * capacity (capa_move > capa_now). */
static void fix_small_imbalance(struct lb_env *env, struct sd_lb_stats_v5_4 *sds)
{
	unsigned long tmp, capa_now = 0, capa_move = 0;
	unsigned int imbn = 2;
	struct sg_lb_stats_v5_4 *local = &sds->local_stat, *busiest = &sds->busiest_stat;

	if (!local->sum_nr_running)
		local->load_per_task = cpu_avg_load_per_task(env->s, env->dst_cpu);
	else if (busiest->load_per_task > local->load_per_task)
		imbn = 1;

	unsigned long scaled_busy_load_per_task =
		(busiest->load_per_task * TS_CAPACITY_SCALE) / busiest->group_capacity;
	if (busiest->avg_load + scaled_busy_load_per_task >=
	    local->avg_load + (scaled_busy_load_per_task * imbn)) {
		env->imbalance = (long)busiest->load_per_task;
		return;
	}

	/* Not enough imbalance to justify moving tasks; but moving one may use more of the
	 * CPUs' capacity. */
	capa_now += busiest->group_capacity * min_ul(busiest->load_per_task, busiest->avg_load);
	capa_now += local->group_capacity * min_ul(local->load_per_task, local->avg_load);
	capa_now /= TS_CAPACITY_SCALE;

	/* Amount of load we'd subtract */
	if (busiest->avg_load > scaled_busy_load_per_task)
		capa_move += busiest->group_capacity *
			     min_ul(busiest->load_per_task,
				    busiest->avg_load - scaled_busy_load_per_task);
	/* Amount of load we'd add */
	if (busiest->avg_load * busiest->group_capacity <
	    busiest->load_per_task * TS_CAPACITY_SCALE)
		tmp = (busiest->avg_load * busiest->group_capacity) / local->group_capacity;
	else
		tmp = (busiest->load_per_task * TS_CAPACITY_SCALE) / local->group_capacity;
	capa_move += local->group_capacity * min_ul(local->load_per_task, local->avg_load + tmp);
	capa_move /= TS_CAPACITY_SCALE;

	/* Move if we gain throughput */
	if (capa_move > capa_now)
		env->imbalance = (long)busiest->load_per_task;
}

/* calculate_imbalance(): bring busiest and local towards the domain's average load, never
 * past it, nor busiest's load below its capacity when both groups are overloaded
 * (load_above_capacity); an imbalance below a task's load goes to fix_small_imbalance(). */
static void calculate_imbalance(struct lb_env *env, struct sd_lb_stats_v5_4 *sds)
{
	unsigned long max_pull, load_above_capacity = ULONG_MAX;
	struct sg_lb_stats_v5_4 *local = &sds->local_stat, *busiest = &sds->busiest_stat;

	env->migration_type = migrate_load;
	if (busiest->group_type == group_imbalanced_v5_4) {
		/* group-wide averages cannot be relied on: look at wider ones */
		busiest->load_per_task = min_ul(busiest->load_per_task, sds->avg_load);
	}
	/* busiest's avg_load may be below the domain's, local's above it: avg_load weighs
	 * capacity and groups of lower type were skipped when picking busiest. */
	if (busiest->avg_load <= sds->avg_load || local->avg_load >= sds->avg_load) {
		env->imbalance = 0;
		fix_small_imbalance(env, sds);
		return;
	}
	/* If there aren't any idle CPUs, avoid creating some. */
	if (busiest->group_type == group_overloaded_v5_4 &&
	    local->group_type == group_overloaded_v5_4) {
		load_above_capacity = busiest->sum_nr_running * TS_CAPACITY_SCALE;
		if (load_above_capacity > busiest->group_capacity) {
			load_above_capacity -= busiest->group_capacity;
			load_above_capacity *= TS_NICE_0_LOAD;
			load_above_capacity /= busiest->group_capacity;
		} else {
			load_above_capacity = ULONG_MAX;
		}
	}
	max_pull = min_ul(busiest->avg_load - sds->avg_load, load_above_capacity);
	/* How much load to actually move to equalise the imbalance */
	env->imbalance = (long)(min_ul(max_pull * busiest->group_capacity,
				       (sds->avg_load - local->avg_load) * local->group_capacity) /
				TS_CAPACITY_SCALE);
	/* Below a task's average load nothing may move: think about bumping it. */
	if ((unsigned long)env->imbalance < busiest->load_per_task)
		fix_small_imbalance(env, sds);
}

struct ts_sched_group *ts_find_busiest_group_v5_4(struct lb_env *env)
{
	struct sd_lb_stats_v5_4 sds = {0};
	sds.busiest_stat.group_type = group_other_v5_4;

	update_sd_lb_stats(env, &sds);
	struct sg_lb_stats_v5_4 *local = &sds.local_stat, *busiest = &sds.busiest_stat;

	/* There is no busy sibling group to pull tasks from */
	if (!sds.busiest || busiest->sum_nr_running == 0)
		goto out_balanced;
	/* The domain's average load; the kernel's own comment here notes that it is wrong
	 * for overlapping NUMA groups, whose CPUs count more than once: kept as v5.4 has it. */
	sds.avg_load = (TS_CAPACITY_SCALE * sds.total_load) / sds.total_capacity;
	/* Affinity made the group-wide figures meaningless. */
	if (busiest->group_type == group_imbalanced_v5_4)
		goto force_balance;
	/* An idle dst with capacity pulls from a group without it, whatever avg_load says
	 * (SMP nice, asymmetric capacities). */
	if (env->idle != TS_CPU_NOT_IDLE &&
	    group_has_capacity_v5_4(env->sd->imbalance_pct, local) && busiest->group_no_capacity)
		goto force_balance;
	if (local->avg_load >= busiest->avg_load)
		goto out_balanced;
	/* Don't pull any tasks if this group is already above the domain average load. */
	if (local->avg_load >= sds.avg_load)
		goto out_balanced;
	if (env->idle == TS_CPU_IDLE) {
		/* A busiest that is not overloaded, with at most one idle CPU fewer: moving a
		 * task would only move the imbalance. */
		if (busiest->group_type != group_overloaded_v5_4 &&
		    local->idle_cpus <= busiest->idle_cpus + 1)
			goto out_balanced;
	} else {
		/* CPU_NEWLY_IDLE, CPU_NOT_IDLE: imbalance_pct, to be conservative. */
		if (100 * busiest->avg_load <= env->sd->imbalance_pct * local->avg_load)
			goto out_balanced;
	}

force_balance:
	calculate_imbalance(env, &sds);
	return env->imbalance ? sds.busiest : NULL;

out_balanced:
	env->imbalance = 0;
	return NULL;
}

/* The queue of the highest runnable load per capacity; a queue whose single task weighs
 * more than the imbalance is skipped (capacity is never reduced here, so
 * check_cpu_capacity() is false), as is, on SD_ASYM_CPUCAPACITY levels, a single task on
 * a CPU bigger than dst. */
int ts_find_busiest_queue_v5_4(struct lb_env *env, const struct ts_sched_group *group)
{
	struct ts_sched *s = env->s;
	int busiest = -1, i;
	unsigned long busiest_load = 0, busiest_capacity = 1;

	ts_for_each_cpu_and(i, group->span, env->cpus)
	{
		if (fbq_classify_rq(s, i) > env->fbq_type)
			continue;
		unsigned int nr_running = ts_rq_nr_running(s, i);
		unsigned long capacity = ts_capacity_of(s, i);
		if ((env->sd->flags & TS_SD_ASYM_CPUCAPACITY) &&
		    ts_capacity_of(s, env->dst_cpu) < capacity && nr_running == 1)
			continue;
		unsigned long load = ts_cpu_runnable_load(s, i);
		if (nr_running == 1 && (long)load > env->imbalance)
			continue;
		if (load * busiest_capacity > busiest_load * capacity) {
			busiest_load = load;
			busiest_capacity = capacity;
			busiest = i;
		}
	}
	return busiest;
}
