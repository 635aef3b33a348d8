/* What one host made of an rt-app file (toposched run, toposched compare-real): the same
 * figures from the runtime (cmd_run_exec.c) and from the simulator
 * (cmd_compare_real_sim.c), so that the two can be printed side by side. */
#ifndef TOPOSCHED_CMD_RUN_RESULT_H
#define TOPOSCHED_CMD_RUN_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/json_writer.h"
#include "toposched/stats.h"

/* One rt-app task: its threads (forked ones included) and the loops they completed. A
 * loop is one pass over a phase's events, the unit rt-app logs one line for. */
struct run_class {
	const char *name;
	int threads;
	uint64_t loops;
};

#define RUN_LAT_NR 4 /* p50, p90, p99, p99.9 */

struct run_result {
	double seconds; /* measured: from the start barrier's release to the end */
	bool finished;	/* every thread ended before the duration did */
	/* CPU time the threads got over the measured time, s: the runtime's process (user +
	 * system, workers' own overhead included), the simulator's busy time of its CPUs.
	 * Against nr_cpus x seconds it says how much of the machine the run had. */
	double cpu_s;
	/* The runtime's steal time over the measured time, s: wall time in which a worker
	 * had a task running and its thread did not run, which no task was charged
	 * (docs/runtime.md, "Steal time"). The simulator's machine has none: 0. */
	double steal_s;
	int nr_cpus;
	int nr_classes;
	struct run_class *classes;
	/* Wake-up latency of timer and sleep events (rt-app's wu_lat: from the instant the
	 * thread should have woken to the instant it runs), us; -1 without samples. */
	uint64_t lat_samples;
	double lat_us[RUN_LAT_NR];
	/* The core's counters over the measured time, summed over CPUs. */
	uint64_t wakeups, migrations;
	uint64_t reasons[TS_PLACE_NR];
	uint64_t by_relation[TS_REL_NR];
};

extern const double run_lat_quantiles[RUN_LAT_NR];
const char *run_lat_name(int i); /* "p50", ... */
/* ts_place_reason_name(), ts_cpu_relation_name() by index. */
const char *run_reason_name(int i);
const char *run_relation_name(int i);

/* loops of class i per second of measured time (0 when no time was measured). */
double run_loops_per_s(const struct run_result *r, int i);
double run_migrations_per_s(const struct run_result *r);
/* 100 x cpu_s (steal_s) / (nr_cpus x seconds), -1 without measured time. */
double run_share_of_machine(const struct run_result *r);
double run_steal_share(const struct run_result *r);
/* 100 x part / whole, -1 when whole is 0. */
double run_share(uint64_t part, uint64_t whole);
/* Sum of the placement reasons (the wake-ups placed by select_task_rq_fair()). */
uint64_t run_placements(const struct run_result *r);

/* The result as a JSON object's members (the caller opens and closes it). */
void run_result_json(struct ts_json_writer *w, const struct run_result *r);
/* The result as text, two-space indented lines. */
void run_result_text(FILE *f, const struct run_result *r);

#endif
