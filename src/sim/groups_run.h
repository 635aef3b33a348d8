/* Task groups in one simulator run: the groups of a --groups-spec created in the run's
 * scheduler, which group each task joins, the cache-line model behind the core's
 * tg_line_access hook, and the run's group results (struct ts_sim_tg_result). The engine
 * owns the charging of stalls to tasks; this file owns everything else. */
#ifndef TOPOSCHED_SIM_GROUPS_RUN_H
#define TOPOSCHED_SIM_GROUPS_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "line_model.h"
#include "toposched/sched.h"
#include "toposched/sim.h"
#include "toposched/sim_groups.h"

struct sim_groups {
	const struct ts_groups_spec *spec;
	struct sim_line_model lines;
	bool oom; /* the line table could not grow: the run fails */
	/* every created group, in creation order: spec nodes in order, a template's
	 * instances one after another */
	struct ts_task_group **tg;
	int nr_tg;
	int *node_first; /* [spec nodes] index in tg of the node's (first) group */
	int *top_of;	 /* [nr_tg] index of the group's top-level ancestor among the tops */
	int nr_top;
	int *top_tg;				/* [nr_top] index in tg of each top-level group */
	int entry_class[TS_GROUPS_MAX_ENTRIES]; /* TS_GROUPS_CLASS: the class index */
	int nr_tasks;
	int *task_slot; /* [nr_tasks] the task's top-level group, nr_top = the root */
	/* HITMs by reader (ts_sim_tg_reader), [0] same node, [1] other node; the reader of each
	 * 8-byte word of the load_avg line(s) under the groups' layout */
	uint64_t hitm[TS_SIM_TG_READER_NR][2];
	double hitm_ns;
	unsigned char word_reader[8];
	/* window start */
	uint64_t *exec0; /* [nr_top + 1] */
	struct ts_tg_stats core0;
	struct sim_line_stats lines0;
	uint64_t hitm0[TS_SIM_TG_READER_NR][2];
	double hitm_ns0;
	uint64_t win_start;
};

/* Creates spec's groups in s for `load` instances of w and sizes the task map for
 * nr_tasks tasks. The cache-line model uses topo and costs (costs NULL: no line model,
 * for a dump). */
int sim_groups_create(struct ts_sched *s, const struct ts_groups_spec *spec,
		      const struct ts_workload *w, int load, int nr_tasks,
		      const struct ts_topology *topo, const struct ts_cost_model *costs,
		      struct sim_groups **out, struct ts_error *err);
void sim_groups_free(struct sim_groups *g);

/* out[w] = the reader (enum ts_sim_tg_reader) of the 8-byte word w of the load_avg line
 * in layout l with or without CONFIG_RT_GROUP_SCHED (groups_hitm.c). */
void sim_groups_word_readers(enum ts_tg_layout l, bool rt, unsigned char out[8]);

/* The group of task `index` (class ci of instance inst), NULL for the root; records the
 * task's top-level group. */
struct ts_task_group *sim_groups_place(struct sim_groups *g, int index, int ci, int inst);

/* The line model's verdict on one access at now to the field at `addr`: stall ns. A HITM
 * is counted for the reader the field's offset names (a write: update_tg_load_avg()). */
static inline double sim_groups_access(struct sim_groups *g, int cpu, const void *addr, bool write,
				       uint64_t now)
{
	int rel;
	bool hitm;
	double ns = sim_line_access(&g->lines, cpu, (uintptr_t)addr, write, (double)now, &rel,
				    &hitm, &g->oom);
	if (hitm) {
		int reader = write ? TS_SIM_TG_UPDATE_TG_LOAD_AVG
				   : g->word_reader[((uintptr_t)addr & 63) >> 3];
		g->hitm[reader][rel >= TS_REL_PACKAGE]++;
		g->hitm_ns += ns;
	}
	return ns;
}

/* exec[slot] += ns for task `index` (slots as task_slot; the caller sums its tasks). */
static inline void sim_groups_add_exec(const struct sim_groups *g, uint64_t *exec, int index,
				       uint64_t ns)
{
	exec[g->task_slot[index]] += ns;
}

/* The window opens at now; exec = [nr_top + 1] the tasks' CPU time so far (copied). */
void sim_groups_window_open(struct sim_groups *g, uint64_t now, const uint64_t *exec);
/* The window ends at now with exec as above: fills out (nr_cpus: the CPUs the tasks may
 * use). */
void sim_groups_result(const struct sim_groups *g, uint64_t now, const uint64_t *exec, int nr_cpus,
		       struct ts_sim_tg_result *out);

#endif
