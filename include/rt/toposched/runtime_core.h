/* The runtime's handles into its scheduling core, for programs built with the core (the
 * CLI, the tests, the benchmarks: they link ts_all). Not installed, and libtoposched does
 * not export these functions: an application sees only runtime.h, which names no core
 * type. */
#ifndef TOPOSCHED_RUNTIME_CORE_H
#define TOPOSCHED_RUNTIME_CORE_H

#include "toposched/runtime.h"
#include "toposched/sched.h"

/* The scheduler of the running runtime (statistics: ts_cpu_rq(s, cpu)->stats), or NULL. */
struct ts_sched *ts_rt_sched(void);
/* The calling task's core task (NULL from a plain thread). */
struct ts_task *ts_self_sched_task(void);
/* The core's group of g (for statistics of one CPU: ts_tg_stats_cpu()); NULL if g is not
 * a group of this run. */
struct ts_task_group *ts_rt_group_tg(const struct ts_rt_group *g);

#endif
