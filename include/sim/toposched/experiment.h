/* Experiments: a sweep of simulator runs over configurations (feature sets; the first is
 * the baseline) x loads x iterations, run in parallel, summarised the way mmtests
 * compares kernels: per (configuration, load) the samples, their Hmean or Amean, stddev,
 * the % change against the baseline at the same load and a significance mark, plus the
 * scheduler statistics summed over the iterations. Reports (table, CSV, JSON, a gnuplot
 * script) are written from the summary alone. docs/sim-json.md documents the JSON and
 * states the statistics rules. */
#ifndef TOPOSCHED_EXPERIMENT_H
#define TOPOSCHED_EXPERIMENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/error.h"
#include "toposched/features.h"
#include "toposched/sim.h"
#include "toposched/stats.h"

#define TS_EXP_NAME_MAX	      64 /* configuration names, NUL included */
#define TS_EXP_MAX_CONFIGS    64
#define TS_EXP_MAX_LOADS      4096
#define TS_EXP_MAX_ITERATIONS 10000
#define TS_EXP_MAX_RUNS	      1000000 /* configs x loads x iterations */
#define TS_EXP_MAX_JOBS	      1024

/* One run of the simulator; ts_sim_run by default, a fake in tests. Must be safe to call
 * from several threads at once on different configs/results (ts_sim_run is: every run
 * owns its own ts_sched and event queue). */
typedef int (*ts_sim_run_fn)(const struct ts_sim_config *cfg, struct ts_sim_result *out,
			     struct ts_error *err);

struct ts_exp_config {
	char name[TS_EXP_NAME_MAX];
	char features_text[TS_FEATURES_STR_MAX]; /* as the user wrote it (reports only) */
	struct ts_features features;		 /* what the runs use */
	/* ---- task groups ---- */
	enum ts_tg_layout tg_layout; /* of the groups' load_avg in this configuration's runs */
	/* ---- the kernel generation (--kernel, kernel= token); zeroed = the newest ---- */
	struct ts_kernel_profile kernel;
	/* 0: the runs draw the experiment's common random numbers (the same stream for a
	 * (load, iteration) in every configuration); k > 0: an independent stream, for
	 * repeating a configuration under other seeds (toposched validate's seed k + 1).
	 * `sim` never sets it, so shard parts do not carry it. */
	unsigned seed_stream;
};

/* What the runs of one point add up to. Counters are summed over the iterations;
 * cpu_util and the wake-up latency percentiles are the mean over the iterations (a
 * percentile of -1, "no measured class", stays -1). sis_metrics are computed by
 * ts_sis_metrics() from the summed counters (a ratio of sums, as mmtests computes them
 * over a whole benchmark); an undefined metric is -1. */
struct ts_exp_stats {
	struct ts_sis_counts sis;
	struct ts_sis_metrics sis_metrics;
	struct ts_sim_lb lb;
	uint64_t reasons[TS_PLACE_NR];
	uint64_t wakeups_by_relation[TS_REL_NR];
	uint64_t wakeups, migrations;
	uint64_t events, sim_ns, busy_ns;
	uint64_t start_ns, settle_ns; /* ts_sim_result's: the start-up, the warm-up's wait */
	uint64_t settle_capped;	      /* runs whose wait ended at its cap */
	uint64_t marks, bytes;
	uint64_t messages_sent, messages_received;
	uint64_t scan_hist[TS_SCAN_HIST_BUCKETS];
	double cpu_util;
	double wakeup_lat_us[4];
	uint64_t wakeup_lat_samples_min; /* the fewest measured wake-ups of any iteration */
	double wall_s;		 /* host time of the runs, summed (never in deterministic output) */
	bool all_finished;	 /* every run's `finished` */
	struct ts_sim_numa numa; /* every field summed (tasks_* too: their ratio is the share) */
	double work_ns[TS_WORK_NR]; /* the runs' work by term, summed */
	/* ---- task groups: the runs' group results summed (ts_sim_tg_result_add) ---- */
	struct ts_sim_tg_result tg;
};

/* One (configuration, load). mean is hmean when the metric is higher-is-better, else
 * amean; pct_change and significant compare mean with the baseline's mean at the same
 * load (see ts_exp_pct_change(), ts_exp_significant()). */
struct ts_exp_point {
	int config;
	int load;	       /* the load value (clients, pairs, groups) */
	int n;		       /* samples */
	const double *samples; /* [n], the metric of iteration 0..n-1 */
	double hmean, amean, stddev, mean;
	double pct_change; /* NaN when undefined (baseline mean 0 or not finite) */
	bool significant;
	struct ts_exp_stats stats;
};

struct ts_experiment {
	/* ---- inputs (the caller's; never freed here) ---- */
	const char *machine; /* name for reports (NULL: base.topo->name) */
	/* the --pin nodes as written, reports only; NULL with base.pin set: pinned to a CPU
	 * list (--cpus), which the reports print from base.pin */
	const char *pin_text;
	/* Everything a run needs except features, load and seed, which each run sets:
	 * topo, costs, workload, iterations (per-task, e.g. hackbench loops), pin,
	 * duration_ns, warmup_ns, hz, max_events, groups (the tg_layout of each run is its
	 * configuration's). Shared read-only by every worker. */
	struct ts_sim_config base;
	uint64_t seed;
	const struct ts_exp_config *configs;
	int nr_configs;
	const int *loads; /* distinct values, in report order */
	int nr_loads;
	int iterations;	   /* samples per point, >= 1 */
	int jobs;	   /* worker threads; <= 0: ts_experiment_default_jobs() */
	ts_sim_run_fn run; /* NULL: ts_sim_run */
	/* NULL, or where the run of the first configuration, first load and first iteration
	 * writes its counters in /proc/schedstat format (ts_sim_config.schedstat) */
	FILE *schedstat;
	/* NULL, or where the run (trace_config, trace_load: an index into loads,
	 * trace_iteration: 0-based) writes its scheduling events in ftrace text format
	 * (ts_sim_config.trace, bounded by trace_max_bytes) */
	FILE *trace;
	int trace_config, trace_load, trace_iteration;
	uint64_t trace_max_bytes;
	FILE *progress; /* progress line for long sweeps; NULL: silent */
	/* Sharding (experiment_part.h): with nr_shards > 0, only the runs of shard `shard`
	 * (0-based, < nr_shards) run: those at the positions p of
	 * ts_experiment_dispatch_order() with ts_experiment_shard_of(p, nr_shards) == shard.
	 * Their results are kept in `results` and no points are
	 * computed (schedstat and trace must be NULL). 0: the whole sweep. */
	int nr_shards, shard;

	/* ---- results of ts_experiment_run() (freed by ts_experiment_free()) ---- */
	struct ts_exp_point *points; /* [nr_configs * nr_loads], config-major */
	double *samples;	     /* storage behind points[].samples */
	int jobs_used;
	/* sharded: [ts_experiment_nr_runs()] by run index, the shard's runs filled */
	struct ts_sim_result *results;
};

/* "200ms", "1s", "1500us", "7ns": the largest unit that divides ns exactly (the form
 * --duration and --warmup take). */
void ts_report_duration(uint64_t ns, char *buf, size_t size);

/* The seed of the runs (any configuration, load value, iteration):
 *     ts_rng_derive(seed, load * 2^24 + iteration)
 * Common random numbers: every configuration runs a (load, iteration) with the same seed,
 * so that two identical configurations give identical samples and a difference between
 * configurations is not the seeds'. It depends on the load's value (not its position in
 * the list) so that adding a load to a sweep leaves the other points' samples unchanged. */
uint64_t ts_experiment_seed(uint64_t seed, int load, int iteration);
/* The seed of a configuration's run: ts_experiment_seed() of the common stream (stream
 * 0), or of the base seed derived for an independent stream k > 0:
 *     ts_experiment_seed(ts_rng_derive(seed, 2^63 + k), load, iteration) */
uint64_t ts_experiment_stream_seed(uint64_t seed, unsigned stream, int load, int iteration);

/* ---- sizing a sweep ---- */

/* Peak memory of one run, in bytes, on a machine of nr_cpus CPUs with nr_tasks tasks:
 * the scheduler's per-CPU masks grow as nr_cpus^2 and dominate on large machines. */
uint64_t ts_experiment_run_bytes(int nr_cpus, int64_t nr_tasks);
/* The default number of workers: the online CPUs, but no more runs at once than
 * mem_available bytes hold at per_run bytes each (mem_available 0: not known, CPUs only);
 * at least 1, at most TS_EXP_MAX_JOBS. */
int ts_experiment_default_jobs(long online_cpus, uint64_t mem_available, uint64_t per_run);
/* The most tasks one run of e has (its largest load, on the CPUs the pin allows). */
int64_t ts_experiment_max_tasks(const struct ts_experiment *e);
/* MemAvailable of a file in /proc/meminfo's format, in bytes; 0 when it has none. */
uint64_t ts_meminfo_available(const char *path);

/* A sweep estimated to take longer than this (wall time) is announced before it starts. */
#define TS_EXP_LONG_SWEEP_S 600.0
/* CPU seconds the whole sweep of e is estimated to take (0 for workloads that run to
 * completion, whose length the duration does not set). */
double ts_experiment_cpu_seconds(const struct ts_experiment *e);
/* When e's sweep on jobs workers is estimated to take longer than TS_EXP_LONG_SWEEP_S,
 * writes a one-line note saying so into buf (no newline) and returns true; else false
 * and buf "". */
bool ts_experiment_long_note(const struct ts_experiment *e, int jobs, char *buf, size_t size);

/* ---- the runs of a sweep ---- */

/* Runs of the sweep: nr_configs x nr_loads x iterations. A run's index is
 * (config * nr_loads + load_index) * iterations + iteration. */
int ts_experiment_nr_runs(const struct ts_experiment *e);
/* The order in which the runs are started, as run indices (malloc'd, [nr_runs]; NULL when
 * out of memory): the loads from the largest value down, within a load the
 * configurations in order, within a configuration the iterations, so that the longest
 * runs start first. */
int *ts_experiment_dispatch_order(const struct ts_experiment *e);
/* The shard (0-based) of the run at `position` of that order, in a sweep cut into
 * nr_shards: the runs are dealt out in rounds of nr_shards, a snake draft (round r
 * gives position r N + i to shard i when r is even, to N - 1 - i when odd), so that every
 * shard gets its share of the heavy runs and no shard always gets the heaviest of each
 * round; shard sizes differ by one run at most. */
static inline int ts_experiment_shard_of(int position, int nr_shards)
{
	int i = position % nr_shards;
	return (position / nr_shards) % 2 ? nr_shards - 1 - i : i;
}
/* Computes points from every run's result (results[ts_experiment_nr_runs(e)], by run
 * index), as ts_experiment_run() does after its runs: the merge of shards. */
int ts_experiment_summarise(struct ts_experiment *e, const struct ts_sim_result *results,
			    struct ts_error *err);

/* Checks the inputs, runs every (config x load x iteration) on `jobs` threads and fills
 * points. The results depend only on the inputs, never on jobs or execution order. A
 * failing run stops the sweep: its error (prefixed with configuration, load and
 * iteration) is returned and no points are left. */
int ts_experiment_run(struct ts_experiment *e, struct ts_error *err);
void ts_experiment_free(struct ts_experiment *e);

static inline const struct ts_exp_point *ts_experiment_point(const struct ts_experiment *e,
							     int config, int load_index)
{
	return &e->points[config * e->nr_loads + load_index];
}

/* Throughput and transaction rates are higher-is-better (summarised by Hmean); times and
 * latencies lower-is-better (Amean). */
bool ts_metric_higher_is_better(enum ts_metric_kind kind);

/* ---- statistics (pure functions; n >= 1) ---- */

/* n / sum(1/x). 0 when some sample is 0 (the limit); NaN when some sample is negative or
 * not finite. */
double ts_exp_hmean(const double *x, int n);
double ts_exp_amean(const double *x, int n);
/* Sample standard deviation, sqrt(sum((x - amean)^2) / (n - 1)); 0 when n == 1. */
double ts_exp_stddev(const double *x, int n);
/* 100 * (value - base) / base; NaN when base is 0 or either is not finite. */
double ts_exp_pct_change(double value, double base);
/* A nearest-rank percentile q of n samples is decided by the n·(1 − q) samples beyond it;
 * with fewer than this many it is one or two outliers, not a tail (schbench's p99 of a
 * short run). */
#define TS_EXP_PERCENTILE_MIN_TAIL 10
/* Does the wake-up latency percentile q of point p, of a workload that measures wake-up
 * latency, rest on too few samples in one of its iterations (fewer than
 * TS_EXP_PERCENTILE_MIN_TAIL beyond it; none at all included)? */
bool ts_exp_percentile_thin(const struct ts_exp_point *p, double q);
/* Welch's two-sample t-test (unequal variances), two-sided: the p-value of the difference
 * of two arithmetic means from their sample standard deviations and sizes, with the
 * Welch-Satterthwaite degrees of freedom and GSL's Student t distribution. Both stddevs
 * 0: 0 when the means differ, 1 when equal. NAN when a side has fewer than
 * TS_EXP_TTEST_MIN_SAMPLES samples or a value is not finite. */
#define TS_EXP_TTEST_MIN_SAMPLES 2
#define TS_EXP_CONFIDENCE	 0.95 /* of the '*' marker */
double ts_exp_welch_p(double amean, double stddev, int n, double base_amean, double base_stddev,
		      int base_n);
/* The significance rule: Welch's t-test finds the arithmetic means different at
 * TS_EXP_CONFIDENCE, i.e. ts_exp_welch_p() < 1 - TS_EXP_CONFIDENCE. */
bool ts_exp_significant(double amean, double stddev, int n, double base_amean, double base_stddev,
			int base_n);

/* ---- reports (src/sim/report*.c); each returns 0 or -EIO when writing failed ---- */

/* mmtests-style comparison table, then per configuration the statistics blocks. */
int ts_exp_write_table(const struct ts_experiment *e, FILE *out);
/* One header line, then one row per (configuration, load). */
int ts_exp_write_csv(const struct ts_experiment *e, FILE *out);
/* The documented JSON (docs/sim-json.md); 0, -ENOMEM or -EIO. */
int ts_exp_write_json(const struct ts_experiment *e, FILE *out);

enum ts_plot_format { TS_PLOT_PNG, TS_PLOT_SVG };
/* A gnuplot script that draws the metric against load, one line (with stddev error bars)
 * per configuration, and below it (two or more configurations) each one's % change against
 * the baseline, into output_path (NULL: gnuplot's standard output). The data is inline;
 * the script needs gnuplot 5. Its first line starts with TS_GNUPLOT_SCRIPT_MARK, by which
 * the CLI knows a script it may replace. */
#define TS_GNUPLOT_SCRIPT_MARK "# written by toposched sim"
int ts_exp_write_gnuplot(const struct ts_experiment *e, enum ts_plot_format format,
			 const char *output_path, FILE *out);

#endif
