/* The memory layout of a task group's hot lines: where tg->load_avg, the one field many
 * CPUs write, lies relative to the fields the scheduling paths read (group.h explains the
 * reads and writes). A header of its own because the runtime's public configuration
 * (runtime.h, installed) names it and must not pull in the rest of the core.
 *
 * The layouts, each as struct task_group (kernel/sched/sched.h) had it:
 *  - TS_TG_ALIGNED ("isolated"; "aligned" accepted): load_avg alone in its line, every
 *    read-mostly field in other lines (the alternative to the re-layout proposed in its
 *    review: load_avg in an aligned struct of its own);
 *  - TS_TG_PACKED ("v4.4"; "packed" accepted): before v4.5, where load_avg was a plain
 *    atomic_long_t after se, cfs_rq and shares, followed by rt_se and rt_rq: one line for
 *    all of them (b0367629acf6 "sched/fair: Move the cache-hot 'load_avg' variable into
 *    its own cacheline", v4.5, ended it);
 *  - TS_TG_PER_NODE ("per-node"): one load_avg per NUMA node, each alone in its line
 *    (Aaron Lu's 2023 RFC "sched/fair: Make tg->load_avg per node", not merged);
 *  - TS_TG_V6_4 ("v6.4"): load_avg ____cacheline_aligned since v4.5, so se, cfs_rq and
 *    shares sit in the line before it; what follows it shares its line: with
 *    CONFIG_RT_GROUP_SCHED rt_se (+0x8), rt_rq (+0x10) and the head of rt_bandwidth,
 *    without it rcu (+0x8), list (+0x18), parent (+0x28) and siblings (+0x30);
 *  - TS_TG_RELAYOUT ("relayout"): Deng Pan's "sched/task_group: Re-layout structure to
 *    reduce false sharing" (v2, June 2023, against v6.4-rc5): rcu, list, siblings and
 *    children (written only by cgroup creation) follow load_avg; parent, rt_se and rt_rq
 *    move to the next line.
 * The core keeps one real counter line per layout (group.c proves those with static
 * assertions); the kernel fields that the core keeps elsewhere (rt_se, rt_rq, and parent in
 * v6.4 and the re-layout) are reported to the host's line model at the line and offset the
 * kernel gives them: ts_tg_field_offset(). */
#ifndef TOPOSCHED_TG_LAYOUT_H
#define TOPOSCHED_TG_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TS_TG_ALIGNED first: a zero-initialised configuration gets the isolated layout. New
 * layouts go at the end: the values are part of the runtime's configuration. */
enum ts_tg_layout {
	TS_TG_ALIGNED,
	TS_TG_PACKED,
	TS_TG_PER_NODE,
	TS_TG_V6_4,
	TS_TG_RELAYOUT,
	TS_TG_LAYOUT_NR
};

/* The names ts_tg_layout_parse() (group.h) accepts, for messages and help texts. */
#define TS_TG_LAYOUT_NAMES "v4.4, v6.4, relayout, isolated or per-node"

/* The fields of struct task_group that the hot paths touch. */
enum ts_tg_field {
	TS_TG_FIELD_SE,	      /* tg->se[]: set_task_rq(), h_load, blocked-load walk */
	TS_TG_FIELD_CFS_RQ,   /* tg->cfs_rq[]: set_task_rq() */
	TS_TG_FIELD_SHARES,   /* tg->shares: calc_group_shares() */
	TS_TG_FIELD_LOAD_AVG, /* tg->load_avg: update_tg_load_avg() writes, calc_group_shares() */
	TS_TG_FIELD_PARENT,   /* tg->parent: list_add_leaf_cfs_rq() */
	TS_TG_FIELD_RT_SE,    /* tg->rt_se[]: set_task_rq() with CONFIG_RT_GROUP_SCHED */
	TS_TG_FIELD_RT_RQ,    /* tg->rt_rq[]: the same */
	TS_TG_FIELD_NR
};

/* The byte offset of `field` from the start of the group's hot lines in layout l, with
 * or without CONFIG_RT_GROUP_SCHED (rt); line = offset / 64. SIZE_MAX where the field
 * is not inside the group: PER_NODE's load_avg (node lines of their own), rt_se and rt_rq
 * without rt. */
size_t ts_tg_field_offset(enum ts_tg_layout l, bool rt, enum ts_tg_field field);
/* The kernel's name of a field ("load_avg", "rt_se", ...). */
const char *ts_tg_field_name(enum ts_tg_field field);

#ifdef __cplusplus
}
#endif

#endif
