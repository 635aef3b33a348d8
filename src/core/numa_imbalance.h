/* The NUMA imbalance the kernel lets stand, per generation (s->kernel.numa_imbalance,
 * enum ts_numa_imbalance; docs/kernels.md, "The NUMA imbalance"): one rule,
 * adjust_numa_imbalance(), that fork placement, periodic balancing and NUMA balancing
 * share in kernel/sched/fair.c, and that changed for all three at once from v5.6 to v6.0.
 * Private to the core. */
#ifndef TOPOSCHED_CORE_NUMA_IMBALANCE_H
#define TOPOSCHED_CORE_NUMA_IMBALANCE_H

#include <stdbool.h>

#include "balance.h"

/* adjust_numa_imbalance() of the era: imbalance, or 0 where the kernel lets it stand.
 * running: the tasks of the node the era looks at (with the task to move, where the era
 * counts it); limit: imb_numa_nr from v5.18, the node's CPUs in v5.11-v5.17, unused
 * before. */
long ts_numa_adjust_imbalance(enum ts_numa_imbalance era, long imbalance, long running, long limit);

/* sd->imb_numa_nr as the era's build_sched_domains() computes it. */
long ts_numa_imb_nr(const struct ts_sched *s, const struct ts_sched_domain *sd);

/* find_idlest_group()'s SD_NUMA case with spare capacity: whether the forked task stays
 * on the local node (local: the forking CPU's group). */
bool ts_numa_fork_stays_local(const struct ts_sched *s, const struct ts_sched_domain *sd,
			      const struct ts_sched_group *local,
			      const struct sg_lb_stats *local_sgs,
			      const struct sg_lb_stats *idlest_sgs, const struct ts_task *p);

/* calculate_imbalance() with a local group that has spare capacity: the number of tasks to
 * move, from the difference found (imbalance, not yet halved), after the era's NUMA
 * allowance and halving, whose order the era sets. */
long ts_numa_spare_imbalance(const struct ts_sched *s, const struct ts_sched_domain *sd,
			     long imbalance, const struct sg_lb_stats *local,
			     const struct sg_lb_stats *busiest);

#endif
