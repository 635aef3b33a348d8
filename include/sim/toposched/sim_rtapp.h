/* rt-app workload files in the simulator: the reader's description (toposched/rtapp.h)
 * translated into a struct ts_workload whose task programs the engine runs.
 *
 * One rt-app task is one class, its "instance" threads the class's tasks; `load` copies
 * of the whole file run side by side (instances of the workload). Each thread starts as
 * rt-app starts it: created by the launcher, waiting at the start barrier (rt-app's
 * threads_barrier), then sleeping its "delay". Its program is its phases in order, each
 * repeated its "loop" times; the task's "loop" is the iteration count (-1: until the run
 * ends). Events: run -> RUN (the calibrated work, at the machine's nominal speed), sleep ->
 * SLEEP, timer -> TIMER, mem and iorun -> RUN at a stated cost, the synchronisation events
 * -> the engine's LOCK, COND_* and BARRIER_WAIT phases, yield -> YIELD, fork -> FORK of a
 * second class holding the task's forked threads (docs/workloads.md, "rt-app files").
 * Scheduling policies other than SCHED_OTHER, affinity, priority or group changes between
 * phases, and forks without bound are refused with a message naming the key, the task and
 * the line. */
#ifndef TOPOSCHED_SIM_RTAPP_H
#define TOPOSCHED_SIM_RTAPP_H

#include "toposched/error.h"
#include "toposched/rtapp.h"
#include "toposched/sim.h"

struct ts_sim_rtapp {
	struct ts_workload w;
	/* [w.nr_classes]: the index in the file's tasks of the task whose threads (or forked
	 * threads) each class holds */
	const int *class_task;
	/* the task groups of the file's "taskgroup" keys, in --groups-spec syntax (NULL:
	 * none) */
	const char *groups_spec;
	char **notes; /* what the translation approximates, one line each */
	int nr_notes;
	void *mem; /* everything above */
};

/* The workload of r, named `name`; 0, or -EINVAL with a message naming file, line, task
 * and key (-ENOMEM). */
int ts_sim_rtapp_build(const struct ts_rtapp *r, const char *name, struct ts_sim_rtapp **out,
		       struct ts_error *err);
void ts_sim_rtapp_free(struct ts_sim_rtapp *x);

/* The phases of a class's program one event becomes (a wait is COND_WAIT then LOCK, a
 * yield the system call then YIELD, ...), as ts_sim_rtapp_build() lays them out. */
int ts_sim_rtapp_event_phases(const struct ts_rtapp_event *ev);

/* Unrolled program length (events x phase loops), of one task or all of a file's, above
 * which the file is refused. */
#define TS_SIM_RTAPP_MAX_PROGRAM (1 << 20)

#endif
