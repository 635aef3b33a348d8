/* The checked, resolved form of an rt-app description that the runtime host runs
 * (cmd_run_exec.h): every named resource is an index into one table per kind, as
 * rt-app's get_resource_index() keeps one resource per (name, type). */
#ifndef TOPOSCHED_CMD_RUN_PLAN_H
#define TOPOSCHED_CMD_RUN_PLAN_H

#include "cmd_run_exec.h"

#define RX_HELD_MAX 16 /* mutexes a thread may hold at once */

struct rx_names {
	const char **v;
	int n, cap;
};

struct rx_event {
	const struct ts_rtapp_event *ev;
	/* LOCK, UNLOCK: the mutex; WAIT, SIGNAL, BROADCAST, SYNC, SUSPEND, RESUME: the
	 * condition; BARRIER: the barrier; TIMER: the thread's timer slot; FORK: the task */
	int res;
	int mutex; /* WAIT, SYNC, SUSPEND, RESUME: the mutex (suspend/resume: named as ref) */
};

struct rx_phase {
	int loop;
	struct rx_event *ev;
	int nr;
};

struct rx_task {
	const struct ts_rtapp_task *t;
	struct rx_phase *ph;
	int nr_phases;
	int nr_timers; /* slots: one per distinct timer ref */
	int group;     /* index into rx_plan.groups of its leaf, -1: the root */
};

/* A task group path "/a/b" as one entry per level: "a" (parent -1), "b" (parent a). */
struct rx_group {
	const char *name; /* owned */
	int parent;
};

struct rx_plan {
	const struct ts_rtapp *r;
	struct rx_task *task;
	int nr_tasks;
	int threads; /* started at the start barrier */
	bool finite; /* every thread ends (no "loop": -1) */
	struct rx_names mutexes, conds, barriers;
	int *barrier_users; /* each barrier's users, rt-app's count */
	struct rx_group *groups;
	int nr_groups;
};

/* The index of name in the table (added when absent), -ENOMEM. */
int rx_names_index(struct rx_names *t, const char *name);

#endif
