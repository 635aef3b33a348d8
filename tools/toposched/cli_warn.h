/* The warnings about a sweep that `toposched sim` prints on standard error, which
 * `toposched merge` prints again for a sweep run in shards, as the unsharded run does:
 * those known before the runs are kept and carried by each part (ts_exp_write_part());
 * the one that needs the points (a thin percentile) is computed again from the merged
 * points. */
#ifndef TOPOSCHED_CLI_WARN_H
#define TOPOSCHED_CLI_WARN_H

#include "toposched/experiment.h"
#include "toposched/experiment_part.h"

struct cli_warnings {
	int nr;
	const char *text[TS_EXP_PART_MAX_WARNINGS]; /* [nr], into buf */
	char buf[TS_EXP_PART_MAX_WARNINGS][TS_EXP_PART_WARNING_MAX];
};

/* Prints "toposched CMD: warning: TEXT" and keeps TEXT in w, made one line of a part's
 * limits (cut, control characters as '?') and printed as kept, so that merge prints the
 * same line. */
void cli_warn(struct cli_warnings *w, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A p99 metric (schbench, rt-app files) of a run too short for it: which points
 * (ts_exp_percentile_thin()), how few wake-ups they had, and the --duration that gives
 * every point enough. Printed before the report that shows them. */
void cli_warn_thin_percentile(const char *cmd, const struct ts_experiment *e);

#endif
