/* The cache-line ownership model (line_model.h). A line's sharers are a CPU bit set;
 * the nearest (for a read) or farthest (for an invalidating write) sharer is found level
 * by level with the masks of the reader's core, cluster, LLC, node and package — the
 * topology nests them, so the first level that holds a sharer gives the relation that
 * ts_topology_relation() would — and, for other packages, node by node by SLIT distance.
 * That is a few word operations per access, whatever the number of sharers. */
#include "line_model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { LV_CORE, LV_CLUSTER, LV_LLC, LV_NODE, LV_PACKAGE, LV_NR };

struct sim_line {
	uintptr_t key;	 /* address >> 6; 0 = empty slot */
	int owner;	 /* the CPU holding it modified; -1 = clean */
	int last_writer; /* -1 = never written */
	int nr_sharers;
	double busy_until; /* ns: the end of the last transfer of the line */
};

#define LINE_SHIFT 6

static int level_id(const struct ts_topology *t, int level, int cpu)
{
	const struct ts_cpu_topo *c = &t->cpu[cpu];
	switch (level) {
	case LV_CORE:
		return c->core;
	case LV_CLUSTER:
		return c->cluster;
	case LV_LLC:
		return c->llc;
	case LV_NODE:
		return c->node;
	default:
		return c->package;
	}
}

static int level_count(const struct ts_topology *t, int level)
{
	switch (level) {
	case LV_CORE:
		return t->nr_cores;
	case LV_CLUSTER:
		return t->nr_clusters;
	case LV_LLC:
		return t->nr_llcs;
	case LV_NODE:
		return t->nr_nodes;
	default:
		return t->nr_packages;
	}
}

static inline const uint64_t *mask_of(const struct sim_line_model *lm, int level, int cpu)
{
	return lm->level_mask[level] + (size_t)level_id(lm->topo, level, cpu) * (size_t)lm->words;
}

int sim_line_model_init(struct sim_line_model *lm, const struct ts_topology *t,
			const struct ts_cost_model *costs, struct ts_error *err)
{
	memset(lm, 0, sizeof(*lm));
	lm->topo = t;
	lm->costs = costs;
	lm->nr_cpus = t->nr_cpus;
	lm->words = ts_cpumask_words(t->nr_cpus);
	for (int lv = 0; lv < LV_NR; lv++) {
		int n = level_count(t, lv);
		lm->level_mask[lv] =
			calloc((size_t)(n > 0 ? n : 1) * (size_t)lm->words, sizeof(uint64_t));
		if (!lm->level_mask[lv])
			goto oom;
		for (int c = 0; c < t->nr_cpus; c++) {
			uint64_t *m =
				lm->level_mask[lv] + (size_t)level_id(t, lv, c) * (size_t)lm->words;
			m[c >> 6] |= UINT64_C(1) << (c & 63);
		}
	}
	for (int r = 0; r < TS_REL_NR; r++)
		lm->c2c[r] = ts_cost_c2c(costs, (enum ts_cpu_relation)r, 0);
	lm->cap = 64;
	lm->slots = calloc(lm->cap, sizeof(*lm->slots));
	lm->sharers = calloc(lm->cap * (size_t)lm->words, sizeof(uint64_t));
	if (!lm->slots || !lm->sharers)
		goto oom;
	return 0;
oom:
	sim_line_model_free(lm);
	return ts_error_set(err, -ENOMEM, "sim: out of memory for the cache-line model");
}

void sim_line_model_free(struct sim_line_model *lm)
{
	for (int lv = 0; lv < LV_NR; lv++)
		free(lm->level_mask[lv]);
	free(lm->slots);
	free(lm->sharers);
	memset(lm, 0, sizeof(*lm));
}

/* ---- the table ---- */

static inline size_t hash_key(uintptr_t key, size_t cap)
{
	return (size_t)(((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);
}

static size_t probe(const struct sim_line_model *lm, uintptr_t key)
{
	size_t i = hash_key(key, lm->cap);
	while (lm->slots[i].key && lm->slots[i].key != key)
		i = (i + 1) & (lm->cap - 1);
	return i;
}

static bool grow(struct sim_line_model *lm)
{
	size_t cap = lm->cap * 2, w = (size_t)lm->words;
	struct sim_line *slots = calloc(cap, sizeof(*slots));
	uint64_t *sharers = calloc(cap * w, sizeof(uint64_t));
	if (!slots || !sharers) {
		free(slots);
		free(sharers);
		return false;
	}
	struct sim_line *old = lm->slots;
	uint64_t *old_sharers = lm->sharers;
	size_t old_cap = lm->cap;
	lm->slots = slots;
	lm->sharers = sharers;
	lm->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].key)
			continue;
		size_t j = probe(lm, old[i].key);
		slots[j] = old[i];
		memcpy(sharers + j * w, old_sharers + i * w, w * sizeof(uint64_t));
	}
	free(old);
	free(old_sharers);
	return true;
}

/* The slot of key, created clean and unheld if new; SIZE_MAX when out of memory. */
static size_t lookup(struct sim_line_model *lm, uintptr_t key)
{
	size_t i = probe(lm, key);
	if (lm->slots[i].key)
		return i;
	if ((lm->used + 1) * 2 > lm->cap) {
		if (!grow(lm))
			return SIZE_MAX;
		i = probe(lm, key);
	}
	lm->slots[i] = (struct sim_line){.key = key, .owner = -1, .last_writer = -1};
	lm->used++;
	return i;
}

/* ---- nearest and farthest sharer ---- */

static inline bool test_bit(const uint64_t *m, int cpu)
{
	return (m[cpu >> 6] >> (cpu & 63)) & 1;
}

/* Some CPU in s & in & ~out (out may be NULL)? */
static bool any(const uint64_t *s, const uint64_t *in, const uint64_t *out, int words)
{
	for (int i = 0; i < words; i++) {
		uint64_t v = s[i] & (in ? in[i] : ~UINT64_C(0));
		if (out)
			v &= ~out[i];
		if (v)
			return true;
	}
	return false;
}

/* Transfer cost to cpu from the nearest (far = false) or farthest sharer in another
 * package; there is one. */
static double other_package(const struct sim_line_model *lm, const uint64_t *s, int cpu, bool far)
{
	const struct ts_topology *t = lm->topo;
	const uint64_t *pkg = mask_of(lm, LV_PACKAGE, cpu);
	int home = t->cpu[cpu].node;
	double best = -1;
	for (int n = 0; n < t->nr_nodes; n++) {
		const uint64_t *nm = lm->level_mask[LV_NODE] + (size_t)n * (size_t)lm->words;
		if (!any(s, nm, pkg, lm->words))
			continue;
		double c = ts_cost_c2c(lm->costs, TS_REL_REMOTE, ts_topo_distance(t, home, n));
		if (best < 0 || (far ? c > best : c < best))
			best = c;
	}
	return best;
}

/* The relation and cost of the nearest sharer of s to cpu (cpu not in s, s not empty). */
static double nearest(const struct sim_line_model *lm, const uint64_t *s, int cpu, int *rel)
{
	static const int order[] = {LV_CORE, LV_CLUSTER, LV_LLC, LV_NODE, LV_PACKAGE};
	static const enum ts_cpu_relation rel_of[] = {TS_REL_SMT, TS_REL_CLUSTER, TS_REL_LLC,
						      TS_REL_NODE, TS_REL_PACKAGE};
	for (int i = 0; i < LV_NR; i++)
		if (any(s, mask_of(lm, order[i], cpu), NULL, lm->words)) {
			*rel = (int)rel_of[i];
			return lm->c2c[rel_of[i]];
		}
	*rel = TS_REL_REMOTE;
	return other_package(lm, s, cpu, false);
}

/* The relation and cost of the farthest sharer of s other than cpu (there is one). */
static double farthest(const struct sim_line_model *lm, const uint64_t *s, int cpu, int *rel)
{
	if (any(s, NULL, mask_of(lm, LV_PACKAGE, cpu), lm->words)) {
		*rel = TS_REL_REMOTE;
		return other_package(lm, s, cpu, true);
	}
	/* inside the package, outward: a level's sharers outside the next inner level */
	static const int outer[] = {LV_PACKAGE, LV_NODE, LV_LLC, LV_CLUSTER};
	static const int inner[] = {LV_NODE, LV_LLC, LV_CLUSTER, LV_CORE};
	static const enum ts_cpu_relation rel_of[] = {TS_REL_PACKAGE, TS_REL_NODE, TS_REL_LLC,
						      TS_REL_CLUSTER};
	for (int i = 0; i < 4; i++)
		if (any(s, mask_of(lm, outer[i], cpu), mask_of(lm, inner[i], cpu), lm->words)) {
			*rel = (int)rel_of[i];
			return lm->c2c[rel_of[i]];
		}
	*rel = TS_REL_SMT; /* a sibling of cpu's core */
	return lm->c2c[TS_REL_SMT];
}

static double transfer(const struct sim_line_model *lm, int from, int to, int *rel)
{
	*rel = (int)ts_topology_relation(lm->topo, from, to);
	return ts_cost_between(lm->costs, lm->topo, from, to);
}

/* ---- accesses ---- */

double sim_line_access(struct sim_line_model *lm, int cpu, uintptr_t line, bool write, double now,
		       int *rel, bool *hitm, bool *oom)
{
	int r = -1;
	double cost = 0;
	bool from_modified = false;
	if (hitm)
		*hitm = false;
	if (write)
		lm->st.writes++;
	else
		lm->st.reads++;
	size_t i = lookup(lm, line >> LINE_SHIFT);
	if (i == SIZE_MAX) {
		if (oom)
			*oom = true;
		if (rel)
			*rel = -1;
		return 0;
	}
	struct sim_line *l = &lm->slots[i];
	uint64_t *s = lm->sharers + i * (size_t)lm->words;
	int w = cpu >> 6;
	uint64_t bit = UINT64_C(1) << (cpu & 63);
	bool held = l->owner == cpu || (l->owner < 0 && (s[w] & bit));
	/* a write, or a read from a modified owner, changes who owns the line: such transfers
	 * serialise; copies of a clean line are handed out in parallel */
	bool owned = write || l->owner >= 0;
	if (write) {
		if (l->owner >= 0 && l->owner != cpu) {
			cost = transfer(lm, l->owner, cpu, &r);
			from_modified = true; /* the load of a locked add: a HITM too */
		} else if (l->owner < 0 && l->nr_sharers > (held ? 1 : 0))
			cost = farthest(lm, s, cpu, &r);
		if (l->last_writer >= 0 &&
		    lm->topo->cpu[l->last_writer].node != lm->topo->cpu[cpu].node)
			lm->st.remote_node_writes++;
		memset(s, 0, (size_t)lm->words * sizeof(uint64_t));
		s[w] = bit;
		l->owner = cpu;
		l->nr_sharers = 1;
		l->last_writer = cpu;
	} else if (!held) {
		if (l->owner >= 0) {
			cost = transfer(lm, l->owner, cpu, &r);
			l->owner = -1; /* s holds the old owner alone */
			from_modified = true;
		} else if (l->nr_sharers > 0) {
			cost = nearest(lm, s, cpu, &r);
		}
		s[w] |= bit;
		l->nr_sharers++;
	}
	if (r >= 0) { /* one transfer, after the ownership changes still in flight */
		double wait = l->busy_until > now ? l->busy_until - now : 0;
		/* bounded: the miss ends at most SIM_LINE_MAX_LATENCY_NS after now */
		double room = SIM_LINE_MAX_LATENCY_NS - cost;
		if (wait > room)
			wait = room > 0 ? room : 0;
		if (owned)
			l->busy_until = now + wait + cost;
		cost += wait;
		lm->st.misses[r]++;
		lm->st.stall_ns += cost;
		lm->st.wait_ns += wait;
		if (from_modified) {
			lm->st.hitm_loads++;
			lm->st.hitm_ns += cost;
			if (hitm)
				*hitm = true;
		}
	}
	if (rel)
		*rel = r;
	return cost;
}

int sim_line_owner(const struct sim_line_model *lm, uintptr_t line)
{
	size_t i = probe(lm, line >> LINE_SHIFT);
	return lm->slots[i].key ? lm->slots[i].owner : -1;
}

bool sim_line_held(const struct sim_line_model *lm, uintptr_t line, int cpu)
{
	size_t i = probe(lm, line >> LINE_SHIFT);
	const struct sim_line *l = &lm->slots[i];
	if (!l->key)
		return false;
	if (l->owner >= 0)
		return l->owner == cpu;
	return test_bit(lm->sharers + i * (size_t)lm->words, cpu);
}
