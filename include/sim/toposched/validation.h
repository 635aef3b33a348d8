/* Validation: the simulator against every published result the project knows. Each row
 * (src/sim/validation_rows.c, data) names an experiment (machine, workload, pin, loads,
 * configurations), the figure extracted from it (a % change between configurations, a
 * value, a SIS efficiency ...), the figure as published with its public source, its role
 * (a calibration point the model may be fitted on, or a validation point it never is) and
 * the band that decides PASS or MISS. A miss is a model defect to be reported, never a
 * reason to refit: the rows carry the published figures as they are.
 *
 * Each experiment runs once for all its selected rows, on the sweep runner
 * (experiment.h), every configuration once per seed: configuration c of seed k is the
 * sweep's configuration k * nr_configs + c, so each seed's run is independent of the
 * others and of the rows selected (a run's seed depends on its configuration index and
 * its load's value only). A row's figure is computed per seed and reported as mean and
 * sample stddev over the seeds. Output is byte-identical for the same seed whatever jobs. */
#ifndef TOPOSCHED_VALIDATION_H
#define TOPOSCHED_VALIDATION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "toposched/error.h"
#include "toposched/experiment.h"

#define TS_VAL_MAX_CONFIGS 4
#define TS_VAL_MAX_LOADS   16
#define TS_VAL_MAX_SEEDS   16

enum ts_val_role { TS_VAL_CALIBRATION, TS_VAL_VALIDATION };

/* How a row's figure is computed from one seed's runs (a = config a, b = config b). */
enum ts_val_figure {
	TS_VAL_VALUE,		/* a's metric at load, times scale */
	TS_VAL_CHANGE,		/* mmtests' % change of b vs a at load, positive = better:
				   100 (b - a) / a when higher is better, 100 (a - b) / a else */
	TS_VAL_RATE_CHANGE,	/* % change of the rate (1 / metric) of b vs a at load:
				   100 (a / b - 1); a time-per-operation metric whose published
				   figure is a score (UnixBench) */
	TS_VAL_LOAD_CHANGE,	/* 100 (a(load) - a(load2)) / a(load2) */
	TS_VAL_SIS_EFF,		/* a's SIS Search Efficiency, counters summed over every load of
				   the experiment (as mmtests sums a whole run) */
	TS_VAL_SIS_DOMAIN_EFF,	/* a's SIS Domain Search Efficiency, likewise */
	TS_VAL_SIS_EFF_RATIO,	/* b's SIS Search Efficiency / a's, likewise */
	TS_VAL_TG_REMOTE_SHARE, /* % of a's HITMs on the task-group lines at load that came
				   from another node (perf c2c's remote HITMs) */
	TS_VAL_MIGRATION_RATE,	/* a's task migrations at load per second of busy CPU time
				   (the window's set_task_cpu() calls / its CPU time) */
	TS_VAL_IDLE,		/* a's idle time at load, % of the run's CPUs' time: 100 (1 -
				   CPU utilisation), top's "id" */
};

enum ts_val_band_kind {
	TS_VAL_BAND_NONE, /* no band given: shown, not judged */
	TS_VAL_BAND_RANGE,
	TS_VAL_BAND_AT_LEAST,
	TS_VAL_BAND_AT_MOST,
	TS_VAL_BAND_ABOVE, /* strictly above low ("positive") */
};

struct ts_val_band {
	enum ts_val_band_kind kind;
	double low, high; /* RANGE: both; AT_LEAST, ABOVE: low; AT_MOST: high */
};

struct ts_val_config {
	const char *name;
	const char *features; /* as for --compare: feature names and tg_layout=L */
};

struct ts_val_source {
	const char *key;  /* "S1" */
	const char *text; /* author, subject, list, date, Message-ID or URL where found */
};

struct ts_val_experiment {
	const char *id;
	const char *machine;	 /* a preset */
	const char *workload;	 /* a built-in workload */
	const char *pin;	 /* a node list ("0"), NULL for none */
	const char *groups_spec; /* NULL: every task in the root group */
	struct ts_val_config configs[TS_VAL_MAX_CONFIGS];
	int nr_configs;
	int loads[TS_VAL_MAX_LOADS]; /* every load of the published run, ascending */
	int nr_loads;
	/* duration 0: the time-to-finish cap; warm-up 0: the workload's default_warmup_ns */
	uint64_t duration_ns, warmup_ns;
	int loops;		   /* per-task iterations (ts_sim_config.iterations), 0 */
	int seeds;		   /* runs per configuration and load, >= 3 */
	const char *published_run; /* how the published run was made */
};

struct ts_val_row {
	const char *id;
	enum ts_val_role role;
	const struct ts_val_experiment *exp;
	enum ts_val_figure figure;
	int a, b;	  /* configuration indices */
	int load, load2;  /* load values (unused by the summed-over-loads figures) */
	double scale;	  /* TS_VAL_VALUE only (0 means 1) */
	const char *what; /* the figure in words; NULL: generated from the figure */
	const char *unit; /* "%", "MB/s", "s", "x" */
	double published; /* the figure as published */
	const char *published_text;
	const struct ts_val_source *source;
	struct ts_val_band band;
	const char *note; /* what the simulator lacks to replay the published run, or NULL */
	bool quick;	  /* in the --quick subset */
};

/* The built-in rows (validation_rows.c) in report order, and their sources. */
const struct ts_val_row *ts_val_rows(int *count);
const struct ts_val_source *ts_val_sources(int *count);

/* The rows to run: every built-in row (quick: the quick subset), or those named by ids
 * (each must exist; then quick is ignored). *out is malloc'd. -EINVAL naming an unknown
 * id. */
int ts_val_select(bool quick, const char *const *ids, int nr_ids, const struct ts_val_row ***out,
		  int *count, struct ts_error *err);

/* The experiment's warm-up: its own, or with 0 its workload's default_warmup_ns. */
uint64_t ts_val_warmup_ns(const struct ts_val_experiment *x);

/* v inside the band (NaN never is); NONE contains nothing. */
bool ts_val_band_contains(const struct ts_val_band *band, double v);

/* The row's figure from seed k's runs of e, an experiment laid out as above (configuration
 * k * row->exp->nr_configs + c); NaN when a load the figure needs is not in e or the
 * figure is undefined. *finished (may be NULL) is false when a run it uses hit its cap. */
double ts_val_extract(const struct ts_val_row *row, const struct ts_experiment *e, int k,
		      bool *finished);

enum ts_val_verdict { TS_VAL_PASS, TS_VAL_MISS, TS_VAL_UNJUDGED };

struct ts_val_result {
	const struct ts_val_row *row;
	int n;
	double values[TS_VAL_MAX_SEEDS]; /* per seed */
	double mean, stddev;		 /* NaN when some value is */
	enum ts_val_verdict verdict;	 /* UNJUDGED: the row has no band */
	bool unfinished;		 /* a run it uses hit its time cap */
};

/* Fills mean, stddev and verdict from n and values. */
void ts_val_judge(struct ts_val_result *r);

struct ts_val_options {
	uint64_t seed;
	int jobs;	   /* <= 0: the online CPUs */
	FILE *progress;	   /* the sweep's progress line; NULL: silent */
	ts_sim_run_fn run; /* NULL: ts_sim_run (tests pass a fake) */
};

struct ts_validation {
	uint64_t seed;
	const char *command; /* the command that made it, for the reports' header (or NULL) */
	int nr;
	struct ts_val_result *results; /* [nr], in the rows' order */
};

/* Runs every experiment the rows need (only the loads they use) and judges each row. */
int ts_validation_run(const struct ts_val_row *const *rows, int nr, const struct ts_val_options *o,
		      struct ts_validation *out, struct ts_error *err);
void ts_validation_free(struct ts_validation *v);

/* Reports (validation_report.c); 0 or -EIO (the JSON also -ENOMEM). The table and the markdown show
 * the calibration rows apart from the validation rows, then the sources and a summary; the markdown
 * is docs/validation.md. The list describes rows without running them. */
int ts_validation_write_table(const struct ts_validation *v, FILE *out);
int ts_validation_write_json(const struct ts_validation *v, FILE *out);
int ts_validation_write_markdown(const struct ts_validation *v, FILE *out);
int ts_validation_write_list(const struct ts_val_row *const *rows, int nr, FILE *out);

/* "+6 … +25 %", ">= 3 x", "none" */
void ts_val_band_text(const struct ts_val_row *row, char *buf, size_t size);

#endif
