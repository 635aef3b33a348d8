/* Task groups (mechanism 5): the hierarchy of groups with shares, their per-CPU group run
 * queues and group entities, and the group LOAD TRACKING of kernel/sched/fair.c (v6.12):
 * update_tg_load_avg() with its 1/64 filter and the 1 ms rate limit of v6.7,
 * calc_group_shares(), update_cfs_group() and the h_load of update_cfs_rq_h_load() /
 * task_h_load().
 *
 * tg->load_avg, the sum of every CPU's contribution, is the one field of a group that many
 * CPUs write. Its memory layout is chosen per group at creation (enum ts_tg_layout):
 *  - TS_TG_PACKED:   load_avg in the same 64-byte line as the read-mostly fields (se,
 *                    cfs_rq, parent, shares), so each write invalidates the line every
 *                    enqueue/dequeue reads (before Deng Pan's 2023 re-layout);
 *  - TS_TG_ALIGNED:  load_avg alone in its own line (the read-mostly fields in the line
 *                    before it);
 *  - TS_TG_PER_NODE: one counter per NUMA node, each alone in its own line; a CPU adds to
 *                    its node's counter, readers sum them (Aaron Lu's 2023 RFC, not merged).
 * The layouts are real struct layouts, proven by static assertions in group.c and
 * observable at run time through ts_tg_layout_info().
 *
 * Scale: shares and weights are scale_load_down()'ed (nice 0 = 1024), as everywhere in the
 * core. calc_group_shares() computed in this scale gives exactly scale_load_down() of the
 * kernel's scaled result (floor(floor(a*2^10/b)/2^10) = floor(a/b), and the kernel's
 * unscaled MIN_SHARES = 2 maps to scale_load_down()'s floor of 2).
 *
 * The scheduling of group entities (enqueue/dequeue/pick/tick walks, migration) is in
 * src/core/rq.c, PELT propagation in rq_pelt.h, blocked-load decay and a task changing
 * group in rq_group.c; reweight_entity() in eevdf.c. Tasks join groups with
 * ts_task_set_group() (sched.h).
 *
 * Concurrency, as in the kernel: a CPU's group cfs_rq, group entity and their
 * tg_load_avg_contrib / last_update_tg_load_avg are written only under that CPU's
 * run-queue lock (the caller's job); tg->load_avg (or the node counters) are atomic and
 * updated with relaxed atomic adds by any CPU; the counters of struct ts_tg_cpu are
 * written by their CPU only (ts_stat_inc). Creating and destroying groups is not
 * concurrent with anything else touching the hierarchy (the caller serialises it).
 *
 * Read lock-free: task_h_load() runs without the CPU's lock (wake-up placement, NUMA
 * balancing), as in the kernel, and touches
 *  - the avg.load_avg of the CPU's group cfs_rqs and group entities: PELT stores it with
 *    relaxed atomic stores, h_load reads it with relaxed atomic loads (pelt.h,
 *    ts_sa_set_load_avg() / ts_sa_load_avg_lockfree()); the root's load is the rq's
 *    published copy (rq->ro.load_avg, root_load);
 *  - the h_load cache of struct ts_tg_cpu (h_load, last_h_load_update, h_load_next):
 *    written by every caller, lock-free ones included (the kernel's plain stores, benign:
 *    callers in one jiffy compute the same values from the same inputs), so only accessed
 *    with relaxed atomic loads and stores;
 *  - se->parent, se->my_q, se->cfs_rq of group entities and cfs_rq->tg: set at creation,
 *    constant afterwards.
 * Nothing else of a group's per-CPU state is read without the lock.
 *
 * What differs from the kernel (v6.12, CONFIG_FAIR_GROUP_SCHED):
 *  - no bandwidth control (cpu.max): throttled_hierarchy() is always false, no
 *    throttling/unthrottling, no cfs_rq runtime accounting;
 *  - no DELAY_DEQUEUE / DELAY_ZERO (eevdf.h): a sleeping entity leaves its queue at once,
 *    so h_nr_runnable == h_nr_queued and group entities never hold delayed tasks;
 *  - ts_task_set_group() moves only tasks that are not queued (NEW or SLEEPING); the
 *    kernel's sched_move_task() also moves queued and running tasks;
 *  - no SCHED_IDLE groups (cpu.idle), no autogroup, no RT groups, no uclamp;
 *  - groups are not destroyed one by one while tasks may use them (only with the sched);
 *  - cpu_active() is always true (no CPU hotplug), so clear_tg_load_avg() is not called;
 *  - the leaf cfs_rq list of __update_blocked_fair() is walked as the group tree (children
 *    before parents) with an on_list flag per group cfs_rq, not as the kernel's list;
 *  - PELT has no clock_pelt (frequency/capacity invariance, idle-time correction): every
 *    queue ages on its rq's clock;
 *  - sync_entity_load_avg() of a task woken on another CPU decays it to now, not to the
 *    old cfs_rq's last_update_time (and migrate_se_pelt_lag() is not needed then);
 *  - a prev task picked again by __schedule() is put and set again at every level of its
 *    path (the kernel skips that), which renews its slice protection, as the flat core
 *    did: a task alone in its groups is then scheduled exactly like a root task;
 *  - the cfs_rq's 64-bit load/runnable sums are kept in 64 bits where the kernel clamps
 *    them with max_t(u32, ...);
 *  - h_load(root) and its denominator come from the rq's published load (rq->ro); below
 *    the root the group averages are relaxed atomic loads of what PELT stores atomically,
 *    where the kernel tolerates a data race (plain loads and stores);
 *  - PICK_BUDDY is not a separate switch: the group buddy that dequeue_entities() sets
 *    when a task sleeps is honoured only with NEXT_BUDDY. */
#ifndef TOPOSCHED_GROUP_H
#define TOPOSCHED_GROUP_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/eevdf.h"
#include "toposched/error.h"
#include "toposched/features.h"
#include "toposched/stats.h"
#include "toposched/tg_layout.h"

#define TS_TG_CACHELINE	 64
#define TS_MIN_SHARES	 2UL	     /* MIN_SHARES (unscaled, as calc_group_shares uses it) */
#define TS_MAX_SHARES	 (1UL << 18) /* MAX_SHARES */
#define TS_NSEC_PER_MSEC 1000000ULL
#define TS_TG_NAME_MAX	 32

/* tg_layout.c: "isolated", "v4.4", "per-node", "v6.4", "relayout". */
const char *ts_tg_layout_name(enum ts_tg_layout l);
/* A name of ts_tg_layout_name(), or "aligned", "packed", "per_node" (the old names);
 * -EINVAL otherwise. */
int ts_tg_layout_parse(const char *s, enum ts_tg_layout *out, struct ts_error *err);

/* The switches of update_tg_load_avg(), passed by value until they move into the feature
 * table (TG_LOAD_RATELIMIT, TG_LOAD_FILTER). Mainline v6.7+ has both on, unconditionally. */
struct ts_tg_switches {
	bool filter;	/* skip unless |delta| > tg_load_avg_contrib / 64; off: unless delta != 0 */
	bool ratelimit; /* skip if now - last_update_tg_load_avg < NSEC_PER_MSEC */
};
static inline struct ts_tg_switches ts_tg_switches_default(void)
{
	return (struct ts_tg_switches){.filter = true, .ratelimit = true};
}
/* The switches as the feature set has them (TG_LOAD_FILTER, TG_LOAD_RATELIMIT). */
static inline struct ts_tg_switches ts_tg_switches_of(struct ts_features f)
{
	return (struct ts_tg_switches){.filter = ts_features_has(f, TS_FEAT_TG_LOAD_FILTER),
				       .ratelimit = ts_features_has(f, TS_FEAT_TG_LOAD_RATELIMIT)};
}

/* Per CPU of a group: the group cfs_rq (tg->cfs_rq[cpu] points here, except for a root
 * created on the host's run queues), the group entity (tg->se[cpu], unused for the root),
 * the cfs_rq fields of the kernel that eevdf.h's ts_cfs_rq lacks, and the counters of this
 * CPU's accesses to tg->load_avg. One line-aligned block per CPU: no two CPUs share one. */
struct ts_task_group;
struct ts_tg_cpu {
	alignas(TS_TG_CACHELINE) struct ts_cfs_rq cfs;
	struct ts_sched_entity se;
	unsigned long tg_load_avg_contrib; /* cfs_rq->tg_load_avg_contrib */
	uint64_t last_update_tg_load_avg;  /* cfs_rq->last_update_tg_load_avg (ns) */
	/* h_load cache: written by whoever computes task_h_load(), lock-free callers
	 * included (the kernel's plain stores), so only accessed with relaxed atomics. */
	unsigned long h_load;		   /* cfs_rq->h_load */
	uint64_t last_h_load_update;	   /* cfs_rq->last_h_load_update (jiffies); ~0 = never */
	struct ts_task_group *h_load_next; /* cfs_rq->h_load_next: the child group on the way */
	/* written by this CPU only */
	ts_counter load_avg_writes;	   /* atomic adds to tg->load_avg */
	ts_counter load_avg_reads;	   /* reads of tg->load_avg (calc_group_shares) */
	ts_counter load_avg_remote_writes; /* writes to a line last written from another node */
	ts_counter skipped_ratelimit; /* update_tg_load_avg() calls stopped by the 1 ms limit */
	ts_counter skipped_filter;    /* ... stopped by the 1/64 filter (or a zero delta) */
	/* cfs_rq->removed of this CPU's group cfs_rq: written by remote CPUs (a task of the
	 * group that slept here woken elsewhere), so on a line of its own. */
	alignas(TS_TG_CACHELINE) struct ts_removed_load removed;
};

/* The read-mostly fields, first in every layout (a common initial sequence). */
struct ts_tg_ro {
	struct ts_sched_entity **se; /* [nr_cpus]; NULL array for the root */
	struct ts_cfs_rq **cfs_rq;   /* [nr_cpus] */
	struct ts_task_group *parent;
	unsigned long shares;
};

/* PACKED: one line, written and read fields together. */
struct ts_tg_line_packed {
	alignas(TS_TG_CACHELINE) struct ts_tg_ro ro;
	atomic_long load_avg;
	char pad_[TS_TG_CACHELINE - sizeof(struct ts_tg_ro) - sizeof(atomic_long)];
};
/* ALIGNED: read-mostly line, then load_avg alone in the next one. */
struct ts_tg_lines_aligned {
	alignas(TS_TG_CACHELINE) struct ts_tg_ro ro;
	char pad0_[TS_TG_CACHELINE - sizeof(struct ts_tg_ro)];
	alignas(TS_TG_CACHELINE) atomic_long load_avg;
	char pad1_[TS_TG_CACHELINE - sizeof(atomic_long)];
};
/* PER_NODE: the read-mostly line points at the node counters. */
struct ts_tg_node_load {
	alignas(TS_TG_CACHELINE) atomic_long load_avg;
	char pad_[TS_TG_CACHELINE - sizeof(atomic_long)];
};
struct ts_tg_line_per_node {
	alignas(TS_TG_CACHELINE) struct ts_tg_ro ro;
	struct ts_tg_node_load *node; /* [nr_nodes], each its own line */
	char pad_[TS_TG_CACHELINE - sizeof(struct ts_tg_ro) - sizeof(void *)];
};

/* Written by any CPU that writes load_avg, so it has a line of its own (not the load_avg
 * line: ALIGNED keeps that line to load_avg alone; the kernel keeps no such field). It is
 * written only when the writer's node differs from the recorded one, so while writers
 * stay on one node it is only read. Unused (no line) when track_writer_node is off. */
struct ts_tg_writer_line {
	alignas(TS_TG_CACHELINE) atomic_int last_writer_node; /* -1 = none yet */
	char pad_[TS_TG_CACHELINE - sizeof(atomic_int)];
};

/* The host's cache-line access hook (struct ts_host_ops.tg_line_access), see
 * ts_tg_set_line_access(). */
typedef void (*ts_tg_line_access_fn)(void *host, int cpu, const void *line, bool write);

struct ts_task_group {
	union {
		struct ts_tg_ro ro; /* common initial sequence of the three */
		struct ts_tg_line_packed packed;
		struct ts_tg_lines_aligned aligned;
		struct ts_tg_line_per_node per_node;
	} hot;
	/* cold: set at creation */
	enum ts_tg_layout layout;
	int nr_cpus, nr_nodes;
	int depth;	     /* 0 for the root */
	const int *cpu_node; /* [nr_cpus], shared by the hierarchy (the root owns it) */
	bool track_writer_node;
	/* CONFIG_RT_GROUP_SCHED (feature RT_GROUP_SCHED when ts_sched_group_create() made the
	 * group): set_task_rq() also reads rt_rq[], rt_se[]; tg_layout.h places them. */
	bool rt_group_sched;
	struct ts_tg_writer_line *writer; /* NULL unless track_writer_node */
	struct ts_tg_cpu *cpu;		  /* [nr_cpus], line-aligned */
	struct ts_task_group *first_child, *last_child, *next_sibling;
	struct ts_task_group *root;	  /* the hierarchy's root (itself for the root) */
	ts_tg_line_access_fn line_access; /* NULL = none; inherited from the parent */
	void *line_host;
	/* Root only: per CPU the host's published copy of the root cfs_rq's load_avg, read
	 * by h_load lock-free (NULL: the root cfs_rq's own avg.load_avg). */
	atomic_ulong **root_load;
	uint64_t base_slice, tick_nsec; /* for the group cfs_rqs */
	char name[TS_TG_NAME_MAX];
};

/* Creation parameters of a root group (the hierarchy inherits nr_cpus, the node map,
 * base_slice and tick_nsec). */
struct ts_tg_root_params {
	int nr_cpus;	     /* >= 1 */
	int nr_nodes;	     /* >= 1 */
	const int *cpu_node; /* [nr_cpus] node of each CPU in [0, nr_nodes); NULL = all 0 */
	enum ts_tg_layout layout;
	bool track_writer_node; /* keep the last writer's node (remote-write counter) */
	/* The root group's per-CPU cfs_rq: the host's run queues (&rq->cfs), or NULL to use
	 * the root's own struct ts_tg_cpu.cfs (tests, standalone use). */
	struct ts_cfs_rq *const *root_cfs_rq;
	uint64_t base_slice; /* 0 = ts_sched_base_slice(nr_cpus) */
	uint64_t tick_nsec;  /* 0 = TS_TICK_NSEC_DEFAULT */
	/* [nr_cpus] the published load of each root cfs_rq for lock-free h_load readers
	 * (&rq->ro.load_avg), or NULL to read the root cfs_rq's avg.load_avg. */
	atomic_ulong *const *root_load;
	/* Cache-line access hook for the whole hierarchy (NULL = none). */
	ts_tg_line_access_fn line_access;
	void *line_host;
};

/* The root group (root_task_group): shares = NICE_0_LOAD, no group entities. */
int ts_tg_create_root(const struct ts_tg_root_params *p, struct ts_task_group **out,
		      struct ts_error *err);
/* A child of parent (sched_create_group + init_tg_cfs_entry): shares clamped to
 * [MIN_SHARES, MAX_SHARES] as sched_group_set_shares() does (0 = NICE_0_LOAD); per CPU a
 * group entity of weight NICE_0_LOAD with se->my_q = its cfs_rq, se->cfs_rq =
 * parent->cfs_rq[cpu], se->parent = parent->se[cpu] (NULL under the root), se->depth.
 * -EINVAL for a bad name, -EEXIST if parent has a child of that name (mkdir), -ENOMEM. */
int ts_tg_create(struct ts_task_group *parent, const char *name, unsigned long shares,
		 enum ts_tg_layout layout, struct ts_task_group **out, struct ts_error *err);
/* Frees a group without children (-EBUSY otherwise, like rmdir of a cgroup). A root
 * frees the shared node map too. */
int ts_tg_destroy(struct ts_task_group *tg);
/* Frees a whole subtree, children first. */
void ts_tg_destroy_tree(struct ts_task_group *tg);

static inline bool ts_tg_is_root(const struct ts_task_group *tg)
{
	return !tg->hot.ro.parent;
}
static inline struct ts_task_group *ts_tg_parent(const struct ts_task_group *tg)
{
	return tg->hot.ro.parent;
}
static inline unsigned long ts_tg_shares(const struct ts_task_group *tg)
{
	return tg->hot.ro.shares;
}
static inline struct ts_cfs_rq *ts_tg_cfs_rq(const struct ts_task_group *tg, int cpu)
{
	return tg->hot.ro.cfs_rq[cpu];
}
/* NULL for the root. */
static inline struct ts_sched_entity *ts_tg_se(const struct ts_task_group *tg, int cpu)
{
	return tg->hot.ro.se ? tg->hot.ro.se[cpu] : NULL;
}
static inline struct ts_tg_cpu *ts_tg_pcpu(struct ts_task_group *tg, int cpu)
{
	return &tg->cpu[cpu];
}
/* sched_group_set_shares(): clamp and store (no reweight here; -EINVAL for the root). */
int ts_tg_set_shares(struct ts_task_group *tg, unsigned long shares);

/* atomic_long_read(&tg->load_avg); PER_NODE: the sum over the node counters. Uncounted. */
long ts_tg_load_avg_read(const struct ts_task_group *tg);
/* The same, counted as a read by `cpu`. */
long ts_tg_load_avg_read_on(struct ts_task_group *tg, int cpu);

/* update_tg_load_avg(tg->cfs_rq[cpu]) at `now` (ns, the CPU's sched_clock): a no-op for
 * the root; with sw.ratelimit, nothing if now - last_update_tg_load_avg < 1 ms; delta =
 * cfs_rq->avg.load_avg - tg_load_avg_contrib; with sw.filter nothing unless |delta| >
 * contrib / 64 (without it, nothing unless delta != 0); else an atomic add of delta to
 * load_avg (PER_NODE: to cpu's node counter), contrib = avg.load_avg and
 * last_update_tg_load_avg = now. Returns true when load_avg was written. */
bool ts_update_tg_load_avg(struct ts_task_group *tg, int cpu, uint64_t now,
			   struct ts_tg_switches sw);
/* clear_tg_load_avg() (CPU going offline): remove cpu's whole contribution. */
void ts_clear_tg_load_avg(struct ts_task_group *tg, int cpu, uint64_t now);

/* calc_group_shares(tg->cfs_rq[cpu]): load = max(cfs_rq->load.weight, avg.load_avg);
 * tg_weight = tg->load_avg - contrib + load; shares = tg->shares * load / tg_weight
 * (tg_weight 0: / 1), clamped to [MIN_SHARES, tg->shares]. Reads load_avg once (counted).
 * For the root (no entity to weigh) it returns the root's shares. */
unsigned long ts_calc_group_shares(struct ts_task_group *tg, int cpu);

/* update_cfs_group(tg->se[cpu]) at `now` (rq locked): nothing for the root, or while the
 * group cfs_rq is empty (load.weight 0: v6.12 keeps the weight for DELAY_DEQUEUE); else
 * shares = calc_group_shares() and, if it differs from se->load.weight,
 * ts_reweight_entity(se->cfs_rq, se, shares, now, f): a queued entity keeps its lag and
 * relative deadline, a dequeued one's vlag is rescaled, and the PELT load follows. Returns
 * true when the weight changed. */
bool ts_update_cfs_group(struct ts_task_group *tg, int cpu, uint64_t now, struct ts_features f);

/* set_task_rq(): a task of group tg (the root for none) on cpu: se->cfs_rq =
 * tg->cfs_rq[cpu], se->parent = tg->se[cpu], se->depth. Reads tg's read-mostly line. */
void ts_tg_set_task_rq(struct ts_task_group *tg, int cpu, struct ts_sched_entity *se);

/* The hierarchy of root calls fn(host, cpu, line, write) for every access the scheduling
 * paths make to a group's shared lines: each write of load_avg (the line holding it;
 * PER_NODE: the writer's node line), each read of load_avg in calc_group_shares() (PER_NODE:
 * every node line summed), each read of the read-mostly fields (se[], cfs_rq[], shares,
 * parent: their line; in PACKED the load_avg line too) by calc_group_shares(),
 * set_task_rq(), update_cfs_rq_h_load() and __update_blocked_fair(), of rt_rq[] and
 * rt_se[] by set_task_rq() when tg->rt_group_sched, and of parent by
 * list_add_leaf_cfs_rq(). `line` is the address of the field read or written, placed as
 * the group's layout places it (tg_layout.h: ts_tg_field_offset()); the line is that
 * address rounded down to 64 bytes, the offset in it says which field, as in perf c2c.
 * `cpu` is the CPU making the access. The root group's lines are
 * never written (its load_avg is not kept), so its accesses are not reported. NULL turns
 * it off. Groups created later inherit it. Not concurrent with scheduling. */
void ts_tg_set_line_access(struct ts_task_group *root, ts_tg_line_access_fn fn, void *host);
/* The line the load_avg counter of `node` lies on (node ignored unless PER_NODE) and the
 * read-mostly line: for tests and the host's model. */
const void *ts_tg_load_line(const struct ts_task_group *tg, int node);
const void *ts_tg_ro_line(const struct ts_task_group *tg);
/* __update_blocked_fair()'s read of tg->se[cpu] for one leaf cfs_rq (the caller walks). */
void ts_tg_note_ro_read(const struct ts_task_group *tg, int cpu);
/* list_add_leaf_cfs_rq()'s read of tg->parent, when tg's cfs_rq on cpu joins the leaf
 * list (it is read only for a cfs_rq not on the list yet). */
void ts_tg_note_parent_read(const struct ts_task_group *tg, int cpu);

/* update_cfs_rq_h_load(tg->cfs_rq[cpu]) at `jiffies`: top-down from the root, h_load(root)
 * = root cfs_rq's avg.load_avg, h_load(child) = h_load(parent) * ge.avg.load_avg /
 * (parent cfs_rq avg.load_avg + 1), each cfs_rq recomputed at most once per jiffy (the
 * walk up stops at the first level already computed in this jiffy). Returns the h_load.
 * The root's load is the published copy when the root has one (root_load). Needs no lock
 * of `cpu`: the averages it reads are relaxed atomic loads and the cache is written with
 * relaxed atomic stores (see Concurrency above); lock-free callers (wake-up placement,
 * NUMA balancing) accept staleness like the kernel's. */
unsigned long ts_tg_update_h_load(struct ts_task_group *tg, int cpu, uint64_t jiffies);
/* task_h_load(p) for a task of group tg on cpu with p->se.avg.load_avg = task_load_avg:
 * task_load_avg * h_load / (cfs_rq avg.load_avg + 1). */
unsigned long ts_task_h_load(struct ts_task_group *tg, int cpu, unsigned long task_load_avg,
			     uint64_t jiffies);

/* Where the written and read fields lie, relative to the group (and, for PER_NODE, the
 * node counters' own addresses), for run-time checks and reports. */
struct ts_tg_layout_info {
	enum ts_tg_layout layout;
	size_t off_se, off_cfs_rq, off_parent, off_shares; /* read on hot paths */
	size_t off_load_avg;	     /* written; PER_NODE: SIZE_MAX (not inside the group) */
	int nr_counters;	     /* 1, or nr_nodes for PER_NODE */
	const void *counter_addr[8]; /* the first 8 counters' addresses */
};
void ts_tg_layout_info(const struct ts_task_group *tg, struct ts_tg_layout_info *out);

/* Sums of the per-CPU counters. Per second: count * 1e9 / interval_ns of the caller's
 * measuring interval (ts_tg_per_sec). remote_share = remote_writes / writes (-1 if none). */
struct ts_tg_stats {
	uint64_t writes, reads, remote_writes, skipped_ratelimit, skipped_filter;
};
void ts_tg_stats_cpu(const struct ts_task_group *tg, int cpu, struct ts_tg_stats *out);
void ts_tg_stats_sum(const struct ts_task_group *tg, struct ts_tg_stats *out);
double ts_tg_per_sec(uint64_t count, uint64_t interval_ns); /* -1 for interval 0 */
double ts_tg_remote_share(const struct ts_tg_stats *s);

/* Text tree of the hierarchy below tg, one line per group, children indented two spaces:
 *   <name> shares=<n> parent=<name|-> layout=<layout> load_avg=<n>
 * Returns the length the whole text needs (like snprintf); writes at most len - 1 bytes
 * plus a NUL when len > 0. */
size_t ts_tg_dump(const struct ts_task_group *tg, char *buf, size_t len);

#endif
