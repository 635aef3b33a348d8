/* Sweeps cut into shards: `toposched sim --shard K/N` runs the K-th of N disjoint slices of
 * an experiment's runs and writes a partial result; `toposched merge` reads the N parts
 * and rebuilds the experiment, points and all, exactly as the unsharded run computes it,
 * so its reports are the same bytes. The part is JSON (docs/sim-json.md, "Shards"): the
 * experiment's identity (everything that changes results or reports), the version of
 * toposched that ran it, and every run of the shard with its whole ts_sim_result, doubles
 * in C99 hexadecimal so that they read back bit for bit. */
#ifndef TOPOSCHED_EXPERIMENT_PART_H
#define TOPOSCHED_EXPERIMENT_PART_H

#include <stdio.h>

#include "toposched/error.h"
#include "toposched/experiment.h"

#define TS_EXP_PART_FORMAT  "toposched-sim-part" /* the part's "format" */
#define TS_EXP_PART_VERSION 2			 /* its "format_version" */
/* The warnings a part carries: at most this many, each one line of fewer bytes than
 * TS_EXP_PART_WARNING_MAX, no control characters. */
#define TS_EXP_PART_MAX_WARNINGS 16
#define TS_EXP_PART_WARNING_MAX	 1024

/* Writes the partial result of e, run with nr_shards > 0 (e->results filled), by the
 * toposched called version, with the warnings about the experiment that the run printed
 * before its runs (warnings[0..nr_warnings), the text after "warning: "), so that merge
 * prints them as the unsharded run does. Returns 0, -EINVAL (a warning out of the limits
 * above), -ENOMEM or -EIO. */
int ts_exp_write_part(const struct ts_experiment *e, const char *version,
		      const char *const *warnings, int nr_warnings, FILE *out);

/* The experiment rebuilt from its parts; owns everything it points at. */
struct ts_exp_merge;

/* Reads the parts at paths[0..nr), in any order, and checks that they are shards 1..N of
 * one experiment, each given once, written by the toposched called version, each holding
 * exactly its runs; then computes the points. Errors name the file and what is wrong
 * (-EINVAL; the errno of a file that cannot be read; -ENOMEM). */
int ts_exp_merge_parts(const char *const *paths, int nr, const char *version,
		       struct ts_exp_merge **out, struct ts_error *err);
/* The experiment, ready for the report writers (ts_exp_write_table/csv/json/gnuplot). Its
 * base.topo holds the machine's name and CPU count only, base.workload the workload's
 * names and metric only, base.groups the spec's text only: what the reports print. */
const struct ts_experiment *ts_exp_merge_experiment(const struct ts_exp_merge *m);
/* The warnings the parts carry (ts_exp_write_part()), in their order; returns how many. */
int ts_exp_merge_warnings(const struct ts_exp_merge *m, const char *const **out);
/* The result of run index `run` (< ts_experiment_nr_runs()) as its part carried it. */
const struct ts_sim_result *ts_exp_merge_result(const struct ts_exp_merge *m, int run);
void ts_exp_merge_free(struct ts_exp_merge *m);

#endif
