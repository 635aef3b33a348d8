/* A cache-line ownership model for the simulator (MESI-like, per 64-byte line address):
 * each line is either modified by one CPU or clean and shared by a set of CPUs.
 *
 *  - read by a CPU holding the line (its owner, or a sharer): free;
 *  - read of a line another CPU holds modified: one transfer from that CPU; the line
 *    becomes clean, shared by the two;
 *  - read of a clean line the reader does not hold: one transfer from the nearest sharer
 *    (the copy a snoop finds first; a line nobody holds yet is free: see below); the
 *    reader joins the sharers;
 *  - write by the owner, or by the only sharer: free (E/M, no traffic);
 *  - write of a line another CPU holds modified: one transfer from it (RFO);
 *  - write of a clean line others share: the invalidations go out in parallel and the
 *    write completes when the farthest sharer answers: one transfer at its relation;
 *    either way the writer then holds the line modified, alone.
 * A transfer between CPUs a and b costs ts_cost_between(costs, topo, a, b), the cost
 * model's c2c tier for their relation (same core / cluster / LLC / node / package, other
 * package scaled by the SLIT distance). Ownership moves to one CPU at a time: a miss
 * requested while an earlier write or read-from-the-owner of the line is still in flight
 * waits until it ends, and the ownership changes queue behind each other (N CPUs writing
 * one line at one moment: the last waits N - 1 transfers); copies of a clean line are
 * handed out in parallel (a read of a shared line waits only for ownership changes still
 * in flight, and delays no one). The wait is bounded: a miss completes at most
 * SIM_LINE_MAX_LATENCY_NS after it is requested (wait plus transfer; a transfer alone may
 * take longer on a far machine), and the line's queue never reaches further ahead than
 * that, so a burst of requests saturates at the published contended latency instead of
 * growing without limit (a CPU stalled on a line issues no further request; the engine's
 * accesses, instantaneous in virtual time, would otherwise queue up every CPU's future
 * requests behind each other). A line nobody has
 * touched yet is free to read or write (its first fetch from memory is a cold miss the
 * model leaves out), and lines are never evicted (no capacity misses): the model counts
 * coherence traffic only.
 *
 * Deterministic: a hash table maps addresses to line states, but nothing is iterated
 * from it, so results never depend on where lines lie; ties between equally near sharers
 * cannot change a cost (equal relation, and for other packages equal distance). */
#ifndef TOPOSCHED_SIM_LINE_MODEL_H
#define TOPOSCHED_SIM_LINE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "toposched/cost_model.h"
#include "toposched/error.h"
#include "toposched/topology.h"

/* The bound on one miss's latency: 5,608 cycles, the highest mean load latency of the
 * HITM loads on task_group's load_avg line that perf c2c showed on a 2-socket Xeon
 * Platinum 8380 (v6.4-rc5, UnixBench context1 x 160; Deng Pan, "[PATCH v2] sched/task_group:
 * Re-layout structure to reduce false sharing", June 2023), at the 8380's 2.3 GHz base
 * clock: 5608 / 2.3 = 2,438 ns. CALIBRATED on that one point (docs/model.md). */
#define SIM_LINE_MAX_LATENCY_NS (5608.0 / 2.3)

struct sim_line_stats {
	uint64_t reads, writes;
	uint64_t misses[TS_REL_NR];  /* transfers, by the relation of the supplying CPU (for an
					invalidating write: of the farthest sharer) */
	uint64_t remote_node_writes; /* writes to a line last written from another node */
	double stall_ns;	     /* sum of the stalls: transfers and waits */
	double wait_ns;		     /* the part spent waiting for a busy line */
	uint64_t hitm_loads;	     /* accesses served by a CPU holding the line modified */
	double hitm_ns;		     /* their latencies (wait plus transfer) */
};

struct sim_line; /* one line's state (line_model.c) */

struct sim_line_model {
	const struct ts_topology *topo;
	const struct ts_cost_model *costs;
	int nr_cpus, words;
	/* the CPUs of each core, cluster, LLC, node and package, `words` words each */
	uint64_t *level_mask[5];
	double c2c[TS_REL_NR]; /* the tiers below REMOTE */
	struct sim_line *slots;
	uint64_t *sharers; /* [cap * words], the sharer set of slot i at i * words */
	size_t cap, used;
	struct sim_line_stats st;
};

int sim_line_model_init(struct sim_line_model *lm, const struct ts_topology *t,
			const struct ts_cost_model *costs, struct ts_error *err);
void sim_line_model_free(struct sim_line_model *lm);

/* One access by cpu to the line at `line` (any address inside it) at time now (ns).
 * Returns the stall in ns (0 for a hit; else the wait for a busy line plus the transfer)
 * and, when rel is not NULL, the relation of the transfer (-1: none); *hitm (when not
 * NULL) tells whether it found the line modified in another CPU's cache (perf c2c's HITM:
 * a read, or a write, whose load half a locked add is sampled as).
 * Never fails: when
 * the table cannot grow (out of memory) the access is counted and treated as a hit, and
 * *oom is set. */
double sim_line_access(struct sim_line_model *lm, int cpu, uintptr_t line, bool write, double now,
		       int *rel, bool *hitm, bool *oom);

/* The state of a line, for tests: its modified owner (-1: clean or unknown) and whether
 * cpu holds a copy. */
int sim_line_owner(const struct sim_line_model *lm, uintptr_t line);
bool sim_line_held(const struct sim_line_model *lm, uintptr_t line, int cpu);

#endif
