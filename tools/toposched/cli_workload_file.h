/* --workload NAME|FILE for toposched sim: a built-in workload, an rt-app file shipped in
 * share/toposched/workloads/ (by its name without ".json"), or the path of an rt-app file
 * (docs/workloads.md, "rt-app files"). */
#ifndef TOPOSCHED_CLI_WORKLOAD_FILE_H
#define TOPOSCHED_CLI_WORKLOAD_FILE_H

#include <stdio.h>

#include "toposched/sim.h"
#include "toposched/sim_rtapp.h"

/* The workload `text` names: *out (a built-in, or (*file)->w); the reader's warnings and
 * the translation's notes go to stderr. 0, or CLI_EXIT_USAGE after one message naming
 * file, line, task and key. */
int cli_workload_open(const char *cmd, const char *text, const struct ts_workload **out,
		      struct ts_sim_rtapp **file);
/* Prints the shipped files as rows of --list-workloads (name, load, metric, description);
 * widths as the built-ins' table uses; pass 0 measures them into *name_w etc. */
void cli_workload_list_files(FILE *out, int pass, int *name_w, int *load_w, int *metric_w);

#endif
