/* The runtime host of an rt-app description (toposched/rtapp.h): each thread of the file
 * becomes a libtoposched task on this machine's workers, and runs its phases as rt-app's
 * thread_body() runs them (github.com/scheduler-tools/rt-app, src/rt-app.c): the threads
 * meet at a start barrier, sleep their "delay", then loop over their phases; "run" is
 * calibrated busy work (waste_cpu_cycles(), ns_per_loop measured once), "runtime" busy work
 * until that much wall-clock time has passed, "sleep" and "timer" sleep, lock/unlock,
 * wait/signal/broad/sync and suspend/resume use the runtime's mutexes and condition
 * variables, "barrier" a barrier of every thread naming it, "fork" spawns a thread of the
 * named task, "yield" gives up the worker, "mem" memsets the thread's buffer, "iorun"
 * writes it to /dev/null. At the end of the duration every thread stops before its next
 * event (rt-app's continue_running), releasing the mutexes it holds.
 *
 * It lives with the CLI, not in libtoposched: it is a program using the runtime's public
 * API (runtime.h) and reading the core's counters (runtime_core.h) like `toposched bench`,
 * and keeping it here keeps the installed library free of the rt-app reader and json-c.
 *
 * Refused, each with one message naming file, line, task and key (-EINVAL): policies
 * other than SCHED_OTHER (the runtime schedules the fair class only), a phase that changes
 * the thread's CPUs, policy, priority or group (the runtime has no call that changes them
 * on a running task), a timer shared by several threads (as the simulator refuses it),
 * iorun to another device than /dev/null, unbalanced lock/unlock within a phase (a lock
 * held twice, an unlock or a wait without the mutex, a phase that ends holding one), CPUs
 * that are not this machine's. */
#ifndef TOPOSCHED_CMD_RUN_EXEC_H
#define TOPOSCHED_CMD_RUN_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd_run_result.h"
#include "toposched/error.h"
#include "toposched/rtapp.h"

/* A file whose threads all end and that sets no duration runs at most this long (the
 * simulator gives such files the same 60 s). */
#define RX_FINITE_CAP_NS (UINT64_C(60) * 1000000000)
/* rt-app's FORKS_LIMIT: forks one thread may do before the run fails. */
#define RX_FORKS_LIMIT 1024
/* Threads of one run, forked ones included. */
#define RX_MAX_THREADS 16384

struct rx_plan;

/* Checks r and resolves its names (mutexes, conditions, barriers, timers, fork targets,
 * groups); r must outlive the plan. 0, or -EINVAL naming file, line, task and key. */
int rx_plan_build(const struct ts_rtapp *r, struct rx_plan **out, struct ts_error *err);
void rx_plan_free(struct rx_plan *p);
/* The time the run lasts at most: `override` when non-zero, else global.duration, else
 * (threads that all end) RX_FINITE_CAP_NS; *finite says whether every thread ends. */
uint64_t rx_plan_duration_ns(const struct rx_plan *p, uint64_t override, bool *finite);

struct rx_config {
	uint64_t duration_ns; /* 0: rx_plan_duration_ns()'s */
	const char *features; /* the runtime's feature string; NULL = defaults */
	bool no_preempt;      /* run cooperatively (no preemption at slice expiry) */
	double ns_per_loop;   /* > 0: instead of the file's calibration */
	const char *trace;    /* the runtime's trace file (ts_rt_config.trace); NULL: none */
};

struct rx_info {
	double ns_per_loop; /* what "run" used */
	bool calibrated;    /* ... measured here (else the file's or the caller's number) */
	int workers;
	bool preempt;
	uint64_t duration_ns;
};

/* Runs the plan in the runtime (which must not be running) from this plain thread; *out
 * is filled (rx_result_free() frees its arrays). 0; -EINVAL for input found wrong only
 * against this machine (a CPU it lacks, a bad feature string), with a message; another
 * negative code when the run failed (a fork limit, out of memory), with a message. */
int rx_run(const struct rx_plan *p, const struct rx_config *cfg, struct run_result *out,
	   struct rx_info *info, struct ts_error *err);
void rx_result_free(struct run_result *r);

/* ---- calibrated work (cmd_run_calibrate.c) ---- */

/* rt-app's waste_cpu_cycles(): `loops` passes of its ldexp() chain. */
void rx_waste_loops(uint64_t loops);
/* Busy work of `loops` passes with a preemption point (ts_cond_resched()) every few. */
void rx_burn(uint64_t loops);
/* ns per loop of rx_burn() on OS CPU `cpu` (the calling thread is pinned there for the
 * measurement), rt-app's calibrate_cpu_cycles(); -errno when it cannot run there. */
int rx_calibrate(int cpu, double *ns_per_loop, struct ts_error *err);

#endif
