/* sim --trace: which run of the sweep writes the trace (--trace-point NAME/LOAD/ITER) and
 * how large the trace may grow (--trace-max-mb). */
#ifndef TOPOSCHED_CLI_TRACE_H
#define TOPOSCHED_CLI_TRACE_H

#include "toposched/experiment.h"

#define CLI_TRACE_DEFAULT_MAX_MB 256
#define CLI_TRACE_MAX_MB	 16384

/* Sets e->trace_config, trace_load (an index into e->loads) and trace_iteration (0-based)
 * from text, NAME[/LOAD[/ITER]] (NULL: the first configuration, the smallest load,
 * iteration 1; a part left out takes that default): NAME one of e->configs' names, LOAD
 * one of e->loads' values, ITER in 1..e->iterations. Returns 0, or prints one message
 * ("toposched CMD: error: --trace-point '...': ...") and returns CLI_EXIT_USAGE. */
int cli_trace_point(const char *cmd, const char *text, struct ts_experiment *e);

#endif
