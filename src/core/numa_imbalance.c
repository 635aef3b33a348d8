/* The NUMA imbalance each kernel generation lets stand (numa_imbalance.h). The commits,
 * newest first: cb29a5c19d2d "sched/numa: Apply imbalance limitations consistently",
 * f5b2eeb49991 "sched/fair: Consider CPU affinity when allowing NUMA imbalance in
 * find_idlest_group()", 026b98a93bbd "sched/numa: Adjust imb_numa_nr to a better
 * approximation of memory channels" (v6.0); 2cfb7a1b031b "sched/fair: Improve consistency
 * of allowed NUMA balance calculations", e496132ebedd "sched/fair: Adjust the allowed NUMA
 * imbalance when SD_NUMA spans multiple LLCs" (v5.18); 7d2b5dd0bcc4 "sched/numa: Allow a
 * floating imbalance between NUMA nodes", 23e6082a522e "sched/numa: Limit the amount of
 * imbalance that can exist at fork time" (v5.11); 233e7aca4c8a "sched/numa: Use dst
 * group while checking imbalance for NUMA balancer" (v5.10); fb86f5b21192 "sched/numa: Use
 * similar logic to the load balancer for moving between domains with spare capacity"
 * (v5.7); b396f52326de "sched/fair: Allow a small load imbalance between low utilisation
 * SD_NUMA domains" (v5.6); 57abff067a08 "sched/fair: Rework find_idlest_group()" (v5.5). */
#include "numa_imbalance.h"

#include <stdlib.h>

#include "toposched/numa.h"

long ts_numa_adjust_imbalance(enum ts_numa_imbalance era, long imbalance, long running, long limit)
{
	switch (era) {
	case TS_NUMA_IMB_NONE:
		return imbalance;
	case TS_NUMA_IMB_PAIR_LB:
	case TS_NUMA_IMB_PAIR_SRC:
	case TS_NUMA_IMB_PAIR_DST:
		/* "a simple pair of communicating tasks that remain local when the source
		 * domain is almost idle": any imbalance, while <= NUMA_IMBALANCE_MIN run */
		return running <= TS_NUMA_IMBALANCE_MIN ? 0 : imbalance;
	case TS_NUMA_IMB_QUARTER:
		/* allow_numa_imbalance(): running < weight >> 2 */
		if (running >= (limit >> 2))
			return imbalance;
		break;
	case TS_NUMA_IMB_LLCS:
	case TS_NUMA_IMB_CONSISTENT:
		/* allow_numa_imbalance() of v5.18 (running <= imb_numa_nr), inlined in v6.0 */
		if (running > limit)
			return imbalance;
		break;
	}
	return imbalance <= TS_NUMA_IMBALANCE_MIN ? 0 : imbalance;
}

long ts_numa_imb_nr(const struct ts_sched *s, const struct ts_sched_domain *sd)
{
	return s->kernel.numa_imbalance == TS_NUMA_IMB_LLCS ? (long)sd->imb_numa_nr_v5_18
							    : (long)sd->imb_numa_nr;
}

bool ts_numa_fork_stays_local(const struct ts_sched *s, const struct ts_sched_domain *sd,
			      const struct ts_sched_group *local,
			      const struct sg_lb_stats *local_sgs,
			      const struct sg_lb_stats *idlest_sgs, const struct ts_task *p)
{
	/* (No numa_preferred_nid at fork: the NUMA_BALANCING preferred-node rule of every era
	 * is left out.) */
	long running = (long)local_sgs->sum_nr_running;
	switch (s->kernel.numa_imbalance) {
	case TS_NUMA_IMB_NONE:
	case TS_NUMA_IMB_PAIR_LB:
	case TS_NUMA_IMB_PAIR_SRC:
	case TS_NUMA_IMB_PAIR_DST:
		/* "keep the task on this node to stay close its wakeup source" */
		return local_sgs->idle_cpus > 0;
	case TS_NUMA_IMB_QUARTER:
		return running < (long)(sd->span_weight >> 2);
	case TS_NUMA_IMB_LLCS:
		return running + 1 <= ts_numa_imb_nr(s, sd);
	case TS_NUMA_IMB_CONSISTENT:
		break;
	}
	/* Counting only the local CPUs the task may use (f5b2eeb49991). */
	long imb_numa_nr = (long)sd->imb_numa_nr;
	long w = p->cpus_allowed ? ts_cpumask_weight_and(local->span, p->cpus_allowed)
				 : local->group_weight;
	if (w < imb_numa_nr)
		imb_numa_nr = w;
	long imbalance = labs((long)local_sgs->idle_cpus - (long)idlest_sgs->idle_cpus);
	return !ts_numa_adjust_imbalance(TS_NUMA_IMB_CONSISTENT, imbalance, running + 1,
					 imb_numa_nr);
}

long ts_numa_spare_imbalance(const struct ts_sched *s, const struct ts_sched_domain *sd,
			     long imbalance, const struct sg_lb_stats *local,
			     const struct sg_lb_stats *busiest)
{
	enum ts_numa_imbalance era = s->kernel.numa_imbalance;
	if (!(sd->flags & TS_SD_NUMA))
		return imbalance >> 1;
	switch (era) {
	case TS_NUMA_IMB_CONSISTENT: /* allow on the whole difference, then halve */
		return ts_numa_adjust_imbalance(era, imbalance, (long)local->sum_nr_running + 1,
						ts_numa_imb_nr(s, sd)) >>
		       1;
	case TS_NUMA_IMB_LLCS:
		return ts_numa_adjust_imbalance(era, imbalance >> 1,
						(long)local->sum_nr_running + 1,
						ts_numa_imb_nr(s, sd));
	case TS_NUMA_IMB_QUARTER: /* the busiest group's tasks against its CPUs */
		return ts_numa_adjust_imbalance(era, imbalance >> 1, (long)busiest->sum_nr_running,
						(long)busiest->group_weight);
	case TS_NUMA_IMB_PAIR_LB:
	case TS_NUMA_IMB_PAIR_SRC:
	case TS_NUMA_IMB_PAIR_DST:
		return ts_numa_adjust_imbalance(era, imbalance >> 1, (long)busiest->sum_nr_running,
						0);
	case TS_NUMA_IMB_NONE:
		break;
	}
	return imbalance >> 1;
}
