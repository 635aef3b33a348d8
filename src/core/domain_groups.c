/* The sched groups of the scheduling domains, following kernel/sched/topology.c:
 * build_sched_groups() for the levels whose groups do not overlap (a group is the child
 * domain, shared by its CPUs), build_overlap_sched_groups() for the NUMA levels (with their
 * balance masks), and the sched_group_capacity of each group. */
#include <errno.h>
#include <stdlib.h>

#include "domain_build.h"

static int count_cores(struct builder *b, const struct ts_cpumask *span)
{
	struct pool_hdr *h = hdr_of(span);
	if (h->cores >= 0)
		return h->cores;
	int cores = 0, cpu;
	b->stamp++;
	ts_for_each_cpu(cpu, span)
	{
		int core = b->t->cpu[cpu].core;
		if (b->core_stamp[core] != b->stamp) {
			b->core_stamp[core] = b->stamp;
			cores++;
		}
	}
	return h->cores = cores;
}

/* The sched_group_capacity of (level, id), created on first use. */
static struct ts_sched_group_capacity *get_sgc(struct builder *b, int level, int id,
					       const struct ts_cpumask *span)
{
	struct ts_sched_group_capacity **slot = &AT(b, sgc_of, level, id);
	if (*slot)
		return *slot;
	struct ts_sched_group_capacity *sgc = ts_arena_alloc(&b->arena, sizeof(*sgc));
	if (!sgc)
		return NULL;
	sgc->id = id;
	sgc->min_capacity = ~0ul;
	int cpu;
	ts_for_each_cpu(cpu, span)
	{
		unsigned long c = (unsigned long)b->t->cpu[cpu].capacity;
		sgc->capacity += c;
		if (c < sgc->min_capacity)
			sgc->min_capacity = c;
		if (c > sgc->max_capacity)
			sgc->max_capacity = c;
	}
	return *slot = sgc;
}

static struct ts_sched_group *new_group(struct builder *b, const struct ts_cpumask *span,
					const struct ts_cpumask *balance_mask, unsigned int flags,
					struct ts_sched_group_capacity *sgc)
{
	struct ts_sched_group *sg = ts_arena_alloc(&b->arena, sizeof(*sg));
	if (!sg || !sgc)
		return NULL;
	*sg = (struct ts_sched_group){
		.span = span,
		.balance_mask = balance_mask,
		.flags = flags,
		.group_weight = pooled_weight(span),
		.cores = count_cores(b, span),
		.sgc = sgc,
	};
	return sg;
}

/* get_group(): the group of CPU i at a non-overlapping level is its child domain, shared
 * by every CPU whose domain at that level contains it. */
static struct ts_sched_group *get_group(struct builder *b, int level, int i)
{
	struct ts_sched_domain *sd = AT(b, sd_of, level, i);
	struct ts_sched_domain *child = sd->child;
	int id = child ? ts_cpumask_first(child->span) : i;
	struct ts_sched_group **slot = &AT(b, reg_group, level, id);
	if (*slot)
		return *slot;
	const struct ts_cpumask *span;
	if (child) {
		span = child->span;
	} else {
		ts_cpumask_zero(b->tmp);
		ts_cpumask_set(b->tmp, i);
		if (ts_intern_into(b, b->tmp, &span))
			return NULL;
	}
	return *slot = new_group(b, span, span, child ? child->flags : 0,
				 get_sgc(b, level, id, span));
}

/* Appends to sd->groups (grown by doubling; the count is small). */
static int add_group(struct ts_sched_domain *sd, struct ts_sched_group *sg, int *cap)
{
	if (!sg)
		return -ENOMEM;
	if (sd->nr_groups == *cap) {
		int ncap = *cap ? *cap * 2 : 4;
		struct ts_sched_group **ng = realloc(sd->groups, (size_t)ncap * sizeof(*ng));
		if (!ng)
			return -ENOMEM;
		sd->groups = ng;
		*cap = ncap;
	}
	sd->groups[sd->nr_groups++] = sg;
	return 0;
}

/* Walks span in for_each_cpu_wrap(i, span, cpu) order, skipping covered CPUs. */
struct wrap_walk {
	const struct ts_cpumask *span, *covered;
	int start, i;
	bool wrapped;
};

static int wrap_next(struct wrap_walk *w)
{
	int n = w->span->nr_cpus;
	int next = ts_cpumask_next_andnot(w->span, w->covered, w->i);
	if (!w->wrapped && next >= n) {
		w->wrapped = true;
		next = ts_cpumask_next_andnot(w->span, w->covered, -1);
	}
	if (w->wrapped && next >= w->start)
		next = n;
	return w->i = next;
}

int ts_build_sched_groups(struct builder *b, struct ts_sched_domain *sd, int cpu)
{
	int cap = 0;
	ts_cpumask_zero(b->tmp2);
	struct wrap_walk w = {sd->span, b->tmp2, cpu, cpu, false};
	for (int i = cpu; i < sd->span->nr_cpus; i = wrap_next(&w)) {
		struct ts_sched_group *sg = get_group(b, sd->level, i);
		if (add_group(sd, sg, &cap))
			return -ENOMEM;
		ts_cpumask_or(b->tmp2, b->tmp2, sg->span);
	}
	return 0;
}

static struct ts_sched_domain *find_descended_sibling(struct ts_sched_domain *sd,
						      struct ts_sched_domain *sibling)
{
	/* The proper descendant is the one whose child won't span out of sd. */
	while (sibling->child && !ts_cpumask_subset(sibling->child->span, sd->span))
		sibling = sibling->child;
	/* Skip levels that cpu_attach_domain() will degenerate anyway. */
	while (sibling->child && sibling->child->span == sibling->span)
		sibling = sibling->child;
	return sibling;
}

/* build_balance_mask(): the CPUs of the group that can arrive at it from below. It depends
 * only on the sibling's level and the group span, so each distinct pair is computed once
 * (the kernel recomputes it for every CPU's private copy of the group). */
static int balance_cache_grow(struct builder *b)
{
	size_t ncap = b->bal_cap ? b->bal_cap * 2 : 1024;
	struct balance_cache *nb = calloc(ncap, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	for (size_t i = 0; i < b->bal_cap; i++) {
		if (!b->bal[i].span)
			continue;
		size_t j = (((uintptr_t)b->bal[i].span >> 4) * 31 + (size_t)b->bal[i].level) &
			   (ncap - 1);
		while (nb[j].span)
			j = (j + 1) & (ncap - 1);
		nb[j] = b->bal[i];
	}
	free(b->bal);
	b->bal = nb;
	b->bal_cap = ncap;
	return 0;
}

static int build_balance_mask(struct builder *b, const struct ts_sched_domain *sibling,
			      const struct ts_cpumask *sg_span, const struct ts_cpumask **out)
{
	if (b->bal_count * 2 >= b->bal_cap && balance_cache_grow(b))
		return -ENOMEM;
	size_t j = (((uintptr_t)sg_span >> 4) * 31 + (size_t)sibling->level) & (b->bal_cap - 1);
	for (; b->bal[j].span; j = (j + 1) & (b->bal_cap - 1)) {
		if (b->bal[j].span == sg_span && b->bal[j].level == sibling->level) {
			*out = b->bal[j].mask;
			return 0;
		}
	}
	ts_cpumask_zero(b->tmp);
	int i;
	ts_for_each_cpu(i, sg_span)
	{
		struct ts_sched_domain *s = AT(b, sd_of, sibling->level, i);
		if (!s || !s->child || s->child->span != sg_span)
			continue;
		ts_cpumask_set(b->tmp, i);
	}
	if (ts_intern_into(b, b->tmp, out))
		return -ENOMEM;
	b->bal[j] = (struct balance_cache){sg_span, *out, sibling->level};
	b->bal_count++;
	return 0;
}

int ts_build_overlap_sched_groups(struct builder *b, struct ts_sched_domain *sd, int cpu)
{
	int cap = 0;
	ts_cpumask_zero(b->tmp2);
	struct wrap_walk w = {sd->span, b->tmp2, cpu, cpu, false};
	for (int i = cpu; i < sd->span->nr_cpus; i = wrap_next(&w)) {
		struct ts_sched_domain *sibling = AT(b, sd_of, sd->level, i);
		/* Asymmetric setups: the sibling level may not exist for i. */
		if (!sibling || !ts_cpumask_test(sibling->span, i))
			continue;
		if (sibling->child && !ts_cpumask_subset(sibling->child->span, sd->span))
			sibling = find_descended_sibling(sd, sibling);
		const struct ts_cpumask *sg_span =
			sibling->child ? sibling->child->span : sibling->span;
		const struct ts_cpumask *balance;
		if (build_balance_mask(b, sibling, sg_span, &balance))
			return -ENOMEM;
		struct ts_sched_group *sg =
			new_group(b, sg_span, balance, sibling->child ? sibling->child->flags : 0,
				  get_sgc(b, sibling->level, ts_cpumask_first(balance), sg_span));
		if (add_group(sd, sg, &cap))
			return -ENOMEM;
		ts_cpumask_or(b->tmp2, b->tmp2, sg_span);
	}
	return 0;
}
