/* Scheduling-domain construction's shared state, private to domain.c (the levels, the
 * domains, degeneration and the per-CPU shortcuts) and domain_groups.c (the sched groups
 * and their capacities): the builder, the interned masks' header and the arena. */
#ifndef TOPOSCHED_CORE_DOMAIN_BUILD_H
#define TOPOSCHED_CORE_DOMAIN_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "toposched/domain.h"

/* Interned masks: equal spans share one pointer, so equality is a compare. Each pooled
 * mask is preceded by its header. */
struct pool_hdr {
	int weight;
	int cores;
	int64_t pad_; /* keeps the mask 8-byte aligned */
};

static inline struct pool_hdr *hdr_of(const struct ts_cpumask *m)
{
	return (struct pool_hdr *)((char *)(uintptr_t)m - sizeof(struct pool_hdr));
}

static inline int pooled_weight(const struct ts_cpumask *m)
{
	return hdr_of(m)->weight;
}

/* A small arena for groups and capacities, freed with the domains. */
struct arena {
	char **blocks;
	size_t nr_blocks, used, block_size;
};

void *ts_arena_alloc(struct arena *a, size_t size);

/* The topology table (default_topology[] + sched_init_numa() levels). */
struct tl {
	const char *name;
	unsigned int flags;		/* topology flags (TOPOLOGY_SD_FLAGS) */
	int numa_level;			/* -1, or the index into the NUMA distances */
	const struct ts_cpumask **span; /* [nr_cpus]: tl->mask(cpu) & cpu_map, interned */
};

struct builder {
	struct ts_domains *d;
	const struct ts_topology *t;
	int nr_tl;
	struct tl *tl;
	struct ts_sched_domain **sd_of;	   /* [nr_tl * nr_cpus]: per-level per-CPU domain */
	struct ts_sched_group **reg_group; /* [nr_tl * nr_cpus]: non-overlap groups by first CPU */
	struct ts_sched_group_capacity **sgc_of; /* [nr_tl * nr_cpus] */
	struct arena arena;
	const struct ts_cpumask *cpu_map; /* interned */
	struct ts_cpumask *tmp, *tmp2;
	int *core_stamp, stamp; /* for counting cores per mask */
	struct balance_cache {	/* (level, group span) -> balance mask */
		const struct ts_cpumask *span, *mask;
		int level;
	} * bal;
	size_t bal_cap, bal_count;
	int nr_caps, caps[16]; /* distinct CPU capacities (asym_cap_list) */
	struct ts_cpumask *cap_span[16];
};

#define AT(b, arr, level, cpu) ((b)->arr[(size_t)(level) * (size_t)(b)->d->nr_cpus + (size_t)(cpu)])

/* The interned copy of m in *out; -ENOMEM when out of memory. */
int ts_intern_into(struct builder *b, const struct ts_cpumask *m, const struct ts_cpumask **out);

/* domain_groups.c: build_sched_groups() and build_overlap_sched_groups() of sd for cpu. */
int ts_build_sched_groups(struct builder *b, struct ts_sched_domain *sd, int cpu);
int ts_build_overlap_sched_groups(struct builder *b, struct ts_sched_domain *sd, int cpu);

#endif
