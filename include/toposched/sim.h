/* The simulator: a deterministic discrete-event model of a machine (topology + cost
 * model) on which a workload runs under the real scheduling core (struct ts_sched, with
 * the simulator as its host). One run = one (machine, features, workload, load, seed);
 * experiments sweep runs and compare configurations (src/sim/experiment.c).
 *
 * A workload is data: task classes, each a small program of phases (run, send, receive,
 * sleep, mark), instantiated `load` times (pairs, groups, clients). Adding a workload is
 * writing a description, not engine code. */
#ifndef TOPOSCHED_SIM_H
#define TOPOSCHED_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "toposched/cost_model.h"
#include "toposched/cpumask.h"
#include "toposched/error.h"
#include "toposched/features.h"
#include "toposched/group.h"
#include "toposched/sim_groups.h"
#include "toposched/stats.h"
#include "toposched/topology.h"

/* ---- workload descriptions ---- */

enum ts_phase_kind {
	TS_PH_RUN,   /* compute for `ns` (distribution `dist`) */
	TS_PH_SEND,  /* write `bytes` to a channel; wakes a blocked receiver (WF_SYNC if sync) */
	TS_PH_RECV,  /* read one message from a channel; blocks while it is empty */
	TS_PH_SLEEP, /* block for `ns` (a timer wakes the task) */
	TS_PH_MARK,  /* count one unit of the workload's metric (a transaction, a request) */
};

enum ts_dist {
	TS_DIST_FIXED,       /* exactly ns */
	TS_DIST_EXPONENTIAL, /* mean ns */
	TS_DIST_UNIFORM,     /* uniform in [ns/2, 3ns/2] */
};

/* Which channel a SEND/RECV uses, within the task's instance (group/pair):
 * chan + (per_instance ? instance index within the class : 0)
 *      + (iter_mod ? iteration % iter_mod : 0). */
struct ts_chan_ref {
	int chan;
	bool per_instance;
	int iter_mod;
};

struct ts_phase {
	enum ts_phase_kind kind;
	uint64_t ns;            /* RUN, SLEEP */
	enum ts_dist dist;
	struct ts_chan_ref ch;  /* SEND, RECV */
	uint32_t bytes;         /* SEND: payload; drawn from the workload's size mix when 0 */
	bool sync;              /* SEND: the sender blocks next (WF_SYNC wake-up) */
	bool count_bytes;       /* SEND: payload counts toward a throughput metric */
};

struct ts_task_class {
	const char *name;
	int count;               /* tasks of this class per instance */
	int nice;
	uint32_t footprint_kib;  /* cache footprint, refetched when the task changes CPU */
	const struct ts_phase *phases;
	int nr_phases;
	int iterations;          /* times the program runs; 0 = until the run's duration ends */
	bool measure_wakeup;     /* record wake-up-to-run latency of this class */
};

enum ts_metric_kind {
	TS_METRIC_THROUGHPUT_MBS,  /* counted SEND bytes / duration, MB/s (higher is better) */
	TS_METRIC_TPS_PER_INSTANCE,/* MARKs / duration / load (higher is better) */
	TS_METRIC_TIME_S,          /* time until every task finished its iterations (lower) */
	TS_METRIC_WAKEUP_P99_US,   /* p99 wake-up latency of measured classes, us (lower) */
	TS_METRIC_US_PER_MARK,     /* duration / MARKs, us (lower: e.g. pipe round trip) */
};

/* A message-size mix (tbench's op mix): sizes with relative weights. */
struct ts_size_mix {
	const uint32_t *bytes;
	const uint32_t *weight;
	int n;
};

struct ts_workload {
	const char *name;
	const char *description;           /* one line, with the benchmark it models */
	const struct ts_task_class *classes;
	int nr_classes;
	int channels_per_instance;
	uint32_t channel_capacity;         /* bytes a channel buffers before SEND blocks */
	struct ts_size_mix request_mix, reply_mix; /* for SEND phases with bytes == 0 */
	enum ts_metric_kind metric;
	const char *metric_name;           /* "throughput", "tps", "time", "p99_wakeup", ... */
	const char *unit;                  /* "MB/s", "trans/s", "s", "us" */
	const char *load_name;             /* what `load` counts: "clients", "pairs", "groups" */
	int default_iterations;            /* per task, for TS_METRIC_TIME_S workloads */
};

const struct ts_workload *ts_workload_list(int *count);
const struct ts_workload *ts_workload_find(const char *name);

/* ---- one run ---- */

struct ts_sim_config {
	const struct ts_topology *topo;
	const struct ts_cost_model *costs;
	struct ts_features features;
	const struct ts_workload *workload;
	int load;                      /* instances (clients, pairs, groups) */
	int iterations;                /* overrides the classes' iterations when > 0 */
	const struct ts_cpumask *pin;  /* every task allowed only here (NULL = all CPUs) */
	uint64_t duration_ns;          /* measured time (after warm-up) for open-ended loads */
	uint64_t warmup_ns;            /* not measured */
	uint64_t seed;
	unsigned int hz;               /* tick (0 = 1000) */
	uint64_t max_events;           /* safety bound (0 = no bound) */
	/* ---- task groups (sim_groups.h) ---- */
	const struct ts_groups_spec *groups; /* NULL = every task in the root group */
	enum ts_tg_layout tg_layout;   /* of the groups' load_avg (0 = aligned, mainline) */
};

#define TS_SIM_MAX_TASKS 65536 /* a sane bound on load x tasks per instance */

struct ts_sim_result {
	double metric;                 /* the workload's metric for this run */
	uint64_t marks, bytes;         /* raw counts behind the metric (measured window) */
	uint64_t sim_ns;               /* virtual time simulated (incl. warm-up) */
	uint64_t events;               /* events processed */
	double wall_s;                 /* host time the run took (reports only) */
	double cpu_util;               /* busy CPU time / (CPUs x measured time), 0..1 */
	double wakeup_lat_us[4];       /* p50, p90, p99, p99.9 of measured classes (-1 if none) */
	struct ts_sis_counts sis;      /* summed over CPUs, measured window */
	uint64_t reasons[TS_PLACE_NR];
	uint64_t wakeups_by_relation[TS_REL_NR];
	uint64_t wakeups;
	uint64_t migrations;
	uint64_t scan_hist[TS_SCAN_HIST_BUCKETS];
	uint64_t messages_sent, messages_received; /* conservation */
	uint64_t busy_ns;              /* CPU time accounted to tasks */
	bool finished;                 /* TIME_S: every task completed */
	/* Added by the engine for its conservation checks. messages_* count the whole run:
	 * messages_sent == messages_received + messages_queued. */
	uint64_t messages_queued;      /* still in channels at the end */
	uint64_t exec_ns;              /* CPU time the core accounted (sum_exec_runtime) in
	                                  the window; equals busy_ns */
	/* ---- task groups: zero (enabled = false) without cfg->groups ---- */
	struct ts_sim_tg_result tg;
};

int ts_sim_run(const struct ts_sim_config *cfg, struct ts_sim_result *out, struct ts_error *err);

#endif
