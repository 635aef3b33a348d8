/* Task groups: hierarchy, per-CPU group run queues and entities, and the group load
 * tracking of kernel/sched/fair.c (v6.12): update_tg_load_avg() (1/64 filter, v6.7 rate
 * limit), clear_tg_load_avg(), calc_group_shares(), update_cfs_group() (through
 * ts_reweight_entity()), set_task_rq(), update_cfs_rq_h_load() and task_h_load(); the three
 * memory layouts of tg->load_avg (see group.h) and the host's line-access hook. */
#include "toposched/group.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout proofs ---------------------------------------------------------------------- */

#define LINE(off)      ((off) / TS_TG_CACHELINE)
#define TG_OFF(member) offsetof(struct ts_task_group, member)

static_assert(alignof(struct ts_task_group) >= TS_TG_CACHELINE, "group starts a line");
static_assert(TG_OFF(hot) == 0, "hot lines first");
static_assert(TG_OFF(hot.ro) == TG_OFF(hot.packed.ro) && TG_OFF(hot.ro) == TG_OFF(hot.aligned.ro) &&
		      TG_OFF(hot.ro) == TG_OFF(hot.per_node.ro),
	      "read-mostly fields at one offset in every layout");

/* PACKED: load_avg shares its line with se, cfs_rq, parent and shares. */
static_assert(sizeof(struct ts_tg_line_packed) == TS_TG_CACHELINE, "packed: one line");
static_assert(LINE(TG_OFF(hot.packed.load_avg)) == LINE(TG_OFF(hot.packed.ro.se)) &&
		      LINE(TG_OFF(hot.packed.load_avg)) == LINE(TG_OFF(hot.packed.ro.cfs_rq)) &&
		      LINE(TG_OFF(hot.packed.load_avg)) == LINE(TG_OFF(hot.packed.ro.parent)) &&
		      LINE(TG_OFF(hot.packed.load_avg)) == LINE(TG_OFF(hot.packed.ro.shares)),
	      "packed: load_avg in the line of the read-mostly fields");

/* ALIGNED: load_avg starts a line, fills it with padding only, and nothing read-mostly
 * shares it; the cold fields after the union start at or after the next line. */
static_assert(TG_OFF(hot.aligned.load_avg) % TS_TG_CACHELINE == 0, "aligned: line start");
static_assert(TG_OFF(hot.aligned.pad1_) == TG_OFF(hot.aligned.load_avg) + sizeof(atomic_long),
	      "aligned: only padding after load_avg");
static_assert(sizeof(struct ts_tg_lines_aligned) ==
		      offsetof(struct ts_tg_lines_aligned, load_avg) + TS_TG_CACHELINE,
	      "aligned: the struct ends with load_avg's line");
static_assert(LINE(TG_OFF(hot.aligned.ro) + sizeof(struct ts_tg_ro) - 1) <
		      LINE(TG_OFF(hot.aligned.load_avg)),
	      "aligned: read-mostly fields in an earlier line");
static_assert(TG_OFF(layout) >= TG_OFF(hot.aligned.load_avg) + TS_TG_CACHELINE,
	      "aligned: cold fields after load_avg's line");

/* tg_layout.c's offsets are these structs' where both have the field. */
static_assert(TG_OFF(hot.ro.se) == 0x0 && TG_OFF(hot.ro.cfs_rq) == 0x8 &&
		      TG_OFF(hot.ro.parent) == 0x10 && TG_OFF(hot.ro.shares) == 0x18,
	      "the read-mostly line as tg_layout.c has it");
static_assert(TG_OFF(hot.packed.load_avg) == 0x20 && TG_OFF(hot.aligned.load_avg) == 0x40,
	      "load_avg where tg_layout.c has it");

/* PER_NODE: every node counter is one whole line; the group itself holds no counter. */
static_assert(sizeof(struct ts_tg_node_load) == TS_TG_CACHELINE, "node counter: one line");
static_assert(alignof(struct ts_tg_node_load) == TS_TG_CACHELINE, "node counter: aligned");
static_assert(sizeof(struct ts_tg_line_per_node) == TS_TG_CACHELINE, "per-node: one line");

static_assert(sizeof(struct ts_tg_writer_line) == TS_TG_CACHELINE, "writer line: one line");
static_assert(alignof(struct ts_tg_cpu) == TS_TG_CACHELINE &&
		      sizeof(struct ts_tg_cpu) % TS_TG_CACHELINE == 0,
	      "per-CPU blocks do not share lines");

/* ---- creation --------------------------------------------------------------------------- */

static void *alloc_lines(size_t size)
{
	size = (size + TS_TG_CACHELINE - 1) & ~(size_t)(TS_TG_CACHELINE - 1);
	void *p = aligned_alloc(TS_TG_CACHELINE, size);
	if (p)
		memset(p, 0, size);
	return p;
}

static atomic_long *single_counter(struct ts_task_group *tg)
{
	return tg->layout == TS_TG_PACKED ? &tg->hot.packed.load_avg : &tg->hot.aligned.load_avg;
}

/* ---- the host's cache-line model hook ---------------------------------------------------- */

static inline const void *line_of_addr(const void *addr)
{
	return (const void *)((uintptr_t)addr & ~(uintptr_t)(TS_TG_CACHELINE - 1));
}

const void *ts_tg_ro_line(const struct ts_task_group *tg)
{
	return line_of_addr(&tg->hot.ro);
}

const void *ts_tg_load_line(const struct ts_task_group *tg, int node)
{
	struct ts_task_group *t = (struct ts_task_group *)tg;
	if (tg->layout == TS_TG_PER_NODE)
		return line_of_addr(&t->hot.per_node.node[node].load_avg);
	return line_of_addr(single_counter(t));
}

/* The load_avg counter of `node` (node ignored unless PER_NODE). */
static inline const void *load_counter_addr(struct ts_task_group *tg, int node)
{
	if (tg->layout == TS_TG_PER_NODE)
		return &tg->hot.per_node.node[node].load_avg;
	return single_counter(tg);
}

/* One predictable branch when there is no hook. */
#define LINE_ACCESS(tg, cpu, line, write)                                                          \
	do {                                                                                       \
		if (__builtin_expect((tg)->line_access != NULL, 0))                                \
			(tg)->line_access((tg)->line_host, (cpu), (line), (write));                \
	} while (0)

/* The address of `field` in tg's hot lines where tg's layout puts it (tg_layout.h): what
 * the hook is given, so that the host can tell the fields of one line apart by offset, as
 * perf c2c does. */
static inline const void *field_addr(const struct ts_task_group *tg, enum ts_tg_field field)
{
	return (const char *)&tg->hot + ts_tg_field_offset(tg->layout, tg->rt_group_sched, field);
}

/* A read of one of tg's fields. The root's lines are never written (its load_avg is not
 * kept), so its reads cannot false-share and are not reported. */
#define FIELD_READ(tg, cpu, field)                                                                 \
	do {                                                                                       \
		if (__builtin_expect((tg)->line_access != NULL, 0) && (tg)->depth)                 \
			(tg)->line_access((tg)->line_host, (cpu), field_addr((tg), (field)),       \
					  false);                                                  \
	} while (0)

void ts_tg_note_ro_read(const struct ts_task_group *tg, int cpu)
{
	FIELD_READ(tg, cpu, TS_TG_FIELD_SE);
}

void ts_tg_note_parent_read(const struct ts_task_group *tg, int cpu)
{
	FIELD_READ(tg, cpu, TS_TG_FIELD_PARENT);
}

static void set_line_access_tree(struct ts_task_group *tg, ts_tg_line_access_fn fn, void *host)
{
	tg->line_access = fn;
	tg->line_host = host;
	for (struct ts_task_group *c = tg->first_child; c; c = c->next_sibling)
		set_line_access_tree(c, fn, host);
}

void ts_tg_set_line_access(struct ts_task_group *root, ts_tg_line_access_fn fn, void *host)
{
	set_line_access_tree(root, fn, host);
}

static void free_group(struct ts_task_group *tg)
{
	if (!tg)
		return;
	free(tg->hot.ro.se);
	free(tg->hot.ro.cfs_rq);
	if (tg->layout == TS_TG_PER_NODE)
		free(tg->hot.per_node.node);
	free(tg->writer);
	free(tg->cpu);
	free(tg->root_load);
	free(tg);
}

/* The parts common to the root and a child; the hot union and the pointer arrays. */
static int alloc_group(enum ts_tg_layout layout, int nr_cpus, int nr_nodes, bool track,
		       bool with_se, struct ts_task_group **out, struct ts_error *err)
{
	if ((unsigned)layout >= TS_TG_LAYOUT_NR)
		return ts_error_set(err, -EINVAL, "task group: layout %d out of range",
				    (int)layout);
	struct ts_task_group *tg = alloc_lines(sizeof(*tg));
	if (!tg)
		return ts_error_set(err, -ENOMEM, "task group: out of memory");
	tg->layout = layout;
	tg->nr_cpus = nr_cpus;
	tg->nr_nodes = nr_nodes;
	tg->track_writer_node = track;
	tg->cpu = alloc_lines(sizeof(struct ts_tg_cpu) * (size_t)nr_cpus);
	tg->hot.ro.cfs_rq = calloc((size_t)nr_cpus, sizeof(struct ts_cfs_rq *));
	if (with_se)
		tg->hot.ro.se = calloc((size_t)nr_cpus, sizeof(struct ts_sched_entity *));
	if (layout == TS_TG_PER_NODE)
		tg->hot.per_node.node =
			alloc_lines(sizeof(struct ts_tg_node_load) * (size_t)nr_nodes);
	if (track)
		tg->writer = alloc_lines(sizeof(struct ts_tg_writer_line));
	if (!tg->cpu || !tg->hot.ro.cfs_rq || (with_se && !tg->hot.ro.se) ||
	    (layout == TS_TG_PER_NODE && !tg->hot.per_node.node) || (track && !tg->writer)) {
		free_group(tg);
		return ts_error_set(err, -ENOMEM, "task group: out of memory");
	}
	if (layout == TS_TG_PER_NODE)
		for (int n = 0; n < nr_nodes; n++)
			atomic_init(&tg->hot.per_node.node[n].load_avg, 0);
	else
		atomic_init(single_counter(tg), 0);
	if (track)
		atomic_init(&tg->writer->last_writer_node, -1);
	for (int c = 0; c < nr_cpus; c++) {
		tg->cpu[c].last_h_load_update = UINT64_MAX;
		tg->cpu[c].h_load_next = NULL;
	}
	*out = tg;
	return 0;
}

int ts_tg_create_root(const struct ts_tg_root_params *p, struct ts_task_group **out,
		      struct ts_error *err)
{
	*out = NULL;
	if (!p || p->nr_cpus < 1 || p->nr_nodes < 1)
		return ts_error_set(err, -EINVAL,
				    "task group root: need nr_cpus >= 1 and nr_nodes >= 1");
	if (p->cpu_node)
		for (int c = 0; c < p->nr_cpus; c++)
			if (p->cpu_node[c] < 0 || p->cpu_node[c] >= p->nr_nodes)
				return ts_error_set(
					err, -EINVAL,
					"task group root: CPU %d on node %d, outside 0..%d", c,
					p->cpu_node[c], p->nr_nodes - 1);
	struct ts_task_group *tg;
	int rc = alloc_group(p->layout, p->nr_cpus, p->nr_nodes, p->track_writer_node, false, &tg,
			     err);
	if (rc)
		return rc;
	int *map = calloc((size_t)p->nr_cpus, sizeof(int));
	if (!map) {
		free_group(tg);
		return ts_error_set(err, -ENOMEM, "task group: out of memory");
	}
	if (p->cpu_node)
		memcpy(map, p->cpu_node, sizeof(int) * (size_t)p->nr_cpus);
	tg->cpu_node = map;
	tg->base_slice = p->base_slice ? p->base_slice : ts_sched_base_slice((unsigned)p->nr_cpus);
	tg->tick_nsec = p->tick_nsec ? p->tick_nsec : TS_TICK_NSEC_DEFAULT;
	tg->hot.ro.shares = TS_NICE_0_LOAD; /* root_task_group.shares = ROOT_TASK_GROUP_LOAD */
	tg->hot.ro.parent = NULL;
	tg->root = tg;
	tg->line_access = p->line_access;
	tg->line_host = p->line_host;
	snprintf(tg->name, sizeof(tg->name), "/");
	if (p->root_load) {
		tg->root_load = calloc((size_t)p->nr_cpus, sizeof(*tg->root_load));
		if (!tg->root_load) {
			ts_tg_destroy(tg);
			return ts_error_set(err, -ENOMEM, "task group: out of memory");
		}
		for (int c = 0; c < p->nr_cpus; c++)
			tg->root_load[c] = p->root_load[c];
	}
	for (int c = 0; c < p->nr_cpus; c++) {
		struct ts_tg_cpu *tc = &tg->cpu[c];
		ts_cfs_rq_init(&tc->cfs, tg->base_slice, tg->tick_nsec);
		struct ts_cfs_rq *cfs =
			p->root_cfs_rq && p->root_cfs_rq[c] ? p->root_cfs_rq[c] : &tc->cfs;
		cfs->tg = tg;
		cfs->cpu = c;
		if (!cfs->removed)
			cfs->removed = &tc->removed;
		tg->hot.ro.cfs_rq[c] = cfs;
	}
	*out = tg;
	return 0;
}

static unsigned long clamp_shares(unsigned long shares)
{
	if (shares == 0)
		return TS_NICE_0_LOAD;
	if (shares < TS_MIN_SHARES)
		return TS_MIN_SHARES;
	return shares > TS_MAX_SHARES ? TS_MAX_SHARES : shares;
}

int ts_tg_create(struct ts_task_group *parent, const char *name, unsigned long shares,
		 enum ts_tg_layout layout, struct ts_task_group **out, struct ts_error *err)
{
	*out = NULL;
	if (!parent)
		return ts_error_set(err, -EINVAL, "task group '%s': no parent", name ? name : "");
	if (!name || !name[0] || strlen(name) >= TS_TG_NAME_MAX || strchr(name, ' ') ||
	    strchr(name, '/'))
		return ts_error_set(
			err, -EINVAL,
			"task group name '%s': need 1..%d characters without blanks or '/'",
			name ? name : "(null)", TS_TG_NAME_MAX - 1);
	for (const struct ts_task_group *c = parent->first_child; c; c = c->next_sibling)
		if (strcmp(c->name, name) == 0)
			return ts_error_set(err, -EEXIST, "task group '%s': '%s' already has one",
					    name, parent->name);
	struct ts_task_group *tg;
	int rc = alloc_group(layout, parent->nr_cpus, parent->nr_nodes, parent->track_writer_node,
			     true, &tg, err);
	if (rc)
		return rc;
	tg->cpu_node = parent->cpu_node;
	tg->base_slice = parent->base_slice;
	tg->tick_nsec = parent->tick_nsec;
	tg->depth = parent->depth + 1;
	tg->hot.ro.parent = parent;
	tg->hot.ro.shares = clamp_shares(shares);
	tg->root = parent->root;
	tg->line_access = parent->line_access;
	tg->line_host = parent->line_host;
	snprintf(tg->name, sizeof(tg->name), "%s", name);
	/* init_tg_cfs_entry() */
	for (int c = 0; c < tg->nr_cpus; c++) {
		struct ts_tg_cpu *tc = &tg->cpu[c];
		ts_cfs_rq_init(&tc->cfs, tg->base_slice, tg->tick_nsec);
		tc->cfs.tg = tg;
		tc->cfs.cpu = c;
		tc->cfs.removed = &tc->removed;
		ts_sched_entity_init(&tc->se);
		tc->se.load.weight = TS_NICE_0_LOAD; /* update_load_set(&se->load, NICE_0_LOAD) */
		tc->se.load.inv_weight = 0;
		tc->se.my_q = &tc->cfs;
		tc->cfs.owner_runnable_weight = tc->se.load.weight; /* v5.4: runnable_weight */
		tc->se.cfs_rq = parent->hot.ro.cfs_rq[c];
		tc->cfs.steal_clock = tc->se.cfs_rq->steal_clock;
		tc->se.parent = ts_tg_se(parent, c);
		tc->se.depth = tc->se.parent ? tc->se.parent->depth + 1 : 0;
		tg->hot.ro.cfs_rq[c] = &tc->cfs;
		tg->hot.ro.se[c] = &tc->se;
	}
	/* list_add_tail_rcu(&tg->siblings, &parent->children) */
	if (parent->last_child)
		parent->last_child->next_sibling = tg;
	else
		parent->first_child = tg;
	parent->last_child = tg;
	*out = tg;
	return 0;
}

int ts_tg_destroy(struct ts_task_group *tg)
{
	if (!tg)
		return 0;
	if (tg->first_child)
		return -EBUSY;
	struct ts_task_group *parent = tg->hot.ro.parent;
	if (parent) {
		struct ts_task_group **pp = &parent->first_child, *prev = NULL;
		while (*pp && *pp != tg) {
			prev = *pp;
			pp = &(*pp)->next_sibling;
		}
		if (*pp)
			*pp = tg->next_sibling;
		if (parent->last_child == tg)
			parent->last_child = prev;
	} else {
		free((void *)tg->cpu_node);
	}
	free_group(tg);
	return 0;
}

void ts_tg_destroy_tree(struct ts_task_group *tg)
{
	if (!tg)
		return;
	while (tg->first_child)
		ts_tg_destroy_tree(tg->first_child);
	ts_tg_destroy(tg);
}

int ts_tg_set_shares(struct ts_task_group *tg, unsigned long shares)
{
	if (ts_tg_is_root(tg))
		return -EINVAL; /* "We can't change the weight of the root cgroup." */
	tg->hot.ro.shares = clamp_shares(shares);
	return 0;
}

/* ---- tg->load_avg ----------------------------------------------------------------------- */

long ts_tg_load_avg_read(const struct ts_task_group *tg)
{
	struct ts_task_group *t = (struct ts_task_group *)tg;
	if (tg->layout != TS_TG_PER_NODE)
		return atomic_load_explicit(single_counter(t), memory_order_relaxed);
	long sum = 0;
	for (int n = 0; n < tg->nr_nodes; n++) /* for_each_node(node) */
		sum += atomic_load_explicit(&t->hot.per_node.node[n].load_avg,
					    memory_order_relaxed);
	return sum;
}

long ts_tg_load_avg_read_on(struct ts_task_group *tg, int cpu)
{
	ts_stat_inc(&tg->cpu[cpu].load_avg_reads);
	return ts_tg_load_avg_read(tg);
}

/* atomic_long_add(delta, &tg->load_avg), plus the write counters. */
static void load_avg_add(struct ts_task_group *tg, int cpu, long delta)
{
	struct ts_tg_cpu *tc = &tg->cpu[cpu];
	int node = tg->cpu_node[cpu];
	LINE_ACCESS(tg, cpu, load_counter_addr(tg, node), true);
	if (tg->layout == TS_TG_PER_NODE) {
		/* The writer's own node's line: only CPUs of `node` ever write it, so a write
		 * never follows one from another node (the remote-write count stays 0). */
		atomic_fetch_add_explicit(&tg->hot.per_node.node[node].load_avg, delta,
					  memory_order_relaxed);
	} else {
		atomic_fetch_add_explicit(single_counter(tg), delta, memory_order_relaxed);
		if (tg->writer) {
			atomic_int *last = &tg->writer->last_writer_node;
			int prev = atomic_load_explicit(last, memory_order_relaxed);
			if (prev != node) {
				prev = atomic_exchange_explicit(last, node, memory_order_relaxed);
				if (prev >= 0 && prev != node)
					ts_stat_inc(&tc->load_avg_remote_writes);
			}
		}
	}
	ts_stat_inc(&tc->load_avg_writes);
}

bool ts_update_tg_load_avg(struct ts_task_group *tg, int cpu, uint64_t now,
			   struct ts_tg_switches sw)
{
	/* No need to update load_avg for root_task_group as it is not used. (depth and the
	 * per-CPU block: the kernel reads no task_group field here either.) */
	if (tg->depth == 0)
		return false;
	struct ts_tg_cpu *tc = &tg->cpu[cpu];
	const struct ts_cfs_rq *cfs = &tc->cfs;
	/* For migration heavy workloads, access to tg->load_avg can be unbound. Limit the
	 * update rate to at most once per ms. (unsigned difference, as the kernel's u64) */
	if (sw.ratelimit && now - tc->last_update_tg_load_avg < TS_NSEC_PER_MSEC) {
		ts_stat_inc(&tc->skipped_ratelimit);
		return false;
	}
	long delta = (long)cfs->avg.load_avg - (long)tc->tg_load_avg_contrib;
	long mag = delta < 0 ? -delta : delta;
	bool pass = sw.filter ? mag > (long)(tc->tg_load_avg_contrib / 64) : delta != 0;
	if (!pass) {
		ts_stat_inc(&tc->skipped_filter);
		return false;
	}
	load_avg_add(tg, cpu, delta);
	tc->tg_load_avg_contrib = cfs->avg.load_avg;
	tc->last_update_tg_load_avg = now;
	return true;
}

void ts_clear_tg_load_avg(struct ts_task_group *tg, int cpu, uint64_t now)
{
	if (ts_tg_is_root(tg))
		return;
	struct ts_tg_cpu *tc = &tg->cpu[cpu];
	long delta = 0 - (long)tc->tg_load_avg_contrib;
	if (delta)
		load_avg_add(tg, cpu, delta);
	tc->tg_load_avg_contrib = 0;
	tc->last_update_tg_load_avg = now;
}

/* ---- shares ----------------------------------------------------------------------------- */

unsigned long ts_calc_group_shares(struct ts_task_group *tg, int cpu)
{
	FIELD_READ(tg, cpu, TS_TG_FIELD_SHARES);
	long tg_shares = (long)tg->hot.ro.shares; /* READ_ONCE(tg->shares) */
	if (tg->depth == 0)
		return (unsigned long)tg_shares;
	const struct ts_cfs_rq *cfs = &tg->cpu[cpu].cfs;
	long load = (long)cfs->load.weight; /* already scale_load_down()'ed */
	if ((long)cfs->avg.load_avg > load)
		load = (long)cfs->avg.load_avg;
	if (__builtin_expect(tg->line_access != NULL, 0)) {
		if (tg->layout == TS_TG_PER_NODE) /* for_each_node(): every node's line */
			for (int n = 0; n < tg->nr_nodes; n++)
				tg->line_access(tg->line_host, cpu, load_counter_addr(tg, n),
						false);
		else
			tg->line_access(tg->line_host, cpu, load_counter_addr(tg, 0), false);
	}
	long tg_weight = ts_tg_load_avg_read_on(tg, cpu);
	/* Ensure tg_weight >= load */
	tg_weight -= (long)tg->cpu[cpu].tg_load_avg_contrib;
	tg_weight += load;
	long shares = tg_shares * load;
	if (tg_weight)
		shares /= tg_weight;
	/* MIN_SHARES has to be unscaled here to support per-CPU partitioning of a group
	 * with small tg->shares value. */
	if (shares < (long)TS_MIN_SHARES)
		shares = (long)TS_MIN_SHARES;
	if (shares > tg_shares)
		shares = tg_shares;
	return (unsigned long)shares;
}

bool ts_update_cfs_group(struct ts_task_group *tg, int cpu, uint64_t now, struct ts_features f)
{
	if (tg->depth == 0)
		return false; /* entity_is_task / root: no group cfs_rq */
	struct ts_tg_cpu *tc = &tg->cpu[cpu];
	struct ts_sched_entity *se = &tc->se;
	/* When a group becomes empty, preserve its weight (DELAY_DEQUEUE). throttled_hierarchy()
	 * is always false here (no bandwidth control). */
	if (!tc->cfs.load.weight)
		return false;
	unsigned long shares = ts_calc_group_shares(tg, cpu);
	if (se->load.weight == shares)
		return false;
	ts_reweight_entity(se->cfs_rq, se, shares, now, f);
	return true;
}

void ts_tg_set_task_rq(struct ts_task_group *tg, int cpu, struct ts_sched_entity *se)
{
	FIELD_READ(tg, cpu, TS_TG_FIELD_CFS_RQ); /* cfs_rq[cpu] and se[cpu]: one line */
	/* CONFIG_RT_GROUP_SCHED: p->rt.rt_rq = tg->rt_rq[cpu]; p->rt.parent = tg->rt_se[cpu],
	 * for every task, fair ones too (kernel/sched/sched.h, set_task_rq() of v6.4): one
	 * line, rt_rq read first. */
	if (tg->rt_group_sched)
		FIELD_READ(tg, cpu, TS_TG_FIELD_RT_RQ);
	se->cfs_rq = tg->hot.ro.cfs_rq[cpu];
	se->parent = ts_tg_se(tg, cpu);
	se->depth = se->parent ? se->parent->depth + 1 : 0;
}

/* ---- h_load ----------------------------------------------------------------------------- */

/* cfs_rq_load_avg() of tg's queue on cpu: the root's from the host's published copy when
 * there is one, else the queue's own average. The caller may not hold cpu's lock, so it is
 * a relaxed atomic load of what PELT stores atomically (pelt.h), the kernel's plain load
 * made race-free. */
static unsigned long cfs_load_of(const struct ts_task_group *tg, int cpu)
{
	if (tg->depth == 0) {
		if (tg->root_load)
			return atomic_load_explicit(tg->root_load[cpu], memory_order_relaxed);
		return ts_sa_load_avg_lockfree(&tg->hot.ro.cfs_rq[cpu]->avg);
	}
	return ts_sa_load_avg_lockfree(&tg->cpu[cpu].cfs.avg);
}

#define HL_LOAD(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define HL_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

unsigned long ts_tg_update_h_load(struct ts_task_group *tg, int cpu, uint64_t jiffies)
{
	/* struct sched_entity *se = cfs_rq->tg->se[cpu]: the read-mostly line */
	FIELD_READ(tg, cpu, TS_TG_FIELD_SE);
	struct ts_tg_cpu *tc = &tg->cpu[cpu];
	if (HL_LOAD(&tc->last_h_load_update) == jiffies)
		return HL_LOAD(&tc->h_load);
	/* Walk up the entities (se->parent, cfs_rq_of(se)), each level recording the child to
	 * come back down to (h_load_next), until a level already computed in this jiffy. */
	struct ts_sched_entity *se = tg->depth ? &tc->se : NULL;
	struct ts_task_group *g = tg;
	HL_STORE(&tc->h_load_next, (struct ts_task_group *)NULL);
	for (; se; se = se->parent) {
		struct ts_task_group *child = se->my_q->tg;
		g = se->cfs_rq->tg;
		tc = &g->cpu[cpu];
		HL_STORE(&tc->h_load_next, child);
		if (HL_LOAD(&tc->last_h_load_update) == jiffies)
			break;
	}
	if (!se) { /* reached the root: g is the root */
		HL_STORE(&tc->h_load, cfs_load_of(g, cpu));
		HL_STORE(&tc->last_h_load_update, jiffies);
	}
	struct ts_task_group *child;
	while ((child = HL_LOAD(&tc->h_load_next)) != NULL) {
		uint64_t load = HL_LOAD(&tc->h_load);
		const struct ts_sched_entity *gse = &child->cpu[cpu].se;
		load = load * ts_sa_load_avg_lockfree(&gse->avg) / (cfs_load_of(g, cpu) + 1);
		g = child;
		tc = &g->cpu[cpu];
		HL_STORE(&tc->h_load, (unsigned long)load);
		HL_STORE(&tc->last_h_load_update, jiffies);
	}
	return HL_LOAD(&tg->cpu[cpu].h_load);
}

unsigned long ts_task_h_load(struct ts_task_group *tg, int cpu, unsigned long task_load_avg,
			     uint64_t jiffies)
{
	unsigned long h = ts_tg_update_h_load(tg, cpu, jiffies);
	return (unsigned long)((uint64_t)task_load_avg * h / (cfs_load_of(tg, cpu) + 1));
}

/* ---- layout info, statistics, dump ------------------------------------------------------- */

void ts_tg_layout_info(const struct ts_task_group *tg, struct ts_tg_layout_info *out)
{
	memset(out, 0, sizeof(*out));
	out->layout = tg->layout;
	out->off_se = TG_OFF(hot.ro.se);
	out->off_cfs_rq = TG_OFF(hot.ro.cfs_rq);
	out->off_parent = TG_OFF(hot.ro.parent);
	out->off_shares = TG_OFF(hot.ro.shares);
	switch (tg->layout) {
	case TS_TG_PACKED:
		out->off_load_avg = TG_OFF(hot.packed.load_avg);
		out->nr_counters = 1;
		out->counter_addr[0] = &tg->hot.packed.load_avg;
		break;
	case TS_TG_ALIGNED:
	case TS_TG_V6_4:
	case TS_TG_RELAYOUT:
		out->off_load_avg = TG_OFF(hot.aligned.load_avg);
		out->nr_counters = 1;
		out->counter_addr[0] = &tg->hot.aligned.load_avg;
		break;
	default:
		out->off_load_avg = SIZE_MAX;
		out->nr_counters = tg->nr_nodes;
		for (int n = 0; n < tg->nr_nodes && n < 8; n++)
			out->counter_addr[n] = &tg->hot.per_node.node[n].load_avg;
		break;
	}
}

void ts_tg_stats_cpu(const struct ts_task_group *tg, int cpu, struct ts_tg_stats *out)
{
	const struct ts_tg_cpu *tc = &tg->cpu[cpu];
	out->writes = ts_stat_read(&tc->load_avg_writes);
	out->reads = ts_stat_read(&tc->load_avg_reads);
	out->remote_writes = ts_stat_read(&tc->load_avg_remote_writes);
	out->skipped_ratelimit = ts_stat_read(&tc->skipped_ratelimit);
	out->skipped_filter = ts_stat_read(&tc->skipped_filter);
}

void ts_tg_stats_sum(const struct ts_task_group *tg, struct ts_tg_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < tg->nr_cpus; c++) {
		struct ts_tg_stats s;
		ts_tg_stats_cpu(tg, c, &s);
		out->writes += s.writes;
		out->reads += s.reads;
		out->remote_writes += s.remote_writes;
		out->skipped_ratelimit += s.skipped_ratelimit;
		out->skipped_filter += s.skipped_filter;
	}
}

double ts_tg_per_sec(uint64_t count, uint64_t interval_ns)
{
	return interval_ns ? (double)count * 1e9 / (double)interval_ns : -1.0;
}

double ts_tg_remote_share(const struct ts_tg_stats *s)
{
	return s->writes ? (double)s->remote_writes / (double)s->writes : -1.0;
}

struct dump_buf {
	char *buf;
	size_t len, need;
};

static void dump_line(struct dump_buf *d, const struct ts_task_group *tg, int indent)
{
	const struct ts_task_group *p = tg->hot.ro.parent;
	char *dst = d->need < d->len ? d->buf + d->need : NULL;
	size_t room = d->need < d->len ? d->len - d->need : 0;
	int n = snprintf(dst, room, "%*s%s shares=%lu parent=%s layout=%s load_avg=%ld\n",
			 indent * 2, "", tg->name, tg->hot.ro.shares, p ? p->name : "-",
			 ts_tg_layout_name(tg->layout), ts_tg_load_avg_read(tg));
	if (n > 0)
		d->need += (size_t)n;
	for (const struct ts_task_group *c = tg->first_child; c; c = c->next_sibling)
		dump_line(d, c, indent + 1);
}

size_t ts_tg_dump(const struct ts_task_group *tg, char *buf, size_t len)
{
	struct dump_buf d = {.buf = buf, .len = len, .need = 0};
	if (buf && len)
		buf[0] = '\0';
	if (tg)
		dump_line(&d, tg, 0);
	return d.need;
}
