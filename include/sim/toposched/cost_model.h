/* The simulator's machine cost model: what moving a cache line, a message, a task's
 * footprint or a wake-up between two CPUs costs, what an idle CPU takes to wake, what a
 * context switch and an idle-scan probe cost, and local vs remote memory latency. Every
 * value is in nanoseconds (or ns per KiB) and carries its source: a published measurement
 * with its data set named, a value derived from such measurements by a stated rule, a
 * value the Linux kernel declares (cpuidle tables), an estimate with its reasoning, or the
 * one free value of a mechanism calibrated on one named published point. No value is fitted
 * to a result the validation report compares against. docs/model.md lists every term,
 * its value per preset and its source. */
#ifndef TOPOSCHED_COST_MODEL_H
#define TOPOSCHED_COST_MODEL_H

#include <stdbool.h>

#include "toposched/error.h"
#include "toposched/topology.h"

/* How two CPUs are related, nearest first. Classified in this order: the same CPU; the
 * same core (SMT siblings); the same cluster; the same LLC; then, for CPUs in different
 * packages, REMOTE; else the same node (another LLC of the node) or another node of the
 * same package. */
/* Relations are enum ts_cpu_relation of topology.h (ts_topology_relation(),
 * ts_cpu_relation_name()). */

#define TS_COST_SOURCE_MAX 512

/* One value and where it comes from. The source starts with one of
 *   "measured: "  a published measurement, data set named;
 *   "derived: "   computed from measured figures by the rule given;
 *   "declared: "  a value the Linux kernel declares (not a measurement);
 *   "estimate: "  no figure exists; the reasoning follows;
 *   "calibrated: " the one free value of a mechanism, set once on the one published
 *                 point named (never on a validation figure);
 *   "n/a: "       no CPU pair of the machine has this relation; the value only keeps the
 *                 tiers monotone;
 *   "definition: " zero by definition;
 *   "override: "  set by --cost. */
struct ts_cost_term {
	double value;
	char source[TS_COST_SOURCE_MAX];
};

struct ts_cost_model {
	char machine[64]; /* the preset's name, or "generic" */
	bool generic;	  /* true when no preset's data applies */
	/* One-way cache-line transfer / wake-up signalling latency, ns (c2c.*). */
	struct ts_cost_term c2c[TS_REL_NR];
	/* Moving message payload whose lines are in the sender's caches to the receiver,
	 * ns per KiB (bulk_per_kib.*). */
	struct ts_cost_term bulk_per_kib[TS_REL_NR];
	/* Refetching a task's warm footprint when it runs on a CPU other than the one
	 * where the footprint is warm, by how far that previous CPU is, ns per KiB of
	 * footprint (refill.*). */
	struct ts_cost_term refill[TS_REL_NR];
	/* Examining one CPU during an idle scan, charged to the waker, by the relation of
	 * waker and examined CPU, ns (scan_per_cpu.*). */
	struct ts_cost_term scan_per_cpu[TS_REL_NR];
	/* The SLIT distance at which the .remote tiers apply (remote_distance). */
	struct ts_cost_term remote_distance;
	struct ts_cost_term idle_exit;	      /* leaving a shallow idle state (C1/WFI), ns */
	struct ts_cost_term ctx_switch;	      /* direct cost of one context switch, ns */
	struct ts_cost_term mem_local;	      /* DRAM load latency, local node, ns */
	struct ts_cost_term mem_per_distance; /* extra ns per SLIT unit above 10 */
	/* NUMA balancing's costs, charged to the task they happen in (its system time). */
	struct ts_cost_term numa_hint_fault;	  /* one NUMA hinting fault, ns */
	struct ts_cost_term numa_migrate_per_kib; /* migrating 1 KiB between nodes at
						     remote_distance, ns/KiB */
	struct ts_cost_term numa_stop_latency;	  /* a decided migration's stop work, ns */
	struct ts_cost_term numa_scan_per_pmd;	  /* the scanner marking one 2 MiB PMD, ns */
	/* A wake-up's hand-off: the lines of state a wake-up moves from the waker's CPU to
	 * the wakee's (task, wait queue, pipe/socket, run queue), CPU time of the wakee at
	 * its first run after the wake-up, by the relation of waker and wakee CPU, ns
	 * (handoff.*). */
	struct ts_cost_term handoff[TS_REL_NR];
	/* A remote enqueue on a busy CPU: the waker takes the target's rq lock and enqueues
	 * (the run-queue lines of the hand-off), CPU time of the waker, ns (wake_enqueue.*). */
	struct ts_cost_term wake_enqueue[TS_REL_NR];
	/* The leaving task's part of a switch to another task (dequeue, put_prev, pick),
	 * CPU time of the switching CPU before the next task runs; a CPU going idle does it
	 * off the critical path of any wake-up, ns (switch_out). */
	struct ts_cost_term switch_out;
	/* Load balancing, CPU time of the balancing CPU: examining one CPU of a domain in a
	 * balance pass (balance_per_cpu.*), and moving one task to it (balance_per_task.*),
	 * by the relation of the balancing and the examined (source) CPU, ns. */
	struct ts_cost_term balance_per_cpu[TS_REL_NR];
	struct ts_cost_term balance_per_task[TS_REL_NR];
	/* The private cache one CPU keeps a task's working set in between its runs, KiB. */
	struct ts_cost_term cache_capacity_kib;
	/* The cache working set of one run of a task (brought in by its run, refetched in
	 * the part that later runs of other tasks on the CPU evicted), KiB. */
	struct ts_cost_term cache_run_kib;
	/* A benchmark's start-up, charged to the task doing it (docs/workloads.md, "Start"). */
	struct ts_cost_term fork;   /* fork() in the parent, up to the child's wake-up, ns */
	struct ts_cost_term accept; /* accept() of one loopback TCP connection, ns */
	/* Background kernel activity, CPU time of every CPU besides the workload's tasks
	 * (docs/model.md, "Background activity"): the tick's interrupt on a busy CPU and on
	 * an idle CPU that keeps its tick (ns), and the softirqs run at an interrupt's exit
	 * (ns each, and how many per second per CPU). */
	struct ts_cost_term noise_tick_busy;
	struct ts_cost_term noise_tick_idle;
	struct ts_cost_term noise_softirq;
	struct ts_cost_term noise_softirq_per_s;
	/* The per-CPU kworker's vmstat_update(): its CPU work (ns) and interval (ns). */
	struct ts_cost_term noise_vmstat;
	struct ts_cost_term noise_vmstat_interval;
	/* CPU speed (src/sim/cpu_speed.c): a task's CPU work runs at
	 * freq(active cores of its package) / freq.max_mhz, times smt.pair_yield / 2 while its
	 * SMT sibling is busy too. freq(n) = max(freq.all_core_mhz, freq.max_mhz -
	 * (n - 1) x freq.step_mhz). */
	struct ts_cost_term smt_pair_yield;    /* two busy siblings vs one thread alone, x */
	struct ts_cost_term freq_max_mhz;      /* the clock with one active core, MHz */
	struct ts_cost_term freq_all_core_mhz; /* with every core of the package active */
	struct ts_cost_term freq_step_mhz;     /* the drop per extra active core, MHz */
};

/* The model for t. When preset_name names a built-in preset (ts_preset_find()), that
 * preset's values; t may then be NULL, and when given it must have the preset's shape
 * (CPU, node and package counts). Otherwise (NULL, "host", an XML path, a synthetic
 * string ...) the generic model, which needs t (its remote_distance is t's smallest
 * distance between nodes of different packages). */
int ts_cost_model_for(const struct ts_topology *t, const char *preset_name,
		      struct ts_cost_model *out, struct ts_error *err);

/* Applies one "NAME=VALUE" override (the --cost syntax): NAME is a term name as listed by
 * ts_cost_model_foreach(), VALUE a finite non-negative decimal number in the term's
 * unit; remote_distance must be more than 10 and at most 254. Errors name the input:
 * missing '=', empty name, unknown name, missing value, not a number, trailing
 * characters, not finite, negative, out of range. On error *m is unchanged. */
int ts_cost_model_set(struct ts_cost_model *m, const char *name_equals_value, struct ts_error *err);

/* Static description of one term. */
struct ts_cost_term_info {
	const char *name;    /* e.g. "c2c.llc" */
	const char *unit;    /* "ns", "ns/KiB", "ns/SLIT", "SLIT" */
	const char *meaning; /* one line */
};
int ts_cost_term_count(void);
const struct ts_cost_term_info *ts_cost_term_info(int i);
/* The term called name in m, or NULL. */
const struct ts_cost_term *ts_cost_model_term(const struct ts_cost_model *m, const char *name);
struct ts_cost_term *ts_cost_model_term_mut(struct ts_cost_model *m, const char *name);
/* Calls fn for every term in the documented order; stops early and returns fn's value
 * when it returns non-zero. */
int ts_cost_model_foreach(const struct ts_cost_model *m,
			  int (*fn)(const struct ts_cost_term_info *info,
				    const struct ts_cost_term *term, void *arg),
			  void *arg);

/* Tier getters. distance is the SLIT distance of the two CPUs' nodes; it matters only
 * for TS_REL_REMOTE, where the value is
 *     max(tier[PACKAGE], tier[REMOTE] * distance / remote_distance)
 * (distance <= 0: tier[REMOTE] as is). */
double ts_cost_c2c(const struct ts_cost_model *m, enum ts_cpu_relation rel, int distance);
double ts_cost_bulk_per_kib(const struct ts_cost_model *m, enum ts_cpu_relation rel, int distance);
double ts_cost_refill_per_kib(const struct ts_cost_model *m, enum ts_cpu_relation rel,
			      int distance);
double ts_cost_scan_per_cpu(const struct ts_cost_model *m, enum ts_cpu_relation rel, int distance);
double ts_cost_handoff(const struct ts_cost_model *m, enum ts_cpu_relation rel, int distance);
double ts_cost_wake_enqueue(const struct ts_cost_model *m, enum ts_cpu_relation rel, int distance);
double ts_cost_balance_per_cpu(const struct ts_cost_model *m, enum ts_cpu_relation rel,
			       int distance);
double ts_cost_balance_per_task(const struct ts_cost_model *m, enum ts_cpu_relation rel,
				int distance);
/* The part of a task's working set (cache.run_kib) still in its CPU's cache after
 * intervening_kib of other data entered it: random replacement in a cache of
 * cache.capacity_kib keeps exp(-intervening / capacity) of it; returns the KiB to refetch,
 * run_kib x (1 - exp(-intervening / capacity)). */
double ts_cost_evicted_kib(const struct ts_cost_model *m, double intervening_kib);
/* mem_local + mem_per_distance * (distance - 10). */
double ts_cost_mem(const struct ts_cost_model *m, int distance);
/* Migrating 1 KiB between nodes at distance d: numa.migrate_per_kib scaled by
 * (mem(d) + mem.local) / (mem(remote_distance) + mem.local) — a remote read and a local
 * write per line. */
double ts_cost_migrate_per_kib(const struct ts_cost_model *m, int distance);

/* The same for two CPUs of t (relation and distance from t); -1 for an invalid CPU. */
double ts_cost_between(const struct ts_cost_model *m, const struct ts_topology *t, int cpu_a,
		       int cpu_b);
double ts_cost_bulk_between(const struct ts_cost_model *m, const struct ts_topology *t, int cpu_a,
			    int cpu_b);
double ts_cost_refill_between(const struct ts_cost_model *m, const struct ts_topology *t,
			      int prev_cpu, int cpu);
double ts_cost_scan_between(const struct ts_cost_model *m, const struct ts_topology *t,
			    int waker_cpu, int examined_cpu);
double ts_cost_handoff_between(const struct ts_cost_model *m, const struct ts_topology *t,
			       int waker_cpu, int wakee_cpu);
double ts_cost_wake_enqueue_between(const struct ts_cost_model *m, const struct ts_topology *t,
				    int waker_cpu, int target_cpu);
double ts_cost_balance_cpu_between(const struct ts_cost_model *m, const struct ts_topology *t,
				   int balancing_cpu, int examined_cpu);
double ts_cost_balance_task_between(const struct ts_cost_model *m, const struct ts_topology *t,
				    int balancing_cpu, int src_cpu);
/* Latency of a DRAM load from cpu to memory on node; -1 for an invalid CPU or node. */
double ts_cost_mem_between(const struct ts_cost_model *m, const struct ts_topology *t, int cpu,
			   int node);

#endif
