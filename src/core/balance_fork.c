/* The fork/exec slow path of task placement, after kernel/sched/fair.c (v6.6 .. v6.12):
 * sched_balance_find_dst_cpu(), once find_idlest_cpu(), walks the domains with the
 * SD_BALANCE_FORK/EXEC flag down to the idlest group and its idlest CPU. With the v5.4
 * profile the group is chosen by v5.4's load-based find_idlest_group(). */
#include <limits.h>
#include <stdlib.h>

#include "balance.h"
#include "numa_imbalance.h"

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

/* cpu_util_without(): cpu's utilisation without p's (exec balancing of a queued task),
 * clamped to the CPU's capacity. */
static unsigned long cpu_util_without(struct ts_sched *s, int cpu, const struct ts_task *p)
{
	if (!task_counts_on(p, cpu))
		return ts_cpu_util(s, cpu);
	return ts_cpu_util_clamp(s, cpu, sub_floor(ts_cpu_util_avg(s, cpu), p->se.avg.util_avg));
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
			util = cpu_util_without(s, i, p);
			runnable = sub_floor(runnable, p->se.avg.runnable_avg);
		}
		sgs->group_load += load;
		sgs->group_util += util;
		if (s->kernel.group_runnable) /* before v5.7: no runnable_avg to weigh */
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
		if ((sd->flags & TS_SD_NUMA) &&
		    ts_numa_fork_stays_local(s, sd, local, &local_sgs, &idlest_sgs, p))
			return NULL;
		if (local_sgs.idle_cpus >= idlest_sgs.idle_cpus)
			return NULL;
		break;
	}
	return idlest;
}

/* find_idlest_group() of v5.4 (kernel/sched/fair.c before 57abff067a08): the remote
 * group whose runnable_load_avg (cpu_runnable_load(), per capacity) is lower by more than
 * the domain's imbalance, or within it and lower in load_avg (cfs_rq_load_avg(), blocked
 * load included) by the imbalance scale; outside fork balancing first the local group or
 * the group of most spare capacity (capacity_spare_without()) when that exceeds half of
 * p's utilisation. The local group's sums start at ULONG_MAX and the comparisons are the
 * kernel's unsigned ones, wrap-around included when the local group is not allowed. */
static struct ts_sched_group *find_idlest_group_v5_4(struct ts_sched *s, struct ts_sched_domain *sd,
						     struct ts_task *p, int this_cpu, int sd_flag)
{
	struct ts_sched_group *idlest = NULL, *most_spare_sg = NULL;
	unsigned long min_runnable_load = ULONG_MAX, this_runnable_load = ULONG_MAX;
	unsigned long min_avg_load = ULONG_MAX, this_avg_load = ULONG_MAX;
	unsigned long most_spare = 0, this_spare = 0;
	unsigned long imbalance_scale = 100 + (sd->imbalance_pct - 100) / 2;
	unsigned long imbalance = TS_NICE_0_LOAD * (sd->imbalance_pct - 100) / 100;

	for (int g = 0; g < sd->nr_groups; g++) {
		struct ts_sched_group *group = sd->groups[g];
		if (!group_allows(group, p))
			continue;
		bool local_group = ts_cpumask_test(group->span, this_cpu);
		unsigned long avg_load = 0, runnable_load = 0, max_spare_cap = 0;
		int i;
		ts_for_each_cpu(i, group->span)
		{
			runnable_load += ts_cpu_runnable_load(s, i);
			avg_load += ts_cpu_load(s, i);
			unsigned long spare_cap =
				sub_floor(ts_capacity_of(s, i), cpu_util_without(s, i, p));
			if (spare_cap > max_spare_cap)
				max_spare_cap = spare_cap;
		}
		/* Adjust by relative CPU capacity of the group */
		avg_load = avg_load * TS_CAPACITY_SCALE / group->sgc->capacity;
		runnable_load = runnable_load * TS_CAPACITY_SCALE / group->sgc->capacity;
		if (local_group) {
			this_runnable_load = runnable_load;
			this_avg_load = avg_load;
			this_spare = max_spare_cap;
			continue;
		}
		if (min_runnable_load > runnable_load + imbalance) {
			/* The runnable load is significantly smaller. */
			min_runnable_load = runnable_load;
			min_avg_load = avg_load;
			idlest = group;
		} else if (runnable_load < min_runnable_load + imbalance &&
			   100 * min_avg_load > imbalance_scale * avg_load) {
			/* Close runnable loads: the blocked load decides, through avg_load. */
			min_avg_load = avg_load;
			idlest = group;
		}
		if (most_spare < max_spare_cap) {
			most_spare = max_spare_cap;
			most_spare_sg = group;
		}
	}
	/* A fork's utilisation is not set yet: spare capacity is for exec (and wake). */
	if (!(sd_flag & TS_SD_BALANCE_FORK)) {
		unsigned long task_util = p->se.avg.util_avg;
		if (this_spare > task_util / 2 && imbalance_scale * this_spare > 100 * most_spare)
			return NULL;
		if (most_spare > task_util / 2)
			return most_spare_sg;
	}
	if (!idlest)
		return NULL;
	/* Across NUMA domains, add the imbalance to the remote side: stay local. */
	if ((sd->flags & TS_SD_NUMA) && min_runnable_load + imbalance >= this_runnable_load)
		return NULL;
	if (min_runnable_load > this_runnable_load + imbalance)
		return NULL;
	if (this_runnable_load < min_runnable_load + imbalance &&
	    100 * this_avg_load < imbalance_scale * min_avg_load)
		return NULL;
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
			/* v5.4: cpu_runnable_load() */
			unsigned long load = s->kernel.idlest_group_by_type
						     ? ts_cpu_load(s, i)
						     : ts_cpu_runnable_load(s, i);
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
		struct ts_sched_group *group =
			s->kernel.idlest_group_by_type
				? find_idlest_group(s, sd, p, cpu)
				: find_idlest_group_v5_4(s, sd, p, cpu, sd_flag);
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
