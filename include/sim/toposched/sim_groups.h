/* Task groups in a simulator run (issue 6): a small text syntax for a hierarchy of groups
 * with shares and which of a workload's tasks go where (the --groups-spec of toposched
 * sim), the per-run group results, the `tg_layout=` token of a --compare configuration,
 * and a dump of the hierarchy a spec builds. The engine creates the groups with
 * ts_sched_group_create() and puts the tasks in them with ts_task_set_group() before they
 * start (src/sim/groups_run.c); the cache-line model behind the stall figures is
 * src/sim/line_model.c (docs/model.md, "Task-group cache lines").
 *
 * Syntax (docs/workloads.md, "Task groups"):
 *     SPEC  := ENTRY [',' ENTRY]...
 *     ENTRY := PATH '=' WHO
 *     PATH  := GROUP ['/' GROUP]...          a path below the root, outermost first
 *     GROUP := NAME [':' SHARES]             SHARES 2..262144 (cpu.weight scale), default 1024
 *     WHO   := all | class:CLASS | instance
 *  - all: every task of the workload; class:CLASS: the tasks of that task class; instance:
 *    every task, one group per instance (pair, client, hackbench group): the last GROUP of
 *    the path is a template, instance i goes to NAME<i> (NAME0, NAME1, ...), each with the
 *    template's shares; such a group has no children (and, selecting every task, its
 *    entry is the only one).
 *  - Entries naming the same path prefix share those groups; shares given twice for one
 *    group must agree. A task is selected by at most one entry; tasks no entry selects stay
 *    in the root group. NAME: 1 to 31 letters, digits or "_-." (a template at most 26, to
 *    leave room for the instance number).
 * Example: "app:2048/client=class:netperf,app/server:512=class:netserver". */
#ifndef TOPOSCHED_SIM_GROUPS_H
#define TOPOSCHED_SIM_GROUPS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/error.h"
#include "toposched/features.h"
#include "toposched/group.h"
#include "toposched/topology.h"

struct ts_workload;

#define TS_GROUPS_SPEC_MAX     512 /* text, NUL included */
#define TS_GROUPS_MAX_NODES    64  /* named groups (a template counts once) */
#define TS_GROUPS_MAX_ENTRIES  32
#define TS_GROUPS_MAX_DEPTH    8
#define TS_GROUPS_CLASS_MAX    64 /* class name, NUL included */
#define TS_GROUPS_SHARES_MIN   2
#define TS_GROUPS_SHARES_MAX   262144
#define TS_GROUPS_TEMPLATE_MAX (TS_TG_NAME_MAX - 1 - 5) /* + up to 5 digits (65535) */

enum ts_groups_who { TS_GROUPS_ALL, TS_GROUPS_CLASS, TS_GROUPS_INSTANCE };

struct ts_groups_node {
	char name[TS_TG_NAME_MAX];
	int parent;	      /* index of the parent node; -1 = the root group */
	unsigned long shares; /* 1024 unless given */
	bool shares_given;
	bool per_instance; /* a template: one group per instance, NAME<i> */
};

struct ts_groups_entry {
	int node; /* where the selected tasks go */
	enum ts_groups_who who;
	char class_name[TS_GROUPS_CLASS_MAX]; /* TS_GROUPS_CLASS */
};

/* Nodes in order of first mention, so a parent always comes before its children. */
struct ts_groups_spec {
	char text[TS_GROUPS_SPEC_MAX]; /* as given */
	int nr_nodes, nr_entries;
	struct ts_groups_node node[TS_GROUPS_MAX_NODES];
	struct ts_groups_entry entry[TS_GROUPS_MAX_ENTRIES];
};

/* Parses text into *out (the text is kept). With a workload, class names are checked
 * against its classes. Errors (-EINVAL) name the offending token; *out is then unusable. */
int ts_groups_spec_parse(const char *text, const struct ts_workload *w, struct ts_groups_spec *out,
			 struct ts_error *err);

/* Takes every "tg_layout=LAYOUT" token (blank- or comma-separated, as feature names are)
 * out of a --compare FEATURES string: rest receives the string with those tokens blanked
 * (so the other tokens keep their offsets for the feature parser's messages), *layout the
 * last layout given and *given whether there was one. -EINVAL for a bad layout (naming
 * it) or features that do not fit rest_size. */
int ts_tg_layout_take(const char *features, char *rest, size_t rest_size, enum ts_tg_layout *layout,
		      bool *given, struct ts_error *err);

/* ---- per-run results (struct ts_sim_result.tg; zero when the run has no groups) ---- */

#define TS_SIM_TG_TOP_MAX 8 /* top-level groups reported by name */

/* The code paths behind the HITMs on a group's load_avg line, told apart by the offset
 * each touches (tg_layout.h), as perf c2c tells them: update_cfs_group() ->
 * calc_group_shares() reading load_avg (and shares where they share the line);
 * set_task_cpu() -> set_task_rq() reading cfs_rq[], rt_rq[], rt_se[];
 * list_add_leaf_cfs_rq() reading parent; update_tg_load_avg()'s atomic add (its load
 * half: a locked add is sampled as a load); other (se[] read by the h_load and
 * blocked-load walks). */
enum ts_sim_tg_reader {
	TS_SIM_TG_UPDATE_CFS_GROUP,
	TS_SIM_TG_SET_TASK_CPU,
	TS_SIM_TG_LIST_ADD_LEAF,
	TS_SIM_TG_UPDATE_TG_LOAD_AVG,
	TS_SIM_TG_READER_OTHER,
	TS_SIM_TG_READER_NR
};
const char *ts_sim_tg_reader_name(enum ts_sim_tg_reader r);
/* The published split (perf c2c of the load_avg line, 2-socket Xeon Platinum 8380,
 * v6.4-rc5 with CONFIG_RT_GROUP_SCHED, UnixBench context1 x 160: Deng Pan, "[PATCH v2]
 * sched/task_group: Re-layout structure to reduce false sharing", June 2023): the % of the
 * local (remote = false) or remote HITMs of reader r; -1 where the mail gives none.
 * update_cfs_group 65.16 / 63.72 %, set_task_cpu (offsets 0x8 + 0x10) 16.30 + 14.97 /
 * 14.16 + 13.87 %. */
double ts_sim_tg_c2c_share(enum ts_sim_tg_reader r, bool remote);
/* The clock the mail's latencies are in cycles of: the 8380's 2.3 GHz base (cycles/ns). */
#define TS_SIM_TG_C2C_GHZ 2.3
/* The reader of `field` (tg_layout.h) in that split. */
enum ts_sim_tg_reader ts_sim_tg_reader_of(enum ts_tg_field field);

struct ts_sim_tg_result {
	bool enabled;	    /* the run had a groups spec */
	uint64_t window_ns; /* the measured window the counters cover */
	int nr_cpus;	    /* the CPUs the tasks may use (for per-CPU rates) */
	/* The core's counters (struct ts_tg_cpu), summed over every group below the root. */
	uint64_t load_avg_writes, load_avg_reads, skipped_ratelimit, skipped_filter;
	/* The line model (src/sim/line_model.h), over every group line the core touched. */
	uint64_t line_reads, line_writes;
	uint64_t line_misses[TS_REL_NR]; /* transfers by relation of the supplying CPU */
	uint64_t remote_node_writes;	 /* writes to a line last written from another node */
	double stall_ns;		 /* total CPU time stalled on those transfers */
	double wait_ns;			 /* the part waiting for a line busy with others */
	/* HITMs: accesses served by a CPU holding the line modified, by reader, [0] from the
	 * reader's node, [1] from another node (c2c's local and remote HITM), and the sum of
	 * their latencies (wait plus transfer, ns). */
	uint64_t hitm[TS_SIM_TG_READER_NR][2];
	double hitm_ns;
	/* CPU time of the tasks, by top-level group (children of the root, creation order),
	 * in the window: the first TS_SIM_TG_TOP_MAX by name, the rest summed. */
	int nr_top;
	char top_name[TS_SIM_TG_TOP_MAX][TS_TG_NAME_MAX];
	uint64_t top_exec_ns[TS_SIM_TG_TOP_MAX];
	uint64_t other_top_exec_ns; /* top-level groups beyond the first TS_SIM_TG_TOP_MAX */
	uint64_t root_exec_ns;	    /* tasks in no group */
};

/* Adds b's counters to a (for a sweep point; names and nr_top taken from b when a has
 * none yet). */
void ts_sim_tg_result_add(struct ts_sim_tg_result *a, const struct ts_sim_tg_result *b);
uint64_t ts_sim_tg_line_misses(const struct ts_sim_tg_result *r); /* all relations */
uint64_t ts_sim_tg_exec_ns(const struct ts_sim_tg_result *r);	  /* all tasks */

/* Builds the groups of spec for `load` instances of w on t (a scheduler with `layout`,
 * never run) and writes the hierarchy as ts_tg_dump() prints it, then per group the
 * tasks it holds. Errors as the engine's (a template's NAME<i> clashing with a sibling). */
int ts_groups_spec_dump(const struct ts_groups_spec *spec, const struct ts_topology *t,
			struct ts_features f, enum ts_tg_layout layout, const struct ts_workload *w,
			int load, FILE *out, struct ts_error *err);

#endif
