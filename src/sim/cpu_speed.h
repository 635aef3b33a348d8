/* CPU speed: how fast a task's CPU work progresses on its CPU. Two busy SMT siblings
 * share their core's throughput (smt.pair_yield), and the core clock depends on how many
 * cores of the package are active (freq.*: Intel turbo bins, AMD boost; Kunpeng a fixed
 * clock). Speed 1 is the speed the cost figures and the workloads' RUN phases are stated
 * at: one active core, no busy sibling. docs/model.md, "SMT and frequency". */
#ifndef TOPOSCHED_SIM_CPU_SPEED_H
#define TOPOSCHED_SIM_CPU_SPEED_H

#include <stdbool.h>

#include "toposched/cost_model.h"

/* The clock, MHz, with `active` cores of the package running (fewer than 1 count as 1):
 * max(freq.all_core_mhz, freq.max_mhz - (active - 1) x freq.step_mhz). */
double sim_freq_mhz(const struct ts_cost_model *m, int active);

/* The speed of a CPU's work with `active` cores of its package running and `busy`
 * threads of its own core busy (itself included):
 * sim_freq_mhz(active) / freq.max_mhz, times smt.pair_yield / busy when busy >= 2 (the
 * core's throughput with two or more busy threads is the pair's, shared equally). */
double sim_cpu_speed(const struct ts_cost_model *m, int active, int busy);

/* The engine's per-run state: which CPUs share a core and a package, and how many are busy
 * (a CPU is busy while it has a current task: the core is in C0). */
struct sim_speed {
	const struct ts_cost_model *costs;
	int *core_of, *pkg_of;	     /* per CPU */
	int *core_busy;		     /* per core: busy threads */
	int *pkg_active;	     /* per package: cores with a busy thread */
	int *core_first, *core_cpus; /* CPUs of core k: core_cpus[core_first[k] .. [k + 1]) */
	int *pkg_first;		     /* package p's slots: pkg_first[p] .. [p + 1] */
	int *pkg_busy, *pkg_nbusy;   /* its busy CPUs: pkg_busy[pkg_first[p] ..][0, nbusy) */
	int *busy_at;		     /* per CPU: its slot in pkg_busy, -1 when idle */
	/* sim_freq_mhz() and sim_cpu_speed() by count, computed once (they are looked up on
	 * every change of a CPU's busy state): clock_of[active], speed_of[active][busy] */
	double *clock_of, *speed_of;
	int busy_stride; /* a row of speed_of: busy = 0 .. the most threads of a core */
};

struct sim;

/* Sets m->speed up; leaves it NULL when no CPU of the machine ever runs at another speed
 * than 1 (no SMT or smt.pair_yield = 2, and a fixed clock), so that such runs keep the
 * exact old timing. Returns 0 or -ENOMEM. */
int sim_speed_setup(struct sim *m);
void sim_speed_free(struct sim *m);

/* cpu became busy or idle: the speeds of its siblings (SMT sharing) and, when the number
 * of active cores changed the clock, of every busy CPU of its package change now. A
 * running segment is re-timed: the work done so far at the old speed is kept, and its
 * end is posted again at the new speed. */
void sim_speed_busy(struct sim *m, int cpu, bool busy);

#endif
