/* Scheduling-domain construction, following kernel/sched/topology.c:
 * sched_init_numa() -> build_sched_domains() { build_sched_domain() per level and CPU,
 * build_sched_groups() / build_overlap_sched_groups(), init_sched_domain_shared(),
 * adjust_numa_imbalance(), init_sched_groups_capacity() } -> cpu_attach_domain() per CPU
 * (degenerate-level removal) -> update_top_cache_domain().
 *
 * Deliberate differences: one topology table for every architecture (the generic
 * default_topology[] SMT, CLS, MC, PKG plus NODE/NUMA; x86 drops PKG when a package holds
 * several nodes, which degenerates to the same result); no SD_ASYM_PACKING (ITMT);
 * sd_llc_id is mainline's first CPU of the LLC, not the SCHED_CACHE tree's dense id.
 *
 * The sched groups (build_sched_groups(), build_overlap_sched_groups(), the group
 * capacities) are built in domain_groups.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "domain_build.h"

/* ---- interned masks: equal spans share one pointer, so equality is a compare ---- */

struct ts_mask_pool {
	int nr_cpus;
	size_t cap, count;
	struct ts_cpumask **slot;
};

static struct ts_mask_pool *pool_new(int nr_cpus)
{
	struct ts_mask_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->nr_cpus = nr_cpus;
	p->cap = 1024;
	p->slot = calloc(p->cap, sizeof(*p->slot));
	if (!p->slot) {
		free(p);
		return NULL;
	}
	return p;
}

static void pool_free(struct ts_mask_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->cap; i++)
		if (p->slot[i])
			free(hdr_of(p->slot[i]));
	free(p->slot);
	free(p);
}

static int pool_grow(struct ts_mask_pool *p)
{
	size_t ncap = p->cap * 2;
	struct ts_cpumask **ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->slot[i])
			continue;
		size_t j = (size_t)ts_cpumask_hash(p->slot[i]) & (ncap - 1);
		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = p->slot[i];
	}
	free(p->slot);
	p->slot = ns;
	p->cap = ncap;
	return 0;
}

/* Returns the pooled copy of m (NULL when out of memory). */
static const struct ts_cpumask *pool_intern(struct ts_mask_pool *p, const struct ts_cpumask *m)
{
	if (p->count * 2 >= p->cap && pool_grow(p))
		return NULL;
	size_t i = (size_t)ts_cpumask_hash(m) & (p->cap - 1);
	while (p->slot[i]) {
		if (ts_cpumask_equal(p->slot[i], m))
			return p->slot[i];
		i = (i + 1) & (p->cap - 1);
	}
	struct pool_hdr *h = malloc(sizeof(*h) + ts_cpumask_size(p->nr_cpus));
	if (!h)
		return NULL;
	struct ts_cpumask *copy = (struct ts_cpumask *)(h + 1);
	copy->nr_cpus = p->nr_cpus;
	ts_cpumask_copy(copy, m);
	h->weight = ts_cpumask_weight(m);
	h->cores = -1; /* computed on demand */
	p->slot[i] = copy;
	p->count++;
	return copy;
}

/* ---- small arena for groups and capacities ---- */

void *ts_arena_alloc(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (!a->nr_blocks || a->used + size > a->block_size) {
		char **nb = realloc(a->blocks, (a->nr_blocks + 1) * sizeof(*nb));
		if (!nb)
			return NULL;
		a->blocks = nb;
		a->block_size = size > 65536 ? size : 65536;
		a->blocks[a->nr_blocks] = calloc(1, a->block_size);
		if (!a->blocks[a->nr_blocks])
			return NULL;
		a->nr_blocks++;
		a->used = 0;
	}
	void *r = a->blocks[a->nr_blocks - 1] + a->used;
	a->used += size;
	return r;
}

static void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->nr_blocks; i++)
		free(a->blocks[i]);
	free(a->blocks);
}

/* ---- flag names ---- */

static const char *const flag_names[TS_SD_FLAG_COUNT] = {
	"SD_BALANCE_NEWIDLE",
	"SD_BALANCE_EXEC",
	"SD_BALANCE_FORK",
	"SD_BALANCE_WAKE",
	"SD_WAKE_AFFINE",
	"SD_ASYM_CPUCAPACITY",
	"SD_ASYM_CPUCAPACITY_FULL",
	"SD_SHARE_CPUCAPACITY",
	"SD_CLUSTER",
	"SD_SHARE_LLC",
	"SD_SERIALIZE",
	"SD_ASYM_PACKING",
	"SD_PREFER_SIBLING",
	"SD_NUMA",
};

/* SDF_SHARED_CHILD flags: highest_flag_domain() stops at the first domain without one. */
#define SHARED_CHILD_MASK                                                                          \
	(TS_SD_BALANCE_NEWIDLE | TS_SD_BALANCE_EXEC | TS_SD_BALANCE_FORK | TS_SD_BALANCE_WAKE |    \
	 TS_SD_WAKE_AFFINE | TS_SD_SHARE_CPUCAPACITY | TS_SD_CLUSTER | TS_SD_SHARE_LLC |           \
	 TS_SD_ASYM_PACKING)

const char *ts_sd_flag_name(unsigned int flag)
{
	for (int i = 0; i < TS_SD_FLAG_COUNT; i++)
		if (flag == 1u << i)
			return flag_names[i];
	return NULL;
}

size_t ts_sd_flags_format(unsigned int flags, char *buf, size_t size)
{
	size_t len = 0;
	if (size)
		buf[0] = '\0';
	for (int i = 0; i < TS_SD_FLAG_COUNT; i++) {
		if (!(flags & (1u << i)))
			continue;
		size_t n = strlen(flag_names[i]) + (len ? 1 : 0);
		if (len + n < size) {
			if (len)
				buf[len] = '|';
			memcpy(buf + len + (len ? 1 : 0), flag_names[i], strlen(flag_names[i]));
			buf[len + n] = '\0';
		}
		len += n;
	}
	return len;
}

/* ---- the topology table (default_topology[] + sched_init_numa() levels) ---- */

int ts_intern_into(struct builder *b, const struct ts_cpumask *m, const struct ts_cpumask **out)
{
	*out = pool_intern(b->d->pool, m);
	return *out ? 0 : -ENOMEM;
}

/* Span of every CPU at a level given by an id per CPU (core, cluster, llc, node). */
static int spans_by_id(struct builder *b, struct tl *l, const int *id_of, int nr_ids)
{
	int n = b->d->nr_cpus;
	struct ts_cpumask **by_id = calloc((size_t)nr_ids, sizeof(*by_id));
	const struct ts_cpumask **interned = calloc((size_t)nr_ids, sizeof(*interned));
	int rc = by_id && interned ? 0 : -ENOMEM;
	for (int c = 0; c < n && !rc; c++) {
		if (!ts_cpumask_test(b->cpu_map, c))
			continue;
		int id = id_of[c];
		if (!by_id[id] && !(by_id[id] = ts_cpumask_alloc(n)))
			rc = -ENOMEM;
		else
			ts_cpumask_set(by_id[id], c);
	}
	for (int c = 0; c < n && !rc; c++) {
		if (!ts_cpumask_test(b->cpu_map, c))
			continue;
		int id = id_of[c];
		if (!interned[id])
			rc = ts_intern_into(b, by_id[id], &interned[id]);
		l->span[c] = interned[id];
	}
	if (by_id)
		for (int i = 0; i < nr_ids; i++)
			ts_cpumask_free(by_id[i]);
	free(by_id);
	free(interned);
	return rc;
}

static int build_topology_levels(struct builder *b, bool sched_cluster)
{
	const struct ts_topology *t = b->t;
	struct ts_numa_levels *nl = &b->d->numa;
	int n = t->nr_cpus;
	b->nr_tl = 4 + nl->nr_levels; /* SMT CLS MC PKG + NODE + NUMA 1..L-1 */
	b->tl = calloc((size_t)b->nr_tl, sizeof(*b->tl));
	int *ids = malloc((size_t)n * sizeof(int));
	if (!b->tl || !ids) {
		free(ids);
		return -ENOMEM;
	}
	static const struct {
		const char *name;
		unsigned int flags;
	} base[4] = {
		{"SMT", TS_SD_SHARE_CPUCAPACITY | TS_SD_SHARE_LLC}, /* cpu_smt_flags() */
		{"CLS", TS_SD_CLUSTER | TS_SD_SHARE_LLC},	    /* cpu_cluster_flags() */
		{"MC", TS_SD_SHARE_LLC},			    /* cpu_core_flags() */
		{"PKG", 0},					    /* cpu_node_mask() */
	};
	int rc = 0;
	for (int i = 0; i < b->nr_tl && !rc; i++) {
		struct tl *l = &b->tl[i];
		l->span = calloc((size_t)n, sizeof(*l->span));
		if (!l->span) {
			rc = -ENOMEM;
			break;
		}
		if (i < 4) {
			l->name = base[i].name;
			l->flags = base[i].flags;
			l->numa_level = -1;
			/* Without CONFIG_SCHED_CLUSTER there is no CLS entry in the table:
			 * spanning the SMT core, it degenerates into SMT as no level at all. */
			int span_of = i == 1 && !sched_cluster ? 0 : i;
			int nr_ids = span_of == 0   ? t->nr_cores
				     : span_of == 1 ? t->nr_clusters
				     : span_of == 2 ? t->nr_llcs
						    : t->nr_nodes;
			for (int c = 0; c < n; c++)
				ids[c] = span_of == 0	? t->cpu[c].core
					 : span_of == 1 ? t->cpu[c].cluster
					 : span_of == 2 ? t->cpu[c].llc
							: t->cpu[c].node;
			rc = spans_by_id(b, l, ids, nr_ids);
			continue;
		}
		int level = i - 4;
		l->name = level == 0 ? "NODE" : "NUMA";
		l->flags = level == 0 ? 0 : TS_SD_NUMA;
		l->numa_level = level;
		for (int node = 0; node < t->nr_nodes && !rc; node++) {
			const struct ts_cpumask *m = ts_numa_mask(nl, level, node);
			if (!m)
				continue;
			const struct ts_cpumask *span;
			ts_cpumask_and(b->tmp, m, b->cpu_map);
			rc = ts_intern_into(b, b->tmp, &span);
			for (int c = 0; c < n && !rc; c++)
				if (t->cpu[c].node == node && ts_cpumask_test(b->cpu_map, c))
					l->span[c] = span;
		}
	}
	free(ids);
	return rc;
}

/* asym_cpu_capacity_classify() */
static unsigned int asym_classify(struct builder *b, const struct ts_cpumask *span)
{
	if (b->nr_caps < 2)
		return 0;
	int count = 0, miss = 0;
	for (int i = 0; i < b->nr_caps; i++) {
		if (ts_cpumask_intersects(span, b->cap_span[i]))
			count++;
		else if (ts_cpumask_intersects(b->cpu_map, b->cap_span[i]))
			miss++;
	}
	if (count < 2)
		return 0;
	if (miss)
		return TS_SD_ASYM_CPUCAPACITY;
	return TS_SD_ASYM_CPUCAPACITY | TS_SD_ASYM_CPUCAPACITY_FULL;
}

/* sd_init() */
static void sd_init(struct builder *b, struct ts_sched_domain *sd, const struct tl *l,
		    struct ts_sched_domain *child, int cpu)
{
	const struct ts_cpumask *span = l->span[cpu];
	int w = pooled_weight(span);
	unsigned int flags = l->flags | asym_classify(b, span);
	*sd = (struct ts_sched_domain){
		.min_interval = (unsigned)w,
		.max_interval = 2u * (unsigned)w,
		.busy_factor = 16,
		.imbalance_pct = 117,
		.cache_nice_tries = 0,
		.flags = TS_SD_BALANCE_NEWIDLE | TS_SD_BALANCE_EXEC | TS_SD_BALANCE_FORK |
			 TS_SD_WAKE_AFFINE | TS_SD_PREFER_SIBLING | flags,
		.balance_interval = (unsigned)w,
		.child = child,
		.name = l->name,
		.numa_level = l->numa_level,
		.span = span,
		.span_weight = w,
		.cpu = cpu,
	};
	/* Don't attempt to spread across CPUs of different capacities. */
	if ((sd->flags & TS_SD_ASYM_CPUCAPACITY) && child)
		child->flags &= ~(unsigned)TS_SD_PREFER_SIBLING;
	if (sd->flags & TS_SD_SHARE_CPUCAPACITY) {
		sd->imbalance_pct = 110;
	} else if (sd->flags & TS_SD_SHARE_LLC) {
		sd->imbalance_pct = 117;
		sd->cache_nice_tries = 1;
	} else if (sd->flags & TS_SD_NUMA) {
		sd->cache_nice_tries = 2;
		sd->flags &= ~(unsigned)TS_SD_PREFER_SIBLING;
		sd->flags |= TS_SD_SERIALIZE;
		if (b->d->numa.distance[l->numa_level] > TS_RECLAIM_DISTANCE)
			sd->flags &= ~(unsigned)(TS_SD_BALANCE_EXEC | TS_SD_BALANCE_FORK |
						 TS_SD_WAKE_AFFINE);
	} else {
		sd->cache_nice_tries = 1;
	}
}

void ts_domains_set_sd_defaults(struct ts_domains *d, unsigned int imbalance_pct,
				unsigned int busy_factor)
{
	for (size_t i = 0; i < d->nr_sd; i++) {
		struct ts_sched_domain *sd = &d->sd_arena[i];
		sd->busy_factor = busy_factor;
		/* sd_init(): SMT siblings (110) and LLCs (117) set their own */
		if (!(sd->flags & (TS_SD_SHARE_CPUCAPACITY | TS_SD_SHARE_LLC)))
			sd->imbalance_pct = imbalance_pct;
	}
}

static int build_domains_of(struct builder *b, int cpu)
{
	struct ts_sched_domain *child = NULL;
	for (int i = 0; i < b->nr_tl; i++) {
		struct ts_sched_domain *sd = &b->d->sd_arena[b->d->nr_sd++];
		sd_init(b, sd, &b->tl[i], child, cpu);
		if (child) {
			sd->level = child->level + 1;
			child->parent = sd;
			/* "BUG: arch topology borken": ensure sd has at least child's CPUs. */
			if (!ts_cpumask_subset(child->span, sd->span)) {
				ts_cpumask_or(b->tmp, sd->span, child->span);
				if (ts_intern_into(b, b->tmp, &sd->span))
					return -ENOMEM;
				sd->span_weight = pooled_weight(sd->span);
			}
		} else {
			b->d->cpu[cpu].sd = sd;
		}
		AT(b, sd_of, i, cpu) = sd;
		child = sd;
		if (sd->span == b->cpu_map)
			break;
	}
	return 0;
}

/* adjust_numa_imbalance(), on the tree before degeneration: build_sched_domains()'s
 * imb_numa_nr, as v6.0 (026b98a93bbd) and as v5.18-v5.19 (e496132ebedd) compute it. */
static void adjust_numa_imbalance(struct ts_sched_domain *sd_llc)
{
	struct ts_sched_domain *parent = sd_llc->parent;
	unsigned int nr_llcs = (unsigned)parent->span_weight / (unsigned)sd_llc->span_weight;
	unsigned int imb = nr_llcs == 1 ? (unsigned)parent->span_weight >> 3 : nr_llcs;
	unsigned int imb_v5_18 = nr_llcs == 1 ? (unsigned)parent->span_weight >> 2 : nr_llcs;
	if (imb < 1)
		imb = 1;
	struct ts_sched_domain *p = parent->parent;
	while (p && !(p->flags & TS_SD_NUMA))
		p = p->parent;
	unsigned int imb_span = (unsigned)(p ? p->span_weight : parent->span_weight);
	for (p = parent; p; p = p->parent) {
		unsigned int factor = (unsigned)p->span_weight / imb_span;
		if (factor < 1)
			factor = 1;
		p->imb_numa_nr = imb * factor;
		p->imb_numa_nr_v5_18 = imb_v5_18 * factor;
	}
}

static bool sd_degenerate(const struct ts_sched_domain *sd)
{
	if (sd->span_weight == 1)
		return true;
	if ((sd->flags & TS_SD_DEGENERATE_GROUPS_MASK) && sd->nr_groups > 1)
		return false;
	if (sd->flags & TS_SD_WAKE_AFFINE)
		return false;
	return true;
}

static bool sd_parent_degenerate(const struct ts_sched_domain *sd,
				 const struct ts_sched_domain *parent)
{
	unsigned int cflags = sd->flags, pflags = parent->flags;
	if (sd_degenerate(parent))
		return true;
	if (sd->span != parent->span)
		return false;
	if (parent->nr_groups == 1)
		pflags &= ~(unsigned)TS_SD_DEGENERATE_GROUPS_MASK;
	return !(~cflags & pflags);
}

/* cpu_attach_domain() without the root-domain part. */
static void cpu_attach_domain(struct ts_domains *d, int cpu)
{
	struct ts_sched_domain *sd = d->cpu[cpu].sd, *tmp;
	for (tmp = sd; tmp;) {
		struct ts_sched_domain *parent = tmp->parent;
		if (!parent)
			break;
		if (sd_parent_degenerate(tmp, parent)) {
			tmp->parent = parent->parent;
			if (parent->shared) {
				tmp->shared = parent->shared;
				parent->shared = NULL;
			}
			if (parent->parent) {
				parent->parent->child = tmp;
				parent->parent->groups[0]->flags = tmp->flags;
			}
			/* The spans match, so SD_PREFER_SIBLING transfers down. */
			if (parent->flags & TS_SD_PREFER_SIBLING)
				tmp->flags |= TS_SD_PREFER_SIBLING;
		} else {
			tmp = tmp->parent;
		}
	}
	if (sd && sd_degenerate(sd)) {
		sd = sd->parent;
		if (sd) {
			/* Groups carry the child's flags; the child is gone. (The kernel's loop
			 * clears only the first group, which is what every CPU of it does.) */
			sd->groups[0]->flags = 0;
			sd->child = NULL;
		}
	}
	d->cpu[cpu].sd = sd;
}

struct ts_sched_domain *ts_highest_flag_domain(const struct ts_domains *d, int cpu,
					       unsigned int flag)
{
	struct ts_sched_domain *sd, *hsd = NULL;
	ts_for_each_domain(d, cpu, sd)
	{
		if (sd->flags & flag) {
			hsd = sd;
			continue;
		}
		/* A SHARED_CHILD flag missing here is missing further up too. */
		if (flag & SHARED_CHILD_MASK)
			break;
	}
	return hsd;
}

struct ts_sched_domain *ts_lowest_flag_domain(const struct ts_domains *d, int cpu,
					      unsigned int flag)
{
	struct ts_sched_domain *sd;
	ts_for_each_domain(d, cpu, sd) if (sd->flags & flag) return sd;
	return NULL;
}

static void update_top_cache_domain(struct ts_domains *d, int cpu)
{
	struct ts_cpu_domains *c = &d->cpu[cpu];
	struct ts_sched_domain *sd = ts_highest_flag_domain(d, cpu, TS_SD_SHARE_LLC);
	int id = cpu, size = 1;
	c->sd_llc_shared = NULL;
	if (sd) {
		id = ts_cpumask_first(sd->span);
		size = sd->span_weight;
		c->sd_llc_shared = sd->shared;
	}
	c->sd_llc = sd;
	c->sd_llc_size = size;
	c->sd_llc_id = id;
	sd = ts_lowest_flag_domain(d, cpu, TS_SD_CLUSTER);
	if (sd)
		id = ts_cpumask_first(sd->span);
	c->sd_share_id = id; /* cluster id on cluster machines, LLC id otherwise */
	c->sd_numa = ts_lowest_flag_domain(d, cpu, TS_SD_NUMA);
	c->sd_asym_cpucapacity = ts_lowest_flag_domain(d, cpu, TS_SD_ASYM_CPUCAPACITY_FULL);
}

static int builder_init(struct builder *b, struct ts_domains *d, const struct ts_topology *t)
{
	int n = t->nr_cpus;
	*b = (struct builder){.d = d, .t = t};
	b->tmp = ts_cpumask_alloc(n);
	b->tmp2 = ts_cpumask_alloc(n);
	b->core_stamp = calloc((size_t)t->nr_cores, sizeof(int));
	if (!b->tmp || !b->tmp2 || !b->core_stamp)
		return -ENOMEM;
	/* asym_cpu_capacity_scan(): the distinct capacities of the machine. */
	for (int c = 0; c < n; c++) {
		int i = 0;
		while (i < b->nr_caps && b->caps[i] != t->cpu[c].capacity)
			i++;
		if (i == b->nr_caps) {
			if (b->nr_caps == 16)
				return -EINVAL;
			b->caps[b->nr_caps] = t->cpu[c].capacity;
			if (!(b->cap_span[b->nr_caps] = ts_cpumask_alloc(n)))
				return -ENOMEM;
			b->nr_caps++;
		}
		ts_cpumask_set(b->cap_span[i], c);
	}
	return 0;
}

static void builder_destroy(struct builder *b)
{
	if (b->tl)
		for (int i = 0; i < b->nr_tl; i++)
			free(b->tl[i].span);
	free(b->tl);
	free(b->sd_of);
	free(b->reg_group);
	free(b->sgc_of);
	ts_cpumask_free(b->tmp);
	ts_cpumask_free(b->tmp2);
	free(b->core_stamp);
	free(b->bal);
	for (int i = 0; i < b->nr_caps; i++)
		ts_cpumask_free(b->cap_span[i]);
}

static int build(struct builder *b, const struct ts_cpumask *cpu_map_in, bool sched_cluster)
{
	struct ts_domains *d = b->d;
	const struct ts_topology *t = b->t;
	int n = t->nr_cpus, rc;
	if ((rc = ts_numa_levels_init(&d->numa, t, NULL)))
		return rc;
	d->cpu_map = ts_cpumask_alloc(n);
	d->cpu = calloc((size_t)n, sizeof(*d->cpu));
	d->pool = pool_new(n);
	if (!d->cpu_map || !d->cpu || !d->pool)
		return -ENOMEM;
	if (cpu_map_in)
		ts_cpumask_copy(d->cpu_map, cpu_map_in);
	else
		ts_cpumask_fill(d->cpu_map);
	if ((rc = ts_intern_into(b, d->cpu_map, &b->cpu_map)))
		return rc;
	if ((rc = build_topology_levels(b, sched_cluster)))
		return rc;
	size_t cells = (size_t)b->nr_tl * (size_t)n;
	b->sd_of = calloc(cells, sizeof(*b->sd_of));
	b->reg_group = calloc(cells, sizeof(*b->reg_group));
	b->sgc_of = calloc(cells, sizeof(*b->sgc_of));
	d->sd_arena = calloc(cells, sizeof(*d->sd_arena));
	d->shared_arena = aligned_alloc(64, (size_t)n * sizeof(*d->shared_arena));
	if (!b->sd_of || !b->reg_group || !b->sgc_of || !d->sd_arena || !d->shared_arena)
		return -ENOMEM;
	memset(d->shared_arena, 0, (size_t)n * sizeof(*d->shared_arena));

	int cpu;
	ts_for_each_cpu(cpu, d->cpu_map) if ((rc = build_domains_of(b, cpu))) return rc;

	ts_for_each_cpu(cpu, d->cpu_map)
	{
		for (struct ts_sched_domain *sd = d->cpu[cpu].sd; sd; sd = sd->parent) {
			rc = (sd->flags & TS_SD_NUMA) ? ts_build_overlap_sched_groups(b, sd, cpu)
						      : ts_build_sched_groups(b, sd, cpu);
			if (rc)
				return rc;
		}
	}

	ts_for_each_cpu(cpu, d->cpu_map)
	{
		struct ts_sched_domain *sd = d->cpu[cpu].sd;
		while (sd->parent && (sd->parent->flags & TS_SD_SHARE_LLC))
			sd = sd->parent;
		if (!(sd->flags & TS_SD_SHARE_LLC))
			continue;
		/* init_sched_domain_shared(): the LLC's first CPU owns the object. */
		sd->shared = &d->shared_arena[ts_cpumask_first(sd->span)];
		atomic_store_explicit(&sd->shared->nr_busy_cpus, sd->span_weight,
				      memory_order_relaxed);
		if (sd->parent)
			adjust_numa_imbalance(sd);
	}

	ts_for_each_cpu(cpu, d->cpu_map)
	{
		cpu_attach_domain(d, cpu);
		if (ts_lowest_flag_domain(d, cpu, TS_SD_CLUSTER))
			d->cluster_active = true;
	}
	ts_for_each_cpu(cpu, d->cpu_map)
	{
		update_top_cache_domain(d, cpu);
		if (pooled_weight(b->tl[0].span[cpu]) > 1) /* SMT level: siblings in cpu_map */
			d->smt_active = true;
	}
	d->asym_cpucapacity = b->nr_caps > 1;
	return 0;
}

int ts_domains_build(const struct ts_topology *t, const struct ts_cpumask *cpu_map,
		     struct ts_domains **out, struct ts_error *err)
{
	return ts_domains_build_config(t, cpu_map, true, out, err);
}

int ts_domains_build_config(const struct ts_topology *t, const struct ts_cpumask *cpu_map,
			    bool sched_cluster, struct ts_domains **out, struct ts_error *err)
{
	*out = NULL;
	if (cpu_map && (cpu_map->nr_cpus != t->nr_cpus || ts_cpumask_empty(cpu_map)))
		return ts_error_set(
			err, -EINVAL,
			"domains: the CPU map must name at least one CPU of the topology");
	struct ts_domains *d = calloc(1, sizeof(*d));
	if (!d)
		return ts_error_set(err, -ENOMEM, "domains: out of memory");
	d->topo = t;
	d->nr_cpus = t->nr_cpus;
	struct builder b;
	int rc = builder_init(&b, d, t);
	if (rc == 0)
		rc = build(&b, cpu_map, sched_cluster);
	/* Groups and capacities live in the builder's arena; hand it to the result. */
	d->group_blocks = (struct ts_sched_group **)b.arena.blocks;
	d->nr_group_blocks = b.arena.nr_blocks;
	b.arena.blocks = NULL;
	b.arena.nr_blocks = 0;
	builder_destroy(&b);
	if (rc) {
		ts_domains_free(d);
		return ts_error_set(err, rc,
				    rc == -EINVAL ? "domains: more than 16 distinct CPU capacities"
						  : "domains: out of memory");
	}
	*out = d;
	return 0;
}

void ts_domains_free(struct ts_domains *d)
{
	if (!d)
		return;
	if (d->sd_arena)
		for (size_t i = 0; i < d->nr_sd; i++)
			free(d->sd_arena[i].groups);
	struct arena a = {.blocks = (char **)d->group_blocks, .nr_blocks = d->nr_group_blocks};
	arena_free(&a);
	free(d->sd_arena);
	free(d->shared_arena);
	free(d->cpu);
	ts_cpumask_free(d->cpu_map);
	pool_free(d->pool);
	ts_numa_levels_destroy(&d->numa);
	free(d);
}
