/* Scheduling domains and groups, built exactly as kernel/sched/topology.c builds them:
 * levels SMT, CLS, MC, PKG, NODE and one NUMA level per further distance; sd_init()
 * flags and constants; groups whose first member is the owning CPU's child domain;
 * overlapping NUMA groups with balance masks; degenerate-level removal; and the per-CPU
 * shortcuts (sd_llc, sd_llc_size, sd_llc_id, sd_share_id, sd_numa). */
#ifndef TOPOSCHED_DOMAIN_H
#define TOPOSCHED_DOMAIN_H

#include <assert.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/cpumask.h"
#include "toposched/numa_levels.h"
#include "toposched/stats.h"
#include "toposched/topology.h"

/* include/linux/sched/sd_flags.h, same bit order. */
enum {
	TS_SD_BALANCE_NEWIDLE = 1 << 0,
	TS_SD_BALANCE_EXEC = 1 << 1,
	TS_SD_BALANCE_FORK = 1 << 2,
	TS_SD_BALANCE_WAKE = 1 << 3,
	TS_SD_WAKE_AFFINE = 1 << 4,
	TS_SD_ASYM_CPUCAPACITY = 1 << 5,
	TS_SD_ASYM_CPUCAPACITY_FULL = 1 << 6,
	TS_SD_SHARE_CPUCAPACITY = 1 << 7,
	TS_SD_CLUSTER = 1 << 8,
	TS_SD_SHARE_LLC = 1 << 9,
	TS_SD_SERIALIZE = 1 << 10,
	TS_SD_ASYM_PACKING = 1 << 11,
	TS_SD_PREFER_SIBLING = 1 << 12,
	TS_SD_NUMA = 1 << 13,
	TS_SD_FLAG_COUNT = 14,
};
/* Flags with the SDF_NEEDS_GROUPS meta flag: meaningless on a domain with one group. */
#define TS_SD_DEGENERATE_GROUPS_MASK                                                               \
	(TS_SD_BALANCE_NEWIDLE | TS_SD_BALANCE_EXEC | TS_SD_BALANCE_FORK | TS_SD_BALANCE_WAKE |    \
	 TS_SD_ASYM_CPUCAPACITY | TS_SD_ASYM_CPUCAPACITY_FULL | TS_SD_SHARE_CPUCAPACITY |          \
	 TS_SD_CLUSTER | TS_SD_SHARE_LLC | TS_SD_SERIALIZE | TS_SD_ASYM_PACKING |                  \
	 TS_SD_PREFER_SIBLING | TS_SD_NUMA)

const char *ts_sd_flag_name(unsigned int flag); /* "SD_SHARE_LLC"; NULL if not one flag */
/* "SD_BALANCE_NEWIDLE|SD_WAKE_AFFINE|..." in bit order; snprintf-style return. */
size_t ts_sd_flags_format(unsigned int flags, char *buf, size_t size);

/* Shared by all CPUs of one group (sched_group_capacity): written by load balancing. */
struct ts_sched_group_capacity {
	unsigned long capacity; /* sum of the CPUs' capacities */
	unsigned long min_capacity, max_capacity;
	unsigned long next_update;
	int imbalance; /* set when affinity defeated a balance */
	int id;	       /* the group's balance CPU */
};

struct ts_sched_group {
	const struct ts_cpumask *span;	       /* interned: equal spans are the same pointer */
	const struct ts_cpumask *balance_mask; /* CPUs that may balance for this group */
	unsigned int flags;		       /* the child domain's flags (SD_CLUSTER …) */
	int group_weight;
	int cores; /* SMT cores in the group */
	struct ts_sched_group_capacity *sgc;
};

/* One per LLC instance; every CPU of the LLC writes it, so it owns its cache lines. */
struct ts_sched_domain_shared {
	alignas(64) atomic_int nr_busy_cpus;
	atomic_int has_idle_cores;
	atomic_int nr_idle_scan; /* SIS_UTIL budget */
	atomic_int overloaded;	 /* SIS_OVERLOAD mark */
	char pad_[64 - 4 * sizeof(atomic_int)];
};
static_assert(sizeof(struct ts_sched_domain_shared) == 64, "sched_domain_shared is one line");
static_assert(offsetof(struct ts_sched_domain_shared, nr_busy_cpus) == 0, "line start");

struct ts_sched_domain {
	struct ts_sched_domain *parent, *child;
	const struct ts_cpumask *span; /* interned */
	int span_weight;
	struct ts_sched_group **groups; /* circular in the kernel; here [nr_groups], [0] = own */
	int nr_groups;
	unsigned int flags;
	int level; /* build depth (sd->level): 0 = lowest level built */
	const char *name;
	int numa_level; /* index into the NUMA distances for NODE/NUMA, -1 otherwise */
	/* sd_init() constants */
	unsigned int min_interval, max_interval, busy_factor, imbalance_pct, cache_nice_tries;
	/* the NUMA imbalance allowed (build_sched_domains()): v6.0's rule, and v5.18-v5.19's
	 * (e496132ebedd: a node that is one LLC allows a quarter of its CPUs, not an eighth,
	 * and no floor of 1) for the kernel profiles of those releases */
	unsigned int imb_numa_nr, imb_numa_nr_v5_18;
	/* load-balance state, written under the owning CPU's run-queue lock */
	unsigned int balance_interval; /* ms */
	unsigned int nr_balance_failed;
	uint64_t last_balance;
	uint64_t max_newidle_lb_cost;
	uint64_t last_decay_max_lb_cost;
	uint64_t avg_scan_cost;	  /* SIS_PROP, on each CPU's sd_llc */
	struct ts_sd_stats stats; /* schedstat counters of this CPU's domain */
	struct ts_sched_domain_shared *shared;
	int cpu; /* owning CPU */
};

/* The per-CPU shortcuts of update_top_cache_domain(). */
struct ts_cpu_domains {
	struct ts_sched_domain *sd; /* rq->sd: the base domain, NULL when none */
	struct ts_sched_domain *sd_llc;
	int sd_llc_size;
	int sd_llc_id;	 /* first CPU of sd_llc's span (mainline) */
	int sd_share_id; /* first CPU of the lowest SD_CLUSTER domain, else llc id */
	struct ts_sched_domain_shared *sd_llc_shared;
	struct ts_sched_domain *sd_numa;
	struct ts_sched_domain *sd_asym_cpucapacity;
};

struct ts_mask_pool; /* interning table, private */

struct ts_domains {
	const struct ts_topology *topo;
	int nr_cpus;
	struct ts_cpumask *cpu_map; /* the CPUs the domains were built for */
	struct ts_cpu_domains *cpu; /* [nr_cpus] */
	struct ts_numa_levels numa;
	bool smt_active;       /* sched_smt_present */
	bool cluster_active;   /* sched_cluster_active */
	bool asym_cpucapacity; /* sched_asym_cpucapacity */
	/* storage */
	struct ts_mask_pool *pool;
	struct ts_sched_domain *sd_arena;
	size_t nr_sd;
	struct ts_sched_group **group_blocks;
	size_t nr_group_blocks;
	struct ts_sched_domain_shared *shared_arena; /* [nr_cpus], aligned */
};

/* Builds the domains of cpu_map (NULL = every CPU of t) as the newest kernel does. t must
 * outlive the result. */
int ts_domains_build(const struct ts_topology *t, const struct ts_cpumask *cpu_map,
		     struct ts_domains **out, struct ts_error *err);
/* The same for a kernel with (sched_cluster) or without a CLS level (CONFIG_SCHED_CLUSTER,
 * v5.16: kernel_profile.h's sched_cluster). */
int ts_domains_build_config(const struct ts_topology *t, const struct ts_cpumask *cpu_map,
			    bool sched_cluster, struct ts_domains **out, struct ts_error *err);
void ts_domains_free(struct ts_domains *d);
/* sd_init()'s defaults of another kernel era (kernel_profile.h, sd_imbalance_pct and
 * sd_busy_factor): every domain's busy_factor, and the imbalance_pct of every domain that
 * is neither of SMT siblings nor of an LLC. The build uses v5.10+'s 117 and 16. */
void ts_domains_set_sd_defaults(struct ts_domains *d, unsigned int imbalance_pct,
				unsigned int busy_factor);

#define ts_for_each_domain(d, c_, sdp) for ((sdp) = (d)->cpu[(c_)].sd; (sdp); (sdp) = (sdp)->parent)

struct ts_sched_domain *ts_highest_flag_domain(const struct ts_domains *d, int cpu,
					       unsigned int flag);
struct ts_sched_domain *ts_lowest_flag_domain(const struct ts_domains *d, int cpu,
					      unsigned int flag);

static inline bool ts_cpus_share_cache(const struct ts_domains *d, int a, int b)
{
	return a == b || d->cpu[a].sd_llc_id == d->cpu[b].sd_llc_id;
}
static inline bool ts_cpus_share_resources(const struct ts_domains *d, int a, int b)
{
	return a == b || d->cpu[a].sd_share_id == d->cpu[b].sd_share_id;
}
static inline int ts_group_balance_cpu(const struct ts_sched_group *sg)
{
	return ts_cpumask_first(sg->balance_mask);
}

#endif
