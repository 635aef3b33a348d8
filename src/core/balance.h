/* Load balancing's shared part, private to the core's balance*.c files: the group
 * statistics and classification that periodic/newly-idle balancing (balance.c), the
 * busiest-group search (balance_busiest.c) and the fork/exec slow path (balance_fork.c)
 * all use, after kernel/sched/fair.c (v6.6 .. v6.12). */
#ifndef TOPOSCHED_CORE_BALANCE_H
#define TOPOSCHED_CORE_BALANCE_H

#include <stdbool.h>

#include "toposched/sched.h"

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
	bool dry_run; /* ts_balance_finds_imbalance(): decide, write nothing shared */
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

/* sgc->imbalance is shared by the CPUs of a group and written without a lock, as in the
 * kernel: relaxed atomic accesses on the plain int. */
static inline int sgc_imbalance(const struct ts_sched_group_capacity *sgc)
{
	return __atomic_load_n(&sgc->imbalance, __ATOMIC_RELAXED);
}

/* ---- statistics and classification ---- */

/* fbq_classify_group() and fbq_classify_rq(): of nr CFS tasks, numa have a preferred node
 * and pref run on it. */
static inline enum fbq_type fbq_classify(unsigned int nr, unsigned int numa, unsigned int pref)
{
	if (nr > numa)
		return regular;
	if (nr > pref)
		return remote;
	return all;
}

static inline enum fbq_type fbq_classify_rq(struct ts_sched *s, int cpu)
{
	const struct ts_rq_ro *ro = &s->rq[cpu].ro;
	return fbq_classify(atomic_load_explicit(&ro->nr_running, memory_order_relaxed),
			    atomic_load_explicit(&ro->nr_numa_running, memory_order_relaxed),
			    atomic_load_explicit(&ro->nr_preferred_running, memory_order_relaxed));
}

/* A group_runnable of 0 (kernels before v5.7, which had no runnable_avg: the sums leave it
 * out) makes both runnable tests false: the v5.5-v5.6 classification. */
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

static inline enum group_type group_classify(unsigned int imbalance_pct,
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

/* balance_busiest.c: sched_balance_find_src_group() and sched_balance_find_src_rq(), once
 * find_busiest_group() and find_busiest_queue(). */
struct ts_sched_group *ts_find_busiest_group(struct lb_env *env);
int ts_find_busiest_queue(struct lb_env *env, const struct ts_sched_group *group);

/* balance_busiest_v5_4.c: the same two of kernels before the v5.5 rework (the profile's
 * lb_group_types false). */
struct ts_sched_group *ts_find_busiest_group_v5_4(struct lb_env *env);
int ts_find_busiest_queue_v5_4(struct lb_env *env, const struct ts_sched_group *group);

#endif
